// Where a list reads on: page/per_page that start exactly after what was shown, and rows that keep ids.
import { describe, expect, it } from 'vitest';
import { callFrom } from '../../../src/operations/engine/paging.js';
import { findOperation, operations } from '../../../src/operations/index.js';
import { compactRow, detailToolOf } from '../../../src/operations/engine/rows.js';
import { listStructure } from '../../../src/mcp/lists.js';

describe('callFrom', () => {
  it('gives page/per_page whose page starts exactly at the offset, no bigger than the limit', () => {
    for (let offset = 1; offset <= 300; offset++) {
      for (const limit of [1, 2, 7, 20, 100]) {
        const { page, per_page } = callFrom(offset, limit);
        expect((page - 1) * per_page).toBe(offset);
        expect(per_page).toBeLessThanOrEqual(limit);
        expect(per_page).toBeGreaterThanOrEqual(1);
      }
    }
    expect(callFrom(20, 20)).toEqual({ page: 2, per_page: 20 });
    expect(callFrom(7, 2)).toEqual({ page: 8, per_page: 1 });
    expect(callFrom(30, 7)).toEqual({ page: 6, per_page: 6 });
  });
});

describe('compactRow', () => {
  it('keeps ids, names, state, people, labels and dates; reduces records to names; drops links and empties', () => {
    const issue = {
      id: 81,
      iid: 8,
      project_id: 1,
      title: 'Slow images',
      description: `First line\n${'more '.repeat(100)}`,
      state: 'opened',
      labels: [{ name: 'bug', color: '#f00' }],
      assignees: [{ username: 'alice', avatar_url: 'x' }],
      assignee: { username: 'alice' },
      author: { id: 6, username: 'erin', web_url: 'http://x/erin' },
      milestone: { id: 3, title: '1.2' },
      closed_at: null,
      web_url: 'http://x/acme/web/-/issues/8',
      _links: { self: 'http://x' },
      time_stats: { total_time_spent: 0 },
      upvotes: 2,
      created_at: '2026-11-22T09:00:00Z',
    };
    expect(compactRow(issue)).toEqual({
      id: 81,
      iid: 8,
      project_id: 1,
      title: 'Slow images',
      description: 'First line…',
      state: 'opened',
      labels: ['bug'],
      assignees: ['alice'],
      author: 'erin',
      milestone: '1.2',
      created_at: '2026-11-22T09:00:00Z',
    });
  });

  it('keeps a diff whole, and all short fields of an item the row keys do not describe', () => {
    const diff = '@@ -1 +1 @@\n-a\n+b\n'.repeat(50);
    expect(compactRow({ diff, new_path: 'a.ts', old_path: 'a.ts' })).toEqual({
      diff,
      new_path: 'a.ts',
      old_path: 'a.ts',
    });
    expect(compactRow({ id: 1, colour: 'red', weight: 3 })).toEqual({ id: 1, colour: 'red', weight: 3 });
  });

  it('keeps a short one-line text as it is, and marks one cut at its first line, its length or trailing space', () => {
    const row = (title: string) => (compactRow({ id: 1, title }) as { title: string }).title;
    expect(row('Fix the build')).toBe('Fix the build');
    expect(row('x'.repeat(160))).toBe('x'.repeat(160));
    expect(row('x'.repeat(161))).toBe(`${'x'.repeat(160)}…`);
    expect(row('First\nSecond')).toBe('First…');
    expect(row('Ends with a newline\n')).toBe('Ends with a newline');
    expect(row('Ends with spaces  ')).toBe('Ends with spaces  …');
  });
});

describe('detailToolOf', () => {
  it.each([
    ['list_pipelines', 'get_pipeline', 'pipeline_id', 'id'],
    ['list_epics', 'get_epic', 'epic_iid', 'iid'],
    ['list_releases', 'get_release', 'tag_name', 'tag_name'],
    ['list_project_issues', 'get_issue', 'issue_iid', 'iid'],
  ])(
    'finds the read of one item under the list route of %s, and the field it takes',
    (list, tool, parameter, field) => {
      expect(detailToolOf(findOperation(list)!, operations)).toEqual({ tool, parameter, field });
    },
  );

  it('finds none where the list has no read of one item under its route', () => {
    expect(detailToolOf(findOperation('list_group_issues')!, operations)).toBeUndefined();
  });
});

describe('listStructure', () => {
  const pipelines = Array.from({ length: 20 }, (_, i) => ({
    id: 100 + i,
    status: i % 3 ? 'success' : 'failed',
    ref: 'main',
    sha: `${i}`.padStart(40, 'a'),
    web_url: `http://x/acme/web/-/pipelines/${100 + i}`,
    note: 'quote " backslash \\ and ü',
  }));
  const context = (name: string, maxChars: number) => ({
    operation: findOperation(name)!,
    operations,
    input: { id: 'acme/web' },
    maxChars,
  });

  it('gives the JSON it wrote on the way exactly as the structure serializes, and none for a list it cut', () => {
    const info = { page: 1, per_page: 20, pages_fetched: 1, has_more: true };
    for (const [name, items] of [
      ['list_pipelines', pipelines],
      ['list_pipelines', pipelines.slice(0, 1)],
      ['list_pipelines', []],
      ['list_integrations', pipelines.slice(0, 3)],
      ['list_integrations', [null, { title: 'x', gone: undefined }, 'text', 7]],
    ] as const) {
      const list = listStructure(items, name === 'list_pipelines' ? info : undefined, context(name, 20_000));
      expect(list.json).toBe(JSON.stringify(list.structure));
    }
    const cut = listStructure(pipelines, info, context('list_pipelines', 1_000));
    expect((cut.structure.items as unknown[]).length).toBeLessThan(pipelines.length);
    expect(cut.structure.truncated).toEqual(expect.stringContaining('showing the first'));
    expect(cut.json).toBeUndefined();
  });
});
