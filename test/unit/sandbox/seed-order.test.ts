// The demo ids do not depend on the order the areas seed in: seeding in shuffled orders gives every seeded record
// the same ids, so the area list can be generated in alphabetical order without renumbering the demo data.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { AREAS } from '../../../src/sandbox/areas/index.js';
import type { SandboxArea } from '../../../src/sandbox/core/area.js';
import { Store } from '../../../src/sandbox/core/store.js';
import { GitRepo } from '../../../src/sandbox/git/repo.js';
import { seed } from '../../../src/sandbox/seed.js';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const ID_FIELD = /^(id|iid|.+_id|.+_ids|.+_iid)$/;
const LABEL_FIELDS = ['full_path', 'username', 'title', 'name', 'ref', 'tag_name', 'key', 'path', 'sha', 'body'];

/**
 * One line per seeded record that has ids: where it lives (array positions left out, map keys kept), a label that
 * names it, and its id fields; sorted, so that only ids and labels, not the order records were pushed, count.
 */
function idSnapshot(store: Store): string[] {
  const lines: string[] = [];
  const ancestors = new Set<unknown>();
  const visit = (value: unknown, path: string) => {
    if (typeof value !== 'object' || value === null || value instanceof Date || value instanceof GitRepo) return;
    if (Buffer.isBuffer(value) || ancestors.has(value)) return;
    ancestors.add(value);
    if (Array.isArray(value) || value instanceof Set) for (const item of value) visit(item, `${path}[]`);
    else if (value instanceof Map) for (const [key, item] of value) visit(item, `${path}.${String(key)}`);
    else {
      const entries = Object.entries(value);
      const ids = entries.filter(([key, field]) => ID_FIELD.test(key) && typeof field !== 'object');
      const label = LABEL_FIELDS.map((key) => (value as Record<string, unknown>)[key]).find(
        (l) => typeof l === 'string',
      );
      if (ids.length > 0)
        lines.push(`${path} ${JSON.stringify(label ?? '')} ${ids.map(([k, v]) => `${k}=${v}`).join(' ')}`);
      for (const [key, field] of entries) visit(field, `${path}.${key}`);
    }
    ancestors.delete(value);
  };
  visit({ users: store.users, groups: store.groups, projects: store.projects, scimTokens: store.scimTokens }, 'store');
  // The areas' state is private to the store (areaState); reading it here is what makes the snapshot complete.
  visit((store as unknown as { slots: Map<string, unknown> }).slots, 'areas');
  return lines.sort();
}

async function seededIds(areas: readonly SandboxArea[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'forgeops-seed-order-'));
  dirs.push(dir);
  const store = new Store(dir, areas);
  await seed(store, areas);
  return idSnapshot(store);
}

/** A fixed shuffle (the same on every run), so that a failure names an order one can seed again. */
function shuffled<T>(items: readonly T[], seedNumber: number): T[] {
  const result = [...items];
  let state = seedNumber;
  for (let i = result.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}

test('the ids of everything seeded are the same whatever order the areas seed in', async () => {
  const reference = await seededIds(AREAS);
  expect(reference.length).toBeGreaterThan(300);
  const orders = [[...AREAS].reverse(), shuffled(AREAS, 1), shuffled(AREAS, 2), shuffled(AREAS, 3)];
  for (const order of orders) {
    const names = order.map((area) => area.name).join(',');
    expect({ order: names, ids: await seededIds(order) }).toEqual({ order: names, ids: reference });
  }
});
