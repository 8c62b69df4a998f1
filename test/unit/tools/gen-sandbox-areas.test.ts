// The committed list of sandbox areas is what the generator makes of the area folders, and the generator refuses
// a folder whose index.ts does not export its area.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { areaFolders, GENERATED_FILE, generatedAreas, REGENERATE_COMMAND } from '../../../tools/gen-sandbox-areas.mjs';

test('src/sandbox/areas/areas.generated.ts is up to date with the area folders', async () => {
  const committed = await readFile(GENERATED_FILE, 'utf8');
  expect(committed, `stale: run ${REGENERATE_COMMAND} (npm run build runs it) and commit the result`).toBe(
    generatedAreas(),
  );
  expect(areaFolders()).toContain('work-items');
});

test('lists only folders with an index.ts, by name, and refuses an index.ts without `area`', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'forgeops-gen-areas-'));
  try {
    for (const folder of ['zeta-area', 'alpha', 'no-index']) await mkdir(join(dir, folder));
    await writeFile(join(dir, 'zeta-area', 'index.ts'), 'export const area: SandboxArea = {};\n');
    await writeFile(join(dir, 'alpha', 'index.ts'), 'export const area: SandboxArea = {};\n');
    const text = generatedAreas(dir);
    expect(text).toContain("import { area as zetaArea } from './zeta-area/index.js';");
    expect(text.indexOf('  alpha,')).toBeLessThan(text.indexOf('  zetaArea,'));
    expect(text).not.toContain('no-index');
    await writeFile(join(dir, 'alpha', 'index.ts'), 'export const other = 1;\n');
    expect(() => generatedAreas(dir)).toThrow('alpha/index.ts exports no `area`');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
