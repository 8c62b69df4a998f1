// Types of gen-sandbox-areas.mjs for the test that imports it.
export const AREAS_DIR: string;
export const GENERATED_FILE: string;
export const REGENERATE_COMMAND: string;
export function areaFolders(areasDir?: string): string[];
export function generatedAreas(areasDir?: string): string;
