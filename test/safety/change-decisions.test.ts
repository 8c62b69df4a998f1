// Every change in the registry carries a recorded safety decision: when it asks a human, proven here for each one.
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/validate.js';
import { decide } from '../../src/policy/policy.js';

const P = 'acme/web';
const commit = (actions: unknown[], extra: Record<string, unknown> = {}) =>
  ({ id: P, branch: 'main', commit_message: 'm', actions, ...extra });
const create = { action: 'create', file_path: 'a.txt', content: 'a' };

/**
 * The decision for each write and destructive operation: inputs that run at once, and inputs a human must
 * approve. A new change fails here until its decision is written down.
 */
const DECISIONS: Record<string, { runs: Array<Record<string, unknown>>; asks: Array<Record<string, unknown>> }> = {
  create_file: { runs: [{ id: P, file_path: 'a.txt', branch: 'main', commit_message: 'm', content: 'x' }], asks: [] },
  // The old content stays in the history.
  update_file: { runs: [{ id: P, file_path: 'a.txt', branch: 'main', commit_message: 'm', content: 'x' }], asks: [] },
  delete_file: { runs: [], asks: [{ id: P, file_path: 'README.md', branch: 'main', commit_message: 'm' }] },
  create_commit: {
    runs: [
      commit([create, { action: 'update', file_path: 'b.txt', content: 'b' }, { action: 'chmod', file_path: 'c.sh', execute_filemode: true }]),
      // Starting a new branch from this very project copies nothing anywhere.
      commit([create], { start_branch: 'main', start_project: P }),
    ],
    asks: [
      commit([{ action: 'delete', file_path: 'README.md' }]),
      commit([{ action: 'move', file_path: 'b.md', previous_path: 'README.md' }]),
      commit([create], { force: true, start_branch: 'main' }),
      commit([create], { start_branch: 'main', start_project: 'acme/platform/payments-api' }),
    ],
  },
  cherry_pick_commit: { runs: [{ id: P, sha: 'abc1234', branch: 'main' }], asks: [] },
  revert_commit: { runs: [{ id: P, sha: 'abc1234', branch: 'main' }], asks: [] },
  create_commit_comment: { runs: [{ id: P, sha: 'abc1234', note: 'hi' }], asks: [] },
  create_pipeline: { runs: [{ id: P, ref: 'main' }], asks: [] },
  // The on-call's Retry button: it changes no data.
  retry_pipeline: { runs: [{ id: P, pipeline_id: 1 }], asks: [] },
  // Stops running jobs mid-way; they cannot be resumed.
  cancel_pipeline: { runs: [], asks: [{ id: P, pipeline_id: 1 }] },
  delete_pipeline: { runs: [], asks: [{ id: P, pipeline_id: 1 }] },
  create_release: { runs: [{ id: P, tag_name: 'v9', description: 'notes' }], asks: [] },
  // A release's old notes, name, milestones and date are kept nowhere.
  update_release: {
    runs: [{ id: P, tag_name: 'v1.0.0' }],
    asks: [
      { id: P, tag_name: 'v1.0.0', description: 'new notes' },
      { id: P, tag_name: 'v1.0.0', name: 'n' },
      { id: P, tag_name: 'v1.0.0', milestones: [] },
      { id: P, tag_name: 'v1.0.0', released_at: '2026-01-01T00:00:00Z' },
    ],
  },
  // Notification settings: the level, events and email they replace are kept nowhere; an empty call changes nothing.
  update_notification_settings: {
    runs: [{}],
    asks: [{ level: 'watch' }, { events: { new_note: false } }, { notification_email: 'alice@acme.example' }],
  },
  update_group_notification_settings: { runs: [{ id: 'acme' }], asks: [{ id: 'acme', level: 'disabled' }, { id: 'acme', events: { new_note: true } }] },
  update_project_notification_settings: { runs: [{ id: P }], asks: [{ id: P, level: 'custom' }, { id: P, events: { failed_pipeline: true } }] },
};

const changes = operations.filter((op) => op.effect !== 'read');

describe('safety decisions of every change', () => {
  it('has a decision written down for exactly the changes in the registry', () => {
    expect(Object.keys(DECISIONS).sort()).toEqual(changes.map((op) => op.name).sort());
  });

  it.each(changes.map((op) => [op.name, op] as const))('%s records what it leaves behind, and is never retried if it may ask', (_name, op) => {
    expect(op.undo?.length).toBeGreaterThan(20);
    if (op.effect === 'destructive' || op.confirm) expect(op.idempotent).toBe(false);
  });

  it.each(changes.map((op) => [op.name, op] as const))('%s asks a human for exactly the inputs its decision says', (_name, op) => {
    const { runs, asks } = DECISIONS[op.name];
    for (const raw of runs) expect(decide(op, validateInput(op, raw), { readOnly: false }), JSON.stringify(raw)).toEqual({ kind: 'run' });
    for (const raw of asks) expect(decide(op, validateInput(op, raw), { readOnly: false }).kind, JSON.stringify(raw)).toBe('confirm');
    if (op.effect === 'destructive') expect(runs).toEqual([]);
  });

  it('names each file a commit deletes or moves, and the other project a commit copies from', () => {
    const op = operations.find((o) => o.name === 'create_commit')!;
    const prompt = (raw: Record<string, unknown>) => {
      const d = decide(op, validateInput(op, raw), { readOnly: false });
      return d.kind === 'confirm' ? d.prompt : '';
    };
    expect(prompt(commit([{ action: 'delete', file_path: 'README.md' }, { action: 'move', file_path: 'b.md', previous_path: 'a.md' }])))
      .toContain('it deletes "README.md", moves "a.md" to "b.md"');
    expect(prompt(commit([create], { start_branch: 'main', start_project: 'acme/platform/payments-api' })))
      .toContain('it copies the tree of project "acme/platform/payments-api" at "main" into branch "main" of project "acme/web"');
  });
});
