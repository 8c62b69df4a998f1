// What a 401 tells the person to do depends on where the token came from: a personal access token is made anew, a
// sign-in (the terminal's, an MCP host's, a Slack link) is done again; the words never send a signed-in person to
// make a token they never had.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/http/errors.js';
import { explainFailure } from '../../../src/operations/engine/failures.js';
import { operations } from '../../../src/operations/index.js';

const op = operations.find((o) => o.name === 'get_current_user')!;
const refused = () =>
  new ApiError({ kind: 'http', status: 401, method: 'GET', path: '/user', serviceMessage: '401 Unauthorized' });
const explain = (service: { address: string; tokenSource: string; renew?: string }) =>
  explainFailure(op, refused(), { operations, service });

describe('a refused token', () => {
  it('sends the holder of CODEHOST_TOKEN to make a new personal access token', () => {
    expect(explain({ address: 'CODEHOST_URL (https://code.example)', tokenSource: 'CODEHOST_TOKEN' })).toMatch(
      /\(CODEHOST_TOKEN is missing, wrong or expired: create a new personal access token\)$/,
    );
  });

  it('sends a signed-in person to sign in again, where they signed in', () => {
    const text = explain({
      address: 'CODEHOST_URL (https://code.example)',
      tokenSource: 'the code host sign-in of codehost-user:3',
      renew: 'sign in again from your MCP host',
    });
    expect(text).toMatch(/expired: sign in again from your MCP host\)$/);
    expect(text).not.toContain('personal access token');
  });
});
