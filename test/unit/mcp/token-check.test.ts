// The memory of tokens the service accepted: a yes is kept for a minute, a no or a failure to ask is never kept.
import { describe, expect, it } from 'vitest';
import type { ApiRequest, ApiTransport } from '../../../src/http/types.js';
import { serviceTokenChecker } from '../../../src/mcp/token-check.js';

/** A service that answers GET /user as `answer` says for each token, counting the questions. */
function scriptedService(answer: (token: string) => 'ok' | { status?: number; kind: string }) {
  const asked: string[] = [];
  const transport: ApiTransport = {
    async request(req: ApiRequest) {
      asked.push(req.token ?? '');
      const said = answer(req.token ?? '');
      if (said === 'ok') return { status: 200, data: { username: 'someone' }, headers: {} } as never;
      throw Object.assign(new Error('service said no'), said);
    },
  };
  return { asked, transport };
}

describe('serviceTokenChecker', () => {
  it('asks the service once a minute at most about a token it accepted', async () => {
    let now = 0;
    const service = scriptedService(() => 'ok');
    const checker = serviceTokenChecker(service.transport, () => now);
    expect(await checker.check('good')).toEqual({ accepted: true });
    now = 59_000;
    expect(await checker.check('good')).toEqual({ accepted: true });
    expect(service.asked).toEqual(['good']);
    now = 61_000;
    expect(await checker.check('good')).toEqual({ accepted: true });
    expect(service.asked).toEqual(['good', 'good']);
  });

  it('asks again every time about a token it refused or could not be asked about', async () => {
    let down = true;
    const service = scriptedService((token) =>
      token === 'bad' ? { status: 401, kind: 'http' } : down ? { status: 503, kind: 'http' } : 'ok',
    );
    const checker = serviceTokenChecker(service.transport, () => 0);
    expect(await checker.check('bad')).toEqual({ accepted: false, refused: true });
    expect(await checker.check('bad')).toEqual({ accepted: false, refused: true });
    expect(await checker.check('good')).toEqual({ accepted: false, refused: false, why: 'GET /user answered 503' });
    down = false;
    expect(await checker.check('good')).toEqual({ accepted: true });
    expect(service.asked).toEqual(['bad', 'bad', 'good', 'good']);
  });
});
