// The premise check while a retry of the red pipeline runs: an older green pipeline under it is no end of the red, so
// Revert, the incident issue and Mute still stand (the words "green again" would be false and refuse them).
import { describe, expect, it } from 'vitest';
import { PremiseCheck } from '../../../src/operations/composed/button-premise.js';
import { operations } from '../../../src/operations/index.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { useSandbox } from '../../helpers/mcp.js';

// The sandbox's clock stands still: the retried pipeline stays running while the premise is checked.
const env = useSandbox({ clock: new ManualClock() });
const premises = new PremiseCheck(() => operations);

describe('PremiseCheck while a retry runs', () => {
  it('does not call the branch green again for an older green pipeline under the retry', async () => {
    const asAlice = { client: env.client, token: env.sandbox.tokens.maintainer };
    const listed = await env.client.request<Array<{ id: number; status: string }>>({
      method: 'GET',
      path: '/projects/acme%2Fweb/pipelines',
      query: { ref: 'main', per_page: 20 },
      idempotent: true,
    });
    // Every red pipeline newer than the last green one is retried, so the newest finished pipeline is that green one.
    const lastGreen = listed.data.findIndex((p) => p.status === 'success');
    expect(lastGreen).toBeGreaterThan(0);
    const reds = listed.data.slice(0, lastGreen).filter((p) => p.status === 'failed');
    const red = listed.data[0];
    expect(red.status).toBe('failed');
    for (const pipeline of reds)
      await env.client.request({
        method: 'POST',
        path: `/projects/acme%2Fweb/pipelines/${pipeline.id}/retry`,
        idempotent: false,
      });
    for (const kind of ['incident', 'mute'] as const) {
      const answer = await premises.check({ kind, project: 'acme/web', ref: 'main' }, asAlice);
      expect(answer, kind).toEqual({ holds: true });
    }
    const retry = await premises.check(
      { kind: 'retry', project: 'acme/web', ref: 'main', pipeline_id: red.id },
      asAlice,
    );
    expect(retry).toMatchObject({
      holds: false,
      changed: expect.stringMatching(/^pipeline #\d+ is (pending|running) now; nothing was retried\.$/),
    });
  });
});
