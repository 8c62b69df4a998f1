// Readiness of the service: a recent answer counts as proof, so a replica busy with calls is not taken out by a probe
// that waits behind them; without one, a probe decides, and an unreachable service is named.
import { describe, expect, it } from 'vitest';
import { serviceCheck } from '../../src/health.js';
import type { ApiRequest, ApiTransport } from '../../src/http/types.js';

/** A transport whose probes fail as an unreachable service's do, counting them. */
function unreachable(lastAnswerAt?: number) {
  const probes: ApiRequest[] = [];
  const client: ApiTransport = {
    lastAnswerAt,
    async request(req) {
      probes.push(req);
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { kind: 'network' });
    },
  };
  return { client, probes };
}

describe('serviceCheck', () => {
  it('takes an answer from the last seconds as proof the service is reachable, without probing', async () => {
    const { client, probes } = unreachable(Date.now() - 1000);
    expect(await serviceCheck(client, 'http://code.example').check()).toBeUndefined();
    expect(probes).toHaveLength(0);
  });

  it('probes when the last answer is old or there was none, and names the service that does not answer', async () => {
    for (const last of [Date.now() - 60_000, undefined]) {
      const { client, probes } = unreachable(last);
      expect(await serviceCheck(client, 'http://code.example').check()).toBe(
        'http://code.example does not answer: connect ECONNREFUSED 127.0.0.1:9',
      );
      expect(probes).toHaveLength(1);
    }
  });

  it('counts an error answer (401, 404) as reachable: the service answered', async () => {
    const client: ApiTransport = {
      async request() {
        throw Object.assign(new Error('401 Unauthorized'), { kind: 'http' });
      },
    };
    expect(await serviceCheck(client, 'http://code.example').check()).toBeUndefined();
  });
});
