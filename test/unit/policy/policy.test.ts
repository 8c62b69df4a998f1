// The policy step: read-only mode, destructive calls need a human, some writes only for some inputs.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, fields } from '../../../src/operations/define.js';
import { decide, describeCall } from '../../../src/policy/policy.js';

const listThings = defineOperation({
  name: 'list_things', chat: 'thing list', area: 'pipelines', title: 'List things', description: 'Lists.',
  route: 'GET /projects/:id/pipelines', input: z.object({ id: fields.projectId() }), effect: 'read',
});
const deleteThing = defineOperation({
  name: 'delete_thing', chat: 'thing delete', area: 'pipelines', title: 'Delete a pipeline', description: 'Deletes.',
  route: 'DELETE /projects/:id/pipelines/:pipeline_id',
  input: z.object({ id: fields.projectId(), pipeline_id: z.number().int() }), effect: 'destructive',
});
const commitThing = defineOperation({
  name: 'commit_thing', chat: 'thing commit', area: 'commits', title: 'Create a commit', description: 'Commits.',
  route: 'POST /projects/:id/repository/commits',
  input: z.object({ id: fields.projectId(), branch: z.string(), force: z.boolean().optional() }), effect: 'write',
  confirm: (input) => (input.force ? `Force-overwrite branch ${input.branch}: its current commits are replaced.` : undefined),
});

describe('decide', () => {
  it('runs reads and plain writes at once', () => {
    expect(decide(listThings, { id: 1 }, { readOnly: false })).toEqual({ kind: 'run' });
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: false })).toEqual({ kind: 'run' });
  });

  it('asks a human for every destructive call, naming the target', () => {
    const decision = decide(deleteThing, { id: 'acme/web', pipeline_id: 42 }, { readOnly: false });
    expect(decision).toEqual({ kind: 'confirm', prompt: 'Delete a pipeline: project acme/web, pipeline id 42. This cannot be undone.' });
  });

  it('asks for a write only when its confirm() says the input is dangerous', () => {
    const decision = decide(commitThing, { id: 1, branch: 'main', force: true }, { readOnly: false });
    expect(decision).toEqual({ kind: 'confirm', prompt: 'Force-overwrite branch main: its current commits are replaced.' });
  });

  it('denies every change in read-only mode, and still allows reads', () => {
    expect(decide(commitThing, { id: 1, branch: 'main' }, { readOnly: true }).kind).toBe('deny');
    expect(decide(deleteThing, { id: 1, pipeline_id: 2 }, { readOnly: true }).kind).toBe('deny');
    expect(decide(listThings, { id: 1 }, { readOnly: true })).toEqual({ kind: 'run' });
  });

  it('describes every argument of the call, shortening long values', () => {
    const text = describeCall(commitThing, { id: 5, branch: 'x'.repeat(200) });
    expect(text).toMatch(/^Create a commit: project 5 \(branch=x+…\)\.$/);
    expect(text.length).toBeLessThan(140);
  });
});
