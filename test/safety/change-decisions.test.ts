// Every change in the registry carries a recorded safety decision (its `decisions`: inputs that run at once and inputs
// that ask a human), proven here against the policy for each one.
import { describe, expect, it } from 'vitest';
import { operations } from '../../src/operations/index.js';
import { validateInput } from '../../src/operations/engine/validate.js';
import { decide } from '../../src/policy/policy.js';

const P = 'acme/web';
const commit = (actions: unknown[], extra: Record<string, unknown> = {}) => ({
  id: P,
  branch: 'main',
  commit_message: 'm',
  actions,
  ...extra,
});
const create = { action: 'create', file_path: 'a.txt', content: 'a' };

const changes = operations.filter((op) => op.effect !== 'read');

describe('safety decisions of every change', () => {
  it('has a decision written down for every change in the registry, and for no read', () => {
    const without = changes.filter((op) => !op.decisions).map((op) => `${op.name}: add \`decisions: { runs, asks }\``);
    expect(without).toEqual([]);
    expect(operations.filter((op) => op.effect === 'read' && op.decisions).map((op) => op.name)).toEqual([]);
  });

  it.each(changes.map((op) => [op.name, op] as const))(
    '%s records what it leaves behind, and is never retried if it may ask',
    (_name, op) => {
      expect(op.undo?.length).toBeGreaterThan(20);
      if (op.effect === 'destructive' || op.needsApproval) expect(op.idempotent).toBe(false);
    },
  );

  it.each(changes.map((op) => [op.name, op] as const))(
    '%s asks a human for exactly the inputs its decision says',
    (_name, op) => {
      if (!op.decisions) throw new Error(`${op.name} declares no decision: add \`decisions: { runs, asks }\` to it`);
      const { runs, asks } = op.decisions;
      for (const raw of runs)
        expect(decide(op, validateInput(op, raw), { readOnly: false }), JSON.stringify(raw)).toEqual({ kind: 'run' });
      for (const raw of asks)
        expect(decide(op, validateInput(op, raw), { readOnly: false }).kind, JSON.stringify(raw)).toBe('approve');
      // A call that says it always asks (help: "Asks you to approve it") has no input that runs at once.
      if (op.effect === 'destructive' || op.alwaysAsks) expect(runs).toEqual([]);
    },
  );

  it.each([
    ['delete_snippet', { id: P, snippet_id: 7 }, ['project: "acme/web"', 'snippet_id: 7', 'gone for good']],
    ['delete_package', { id: P, package_id: 3 }, ['project: "acme/web"', 'package_id: 3', 'gone for good']],
    ['delete_user', { id: 12 }, ['user: 12', 'gone for good']],
    ['delete_user', { id: 12, hard_delete: true }, ['user: 12', 'hard_delete: true', 'every group they solely own']],
    [
      'delete_user_identity',
      { id: 12, provider: 'ldapmain' },
      ['user: 12', 'provider: "ldapmain"', 'no longer sign in'],
    ],
    [
      'update_scim_user',
      { group_path: 'acme', id: 'e-1', Operations: [{ op: 'Replace', path: 'active', value: false }] },
      ['group_path: "acme"', 'user: "e-1"', 'path: "active"', 'value: false', 'deactivates'],
    ],
    [
      'update_scim_user',
      { group_path: 'acme', id: 'e-1', Operations: [{ op: 'Replace', path: 'userName', value: 'x' }] },
      ['group_path: "acme"', 'user: "e-1"', 'path: "userName"', 'overwrites "userName"'],
    ],
    ['delete_scim_user', { group_path: 'acme', id: 'e-1' }, ['group_path: "acme"', 'user: "e-1"', 'loses the group']],
    ['remove_group_member', { id: 'acme', user_id: 6 }, ['"acme"', 'user_id: 6', 'loses this access at once']],
    [
      'update_project_member',
      { id: P, user_id: 6, access_level: 10 },
      ['project: "acme/web"', 'user_id: 6', 'access_level: 10', 'keeps the old one nowhere'],
    ],
    ['delete_broadcast_message', { id: 4 }, ['broadcast_message: 4', 'Cannot be undone']],
    [
      'delete_group_variable',
      { id: 'acme', key: 'DEPLOY_ENV' },
      ['group: "acme"', 'key: "DEPLOY_ENV"', 'pipelines that need the variable fail'],
    ],
  ] as const)('%s names its target in the approval request', (name, raw, expected) => {
    const op = operations.find((o) => o.name === name)!;
    const decision = decide(op, validateInput(op, raw), { readOnly: false });
    expect(decision.kind).toBe('approve');
    for (const text of expected) expect(decision.kind === 'approve' && decision.prompt).toContain(text);
  });

  it('names each file a commit deletes or moves, and the other project a commit copies from', () => {
    const op = operations.find((o) => o.name === 'create_commit')!;
    const prompt = (raw: Record<string, unknown>) => {
      const d = decide(op, validateInput(op, raw), { readOnly: false });
      return d.kind === 'approve' ? d.prompt : '';
    };
    expect(
      prompt(
        commit([
          { action: 'delete', file_path: 'README.md' },
          { action: 'move', file_path: 'b.md', previous_path: 'a.md' },
        ]),
      ),
    ).toContain('it deletes "README.md", moves "a.md" to "b.md"');
    expect(prompt(commit([create], { start_branch: 'main', start_project: 'acme/platform/payments-api' }))).toContain(
      'it copies the tree of project "acme/platform/payments-api" at "main" into branch "main" of project "acme/web"',
    );
  });
});
