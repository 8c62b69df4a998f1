// presentOutcome against real sandbox answers: presenters first, a generic reading of any other result, paging, raw content.
import { describe, expect, it } from 'vitest';
import { broadcastState } from '../../../src/operations/areas/broadcast-messages.js';
import { executeCall, prepareCall } from '../../../src/run/call.js';
import type { OperationResult } from '../../../src/operations/engine/define.js';
import { findOperation, operations } from '../../../src/operations/index.js';
import { presentApproval, presentFailure, presentOutcome } from '../../../src/chat/present.js';
import { useSandbox } from '../../helpers/mcp.js';
import type { ShownText } from '../../../src/text/visible.js';

const env = useSandbox();
const PROJECT = 'acme/web';

async function run(
  name: string,
  args: Record<string, unknown>,
): Promise<{ input: Record<string, unknown>; result: OperationResult }> {
  const op = findOperation(name)!;
  const prepared = prepareCall(op, args, { readOnly: false }, { operations });
  if (prepared.kind !== 'run') throw new Error(`${name} was not ready to run: ${prepared.kind}`);
  const outcome = await executeCall(op, prepared.input, { client: env.client }, { operations });
  if (!outcome.ok) throw new Error(outcome.message);
  return { input: prepared.input, result: outcome.result };
}

async function present(name: string, args: Record<string, unknown>, options = {}) {
  const { input, result } = await run(name, args);
  return { message: presentOutcome(findOperation(name)!, input, result, options), result };
}

describe('presentOutcome with an operation presenter', () => {
  it('uses the pipeline presenter, with its status, link and Retry on a failed pipeline', async () => {
    const { result } = await run('list_pipelines', { id: PROJECT, status: 'failed', per_page: 1 });
    const [failed] = result.data as Array<{ id: number; web_url: string }>;
    const { message } = await present('get_pipeline', { id: PROJECT, pipeline_id: failed.id });
    expect(message.title).toBe(`Pipeline #${failed.id}: failed`);
    expect(message.status).toBe('failed');
    expect(message.link).toBe(failed.web_url);
    expect(message.actions).toEqual([
      { label: 'Retry', operation: 'retry_pipeline', input: { id: PROJECT, pipeline_id: failed.id }, style: 'primary' },
    ]);
  });

  it("holds a presenter's list to the item budget, with the same note as a generic list", async () => {
    const { message } = await present('list_pipelines', { id: PROJECT, per_page: 5 }, { maxItems: 3 });
    expect(message.title).toBe('5 pipelines');
    expect(message.fields).toHaveLength(3);
    expect(message.notes[0]).toBe('2 more not shown.');
  });

  it('adds a note and a Next page call to a list with more pages', async () => {
    const { message, result } = await present('list_pipelines', { id: PROJECT, per_page: 2 });
    expect(message.title).toBe('2 pipelines');
    expect(result.page?.has_more).toBe(true);
    expect(message.notes).toContain(`showing 2 of ${result.page!.total}; next page: page=2`);
    expect(message.actions.filter((a) => a.row === undefined)).toEqual([
      { label: 'Next page', operation: 'list_pipelines', input: { id: PROJECT, per_page: 2, page: 2 } },
    ]);
  });

  it('gives each shown row its own step, tied to the row: Retry a failed pipeline, Cancel a running one', async () => {
    const { message, result } = await present('list_pipelines', { id: PROJECT, per_page: 100 }, { maxItems: 5 });
    const shown = (result.data as Array<{ id: number; status: string }>).slice(0, 5);
    const verbOf = (status: string) =>
      status === 'failed' || status === 'canceled'
        ? 'Retry'
        : status === 'running' || status === 'pending'
          ? 'Cancel'
          : undefined;
    // Cancel names what it cancels: beside a question, a bare Cancel reads as "don't".
    const labelOf = (verb: string) => (verb === 'Cancel' ? 'Cancel pipeline' : verb);
    const expected = shown
      .filter((p) => verbOf(p.status))
      .map((p) => [verbOf(p.status)!, p] as const)
      .map(([verb, p]) => ({
        label: `${labelOf(verb)} #${p.id}`,
        operation: `${verb.toLowerCase()}_pipeline`,
        input: { id: PROJECT, pipeline_id: p.id },
        row: `#${p.id}`,
      }));
    expect(expected.length).toBeGreaterThan(2);
    expect(message.actions.filter((a) => a.row !== undefined).map(({ style: _style, ...a }) => a)).toEqual(expected);
  });

  it('reads on from the first line a cut page did not show, so nothing cut is skipped', async () => {
    // Page 2 of 4 is cut to 3 lines: Next reads from list position 8, not from page 3 (position 9).
    const { message } = await present('list_commits', { id: PROJECT, per_page: 4, page: 2 }, { maxItems: 3 });
    expect(message.fields).toHaveLength(3);
    const next = message.actions.find((action) => action.label === 'Next page');
    expect(next?.input).toMatchObject({ page: 8, per_page: 1 });
    const { result: all } = await run('list_commits', { id: PROJECT, per_page: 8 });
    const { result: following } = await run('list_commits', next!.input as Record<string, unknown>);
    expect((following.data as Array<{ id: string }>)[0].id).toBe((all.data as Array<{ id: string }>)[7].id);
  });

  it('offers the rest of a cut last page, and no Next page once everything was shown', async () => {
    const { message: cut } = await present('list_pipelines', { id: PROJECT, per_page: 100 }, { maxItems: 2 });
    expect(cut.actions.find((action) => action.label === 'Next page')?.input).toMatchObject({ page: 2, per_page: 2 });
  });

  it('offers no Next page on the last page', async () => {
    const { message } = await present('list_pipelines', { id: PROJECT, per_page: 100 });
    expect(message.actions.filter((a) => a.row === undefined)).toEqual([]);
    expect(message.notes).toEqual([]);
  });
});

describe('broadcast messages', () => {
  it('tell expired from scheduled, with their dates, not both "inactive"', async () => {
    const { message } = await present('list_broadcast_messages', {});
    expect(
      message.fields.map(([, line]) => line.split(' · ')[0].replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, 'DATE')),
    ).toEqual(['expired DATE', 'active until DATE', 'scheduled DATE to DATE']);
  });

  it('judge by the times given', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    const m = (starts: string, ends: string, active = false) => ({ starts_at: starts, ends_at: ends, active });
    expect(broadcastState(m('2026-11-28T06:00:00Z', '2026-11-28T06:15:00Z'), now)).toBe(
      'scheduled 2026-11-28 06:00 UTC to 2026-11-28 06:15 UTC',
    );
    expect(broadcastState(m('2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z'), now)).toBe('expired 2026-11-02 00:00 UTC');
    expect(broadcastState(m('2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z', true), now)).toBe(
      'active until 2026-12-01 00:00 UTC',
    );
    // In its window yet not active (the service's own view): said as it is.
    expect(broadcastState(m('2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'), now)).toBe('inactive');
  });
});

describe('presentOutcome without a presenter', () => {
  it('counts a list of commits and gives each its short SHA and title', async () => {
    const { message, result } = await present('list_commits', { id: PROJECT, per_page: 3 });
    const commits = result.data as Array<{ short_id: string; title: string; status: string; author_name: string }>;
    expect(message.title).toBe('3 commits');
    // The newest commit's pipeline failed: its status reads between title and author.
    expect(message.fields[0]).toEqual([
      commits[0].short_id,
      `${commits[0].title} · ${commits[0].status} · ${commits[0].author_name}`,
    ]);
    expect(commits[0].status).toBe('failed');
    expect(message.status).toBeUndefined();
  });

  it('titles an object by its name and shows a handful of its scalar fields, never pictures', async () => {
    const { message } = await present('get_current_user', {});
    expect(message.title).toBe('Alice Martin');
    expect(message.fields.length).toBeGreaterThan(2);
    expect(message.fields.length).toBeLessThanOrEqual(8);
    expect(message.fields[0]).toEqual(['id', '2']);
    expect(message.fields.map(([k]) => k)).not.toContain('avatar_url');
    expect(message.link).toMatch(/\/alice$/);
    expect(message.notes.find((n) => /more fields? not shown/.test(n))).toMatch(
      /^\d+ more fields? not shown \([a-z_, ]+\); forgeops chat --json, or the MCP tool, gives every field\.$/,
    );
  });

  it('decodes a base64 file into a code section', async () => {
    const { message } = await present('get_file', { id: PROJECT, file_path: 'README.md', ref: 'main' });
    expect(message.title).toBe('README.md');
    expect(message.sections[0]).toMatchObject({ code: true });
    expect(message.sections[0].text).toMatch(/^# acme\/web/);
  });

  it('shows a diff as code, cut to the size limit with a note', async () => {
    const { message } = await present('get_commit_diff', { id: PROJECT, sha: 'main' }, { maxCodeChars: 40 });
    expect(message.sections[0].code).toBe(true);
    expect(message.sections[0].title).toBe('src/pages/search.ts');
    expect(message.sections[0].text).toHaveLength(40);
    expect(message.notes.some((n) => /cut: showing 40 of \d+ characters/.test(n))).toBe(true);
  });

  it('shows raw text content as a code section and describes bytes by size and digest', async () => {
    const { message: raw } = await present('get_file_raw', { id: PROJECT, file_path: 'README.md', ref: 'main' });
    expect(raw.sections[0]).toMatchObject({ code: true });
    expect(raw.sections[0].text).toMatch(/^# acme\/web/);
    const { message: archive } = await present('download_archive', { id: PROJECT });
    expect(archive.sections).toEqual([]);
    expect(archive.fields.find(([k]) => k === 'sha256')?.[1]).toMatch(/^[0-9a-f]{64}$/);
    expect(archive.notes.join(' ')).toMatch(/Binary content is not shown/);
  });

  it('says what a write with no answer body did, to what', () => {
    const op = findOperation('delete_pipeline')!;
    const message = presentOutcome(op, { id: PROJECT, pipeline_id: 1 }, { data: null, status: 204 });
    expect(message).toMatchObject({ title: 'Deleted pipeline #1 in acme/web', status: 'success' });
  });

  it('never throws on a surprising shape', () => {
    for (const op of operations) {
      for (const data of [null, 'text', 42, [1, 'a', null], { x: { y: 1 } }, [{ id: 'zz' }]]) {
        expect(() => presentOutcome(op, {}, { data, status: 200 })).not.toThrow();
      }
    }
  });
});

describe('failures and approval requests', () => {
  it('puts a usage line under the error it belongs to', () => {
    expect(presentFailure('pipeline get: pipeline_id is required.\nUsage: pipeline get <id> <pipeline_id>')).toEqual({
      title: 'pipeline get: pipeline_id is required.',
      status: 'error',
      fields: [],
      sections: [{ text: 'Usage: pipeline get <id> <pipeline_id>' }],
      actions: [],
      notes: [],
    });
  });

  it('shows the exact prompt whole, as code', () => {
    const op = findOperation('delete_pipeline')!;
    const prepared = prepareCall(op, { id: PROJECT, pipeline_id: 3 }, { readOnly: false }, { operations });
    expect(prepared.kind).toBe('approve');
    const prompt = (prepared as { prompt: ShownText }).prompt;
    const message = presentApproval(prompt, op);
    expect(message.status).toBe('warning');
    expect(message.sections).toEqual([{ text: prompt, code: true }]);
  });
});
