// Writes src/sandbox/areas/areas.generated.ts, the list of the sandbox's areas, from the folders under
// src/sandbox/areas/ that have an index.ts: adding an area is adding its folder. Run by `npm run build` before tsc;
// test/unit/tools/gen-sandbox-areas.test.ts fails when the committed file is stale.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const AREAS_DIR = join(root, 'src/sandbox/areas');
export const GENERATED_FILE = join(AREAS_DIR, 'areas.generated.ts');
export const REGENERATE_COMMAND = 'node tools/gen-sandbox-areas.mjs';

/** The area folders (those with an index.ts), sorted by name so that the list does not depend on the file system. */
export function areaFolders(areasDir = AREAS_DIR) {
  return readdirSync(areasDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(areasDir, entry.name, 'index.ts')))
    .map((entry) => entry.name)
    .sort();
}

/** 'group-import-export' → 'groupImportExport': the name each area's `area` is imported under. */
function identifier(folder) {
  return folder.replace(/-([a-z0-9])/g, (_, letter) => letter.toUpperCase());
}

/** The text of areas.generated.ts for these folders; an index.ts that does not export `area` is an error. */
export function generatedAreas(areasDir = AREAS_DIR) {
  const folders = areaFolders(areasDir);
  for (const folder of folders) {
    const index = readFileSync(join(areasDir, folder, 'index.ts'), 'utf8');
    if (!/^export const area\b/m.test(index))
      throw new Error(`src/sandbox/areas/${folder}/index.ts exports no \`area\``);
  }
  return [
    `// Generated from the area folders by ${REGENERATE_COMMAND} (npm run build runs it): do not edit.`,
    "import type { SandboxArea } from '../core/area.js';",
    ...folders.map((folder) => `import { area as ${identifier(folder)} } from './${folder}/index.js';`),
    '',
    '/** Every area, by folder name. */',
    'export const AREAS: readonly SandboxArea[] = [',
    ...folders.map((folder) => `  ${identifier(folder)},`),
    '];',
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = generatedAreas();
  const current = existsSync(GENERATED_FILE) ? readFileSync(GENERATED_FILE, 'utf8') : '';
  if (current !== text) writeFileSync(GENERATED_FILE, text);
}
