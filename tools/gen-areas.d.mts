// Types of gen-areas.mjs for the tests that import it.
export function scanAreas(dir?: string): Array<{ file: string; name: string }>;
export function generatedFiles(areas?: Array<{ file: string; name: string }>): Array<[path: string, content: string]>;
export function staleFiles(): string[];
