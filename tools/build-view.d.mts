// Types of tools/build-view.mjs for the tests that build the triage view.
export const VIEW_SOURCE: string;
export const VIEW_OUTPUT: string;
export function viewPolicy(scriptHash: string): string;
export function buildView(output?: string): Promise<number>;
