// Types of test-deps.mjs for the tests that import it.
export interface TestDependency {
  why: string;
  program?: string;
  probe?: [string, string[]];
  debian: string;
}
export const TEST_DEPENDENCIES: TestDependency[];
export function onPath(program: string, path?: string): boolean;
export function missingDependencies(options?: {
  has?: (program: string) => boolean;
  probe?: (probe: [string, string[]]) => boolean;
}): TestDependency[];
export function installCommand(missing: TestDependency[]): string;
export function ensureTestDependencies(options?: {
  has?: (program: string) => boolean;
  probe?: (probe: [string, string[]]) => boolean;
  isRoot?: boolean;
  run?: (command: string, args: string[]) => unknown;
  log?: (line: string) => void;
}): boolean;
