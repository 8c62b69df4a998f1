// Dry runs built by the executor's own code: query, form and handler-built requests, credentials in the URL, and
// handlers that would do more than one thing — nothing ever reaches a transport that sends.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Operation } from '../../../src/operations/engine/define.js';
import { captureRequest, dryRunCall, takeDryRun } from '../../../src/run/dry-run.js';
import { testOperation } from '../../helpers/test-operation.js';

const policy = { readOnly: false };
const explain = { operations: [] as Operation[] };

const revokeKey = testOperation({
  name: 'revoke_thing_key',
  route: 'DELETE /things/:id/keys',
  queryKeys: ['access_token', 'reason'],
  body: 'form',
  input: z.object({
    id: z.string(),
    access_token: z.string(),
    reason: z.string().optional(),
    note: z.string().optional(),
  }),
  effect: 'destructive',
  undo: 'The key is gone for good.',
});

describe('dryRunCall', () => {
  it('shows query parameters, a form body, and credentials in the URL only by their length', async () => {
    const outcome = await dryRunCall(
      revokeKey,
      { id: 'a/b', access_token: 'tok-123456', reason: 'leaked', note: 'by on-call' },
      policy,
      explain,
    );
    expect(outcome).toMatchObject({
      kind: 'preview',
      preview: {
        effect: 'destructive',
        request: {
          method: 'DELETE',
          path: '/api/v4/things/a%2Fb/keys',
          query: { access_token: '<secret, 10 characters>', reason: 'leaked' },
          body: { note: 'by on-call' },
          body_encoding: 'form',
        },
        changes: 'The key is gone for good.',
        needs_confirmation: true,
      },
    });
  });

  it('refuses in read-only mode, as the call itself is refused', async () => {
    const outcome = await dryRunCall(revokeKey, { id: 'a', access_token: 't' }, { readOnly: true }, explain);
    expect(outcome).toMatchObject({ kind: 'refused', message: expect.stringMatching(/read-only mode/) });
  });
});

describe('captureRequest', () => {
  it('stops a handler at its first request, even one that catches the stop and tries again', async () => {
    const attempts: string[] = [];
    // It tries twice on its own.
    const stubborn = testOperation({
      name: 'retry_thing',
      route: 'POST /things/:id/retry',
      input: z.object({ id: z.number() }),
      effect: 'write',
      undo: 'Runs it again.',
      run: async (ctx, input) => {
        for (const path of [`/things/${input.id}/retry`, `/things/${input.id}/retry-harder`]) {
          attempts.push(path);
          try {
            return { data: (await ctx.client.request({ method: 'POST', path, idempotent: false })).data, status: 200 };
          } catch {
            // a handler's own fallback
          }
        }
        return { data: null, status: 0 };
      },
    });
    expect(await captureRequest(stubborn, { id: 7 })).toMatchObject({ method: 'POST', path: '/things/7/retry' });
    expect(attempts).toEqual(['/things/7/retry', '/things/7/retry-harder']);
  });

  it('refuses a call whose handler sends nothing or fails before sending, with the error a real run would give', async () => {
    // It sends nothing at all.
    const idle = testOperation({
      name: 'touch_thing',
      route: 'POST /things/:id/touch',
      input: z.object({ id: z.string() }),
      effect: 'write',
      undo: 'Nothing to undo.',
      run: async () => ({ data: null, status: 204 }),
    });
    expect(await dryRunCall(idle, { id: 'x' }, policy, explain)).toEqual({
      kind: 'refused',
      operation: idle,
      message: 'touch_thing would send no request for this input; nothing was sent.',
    });
    const dotted = await dryRunCall(revokeKey, { id: '..', access_token: 't' }, policy, explain);
    expect(dotted).toMatchObject({ kind: 'refused', message: expect.stringMatching(/'\.\.'/) });
  });
});

describe('takeDryRun', () => {
  it('splits dry_run off the arguments, checks its type, and leaves other arguments alone', () => {
    expect(takeDryRun(revokeKey, { id: 'a', dry_run: true })).toEqual({ dryRun: true, args: { id: 'a' } });
    expect(takeDryRun(revokeKey, { id: 'a', dry_run: false })).toEqual({ dryRun: false, args: { id: 'a' } });
    expect(takeDryRun(revokeKey, { id: 'a' })).toEqual({ dryRun: false, args: { id: 'a' } });
    expect(takeDryRun(revokeKey, 'nonsense')).toEqual({ dryRun: false, args: 'nonsense' });
    expect(takeDryRun(revokeKey, { dry_run: 1 })).toEqual({
      error: 'Invalid input for revoke_thing_key: dry_run: must be true or false',
    });
  });
});
