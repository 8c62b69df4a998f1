// The policy step: read-only mode, destructive calls need a human, some writes only for some inputs, and the exact prompt.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, fields } from '../../../src/operations/engine/define.js';
import { approvalPrompt, decide } from '../../../src/policy/policy.js';
import { quoteExactly } from '../../../src/text/visible.js';
import { testOperation } from '../../helpers/test-operation.js';

const listThings = testOperation({
  name: 'list_things',
  route: 'GET /projects/:id/pipelines',
  input: z.object({ id: fields.projectId() }),
  effect: 'read',
});
// The titles the prompts below show are their own, not the names'.
const deleteThing = testOperation({
  name: 'delete_thing',
  title: 'Delete a pipeline',
  route: 'DELETE /projects/:id/pipelines/:pipeline_id',
  input: z.object({ id: fields.projectId(), pipeline_id: z.number().int() }),
  effect: 'destructive',
  undo: 'Cannot be undone.',
});
const commitThing = testOperation({
  name: 'commit_thing',
  title: 'Create a commit',
  route: 'POST /projects/:id/repository/commits',
  input: z.object({
    id: fields.projectId(),
    branch: z.string(),
    content: z.string().optional(),
    force: z.boolean().optional(),
  }),
  effect: 'write',
  undo: 'Adds a commit.',
  needsApproval: (input) =>
    input.force ? `Force-overwrite branch ${input.branch}: its current commits are replaced.` : undefined,
});

describe('decide', () => {
  it('runs reads and plain writes at once', () => {
    expect(decide(listThings, { id: 1 }, { readOnly: false })).toEqual({ kind: 'run' });
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: false })).toEqual({ kind: 'run' });
  });

  it('asks a human for every destructive call, naming the target by what the route calls it', () => {
    const decision = decide(deleteThing, { id: 'acme/web', pipeline_id: 42 }, { readOnly: false });
    expect(decision).toEqual({
      kind: 'approve',
      prompt:
        'Delete a pipeline (delete_thing): Cannot be undone.\nThe exact call:\n  project: "acme/web"\n  pipeline_id: 42',
      reason: 'Cannot be undone.',
      answers: { yes: 'Yes, delete a pipeline 42', no: 'No, change nothing' },
    });
  });

  it('asks for a write only when its needsApproval() says the input is dangerous, and still lists the whole call', () => {
    const decision = decide(commitThing, { id: 1, branch: 'main', force: true }, { readOnly: false });
    expect(decision).toEqual({
      kind: 'approve',
      prompt:
        'Create a commit (commit_thing): Force-overwrite branch main: its current commits are replaced.\n' +
        'The exact call:\n  project: 1\n  branch: "main"\n  force: true',
      reason: 'Force-overwrite branch main: its current commits are replaced.',
      answers: { yes: 'Yes, create a commit', no: 'No, change nothing' },
    });
  });

  it('denies every change in read-only mode, and still allows reads', () => {
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: true }).kind).toBe('deny');
    expect(decide(deleteThing, { id: 1, pipeline_id: 2 }, { readOnly: true }).kind).toBe('deny');
    expect(decide(listThings, { id: 1 }, { readOnly: true })).toEqual({ kind: 'run' });
  });

  it("names the caller's reason for read-only in the refusal, and FORGEOPS_READ_ONLY without one", () => {
    const channel = decide(
      commitThing,
      { id: 1, branch: 'main' },
      { readOnly: true, readOnlyReason: 'this channel is read-only (X)' },
    );
    expect(channel).toEqual({
      kind: 'deny',
      reason: expect.stringMatching(/changes data, and this channel is read-only \(X\); nothing was sent/),
    });
    expect(JSON.stringify(channel)).not.toContain('FORGEOPS_READ_ONLY');
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: true })).toMatchObject({
      reason: expect.stringContaining('FORGEOPS_READ_ONLY'),
    });
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: false, readOnlyReason: 'unused' })).toEqual({
      kind: 'run',
    });
  });

  it('refuses to define a change without its undo decision, or a call that may need approval marked idempotent', () => {
    expect(() =>
      defineOperation({ ...deleteThing, undo: undefined, route: 'DELETE /projects/:id/pipelines/:pipeline_id' }),
    ).toThrow(/must say in 'undo'/);
    expect(() =>
      defineOperation({ ...deleteThing, idempotent: true, route: 'DELETE /projects/:id/pipelines/:pipeline_id' }),
    ).toThrow(/must not be marked idempotent/);
  });
});

describe('approvalPrompt', () => {
  it('shows a long branch name whole, never cut', () => {
    const branch = `release/${'x'.repeat(500)}/end`;
    const text = approvalPrompt(commitThing, { id: 5, branch }, 'Why.');
    expect(text).toContain(`  branch: "${branch}"`);
  });

  it('summarises long free text by size and hash, and shows short text whole', () => {
    const long = approvalPrompt(commitThing, { id: 5, branch: 'main', content: 'a'.repeat(1000) }, 'Why.');
    expect(long).toMatch(/ {2}content: <1000 characters, 1000 bytes, sha256 [0-9a-f]{16}…>/);
    const short = approvalPrompt(commitThing, { id: 5, branch: 'main', content: 'hello' }, 'Why.');
    expect(short).toContain('  content: "hello"');
  });

  it('spells out control, invisible and direction-changing characters so a value cannot pass for another', () => {
    expect(quoteExactly('a\nb')).toBe('"a\\u000ab"');
    expect(quoteExactly('invoice\u202Egpj.exe')).toBe('"invoice\\u202egpj.exe"');
    expect(quoteExactly('ma\u200Bin')).toBe('"ma\\u200bin"');
    expect(quoteExactly('say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
  });
});

describe('credentials in the prompt', () => {
  const setThing = testOperation({
    name: 'set_thing',
    route: 'PUT /projects/:id/integrations/:slug',
    input: z.object({
      id: fields.projectId(),
      slug: z.string(),
      token: z.string().optional(),
      webhook: z.string().optional(),
    }),
    effect: 'write',
    undo: 'Replaces settings.',
    needsApproval: () => 'It replaces the settings.',
  });

  it('shows a token only by its length, and a webhook by the origin it sends to', () => {
    const prompt = approvalPrompt(
      setThing,
      { id: 1, slug: 'chat', token: 's3cr3t-value', webhook: 'https://hooks.evil.example/T0/B1/xyz' },
      'Why.',
    );
    expect(prompt).toContain('  token: <secret, 12 characters>');
    expect(prompt).toContain('  webhook: <secret URL on "https://hooks.evil.example", 36 characters>');
    expect(prompt).not.toContain('s3cr3t');
    expect(prompt).not.toContain('/T0/B1');
  });
});
