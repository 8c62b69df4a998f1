// Tests of ApiError and the reading of every error body shape (src/http/errors.ts).
import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFromResponse, redact } from '../../../src/http/errors.js';

function fromBody(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  secrets: string[] = [],
): ApiError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return apiErrorFromResponse(
    { status, method: 'GET', path: '/projects/1?private_token=x', headers, body: text },
    secrets,
  );
}

describe('apiErrorFromResponse', () => {
  it('keeps a message that already starts with the status, without doubling it', () => {
    const error = fromBody(404, { message: '404 Project Not Found' });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('404 Project Not Found');
    expect(error.serviceMessage).toBe('404 Project Not Found');
    expect(error).toMatchObject({ status: 404, kind: 'http', method: 'GET', path: '/projects/1' });
  });

  it('adds the status to a message that lacks it', () => {
    expect(fromBody(403, { message: 'Forbidden' }).message).toBe('403 Forbidden');
    // "4040 things" does not start with the status 404.
    expect(fromBody(404, { message: '4040 things' }).message).toBe('404 4040 things');
  });

  it('reads validation errors by field, naming each field except base', () => {
    const error = fromBody(400, {
      message: { title: ["can't be blank", 'is too short'], base: ['Release already exists'] },
    });
    expect(error.message).toBe("400 title can't be blank; title is too short; Release already exists");
    expect(error.fieldErrors).toEqual({ title: ["can't be blank", 'is too short'], base: ['Release already exists'] });
  });

  it('reads framework errors and token errors', () => {
    expect(fromBody(400, { error: 'title is missing' }).message).toBe('400 title is missing');
    expect(fromBody(401, { error: 'invalid_token', error_description: 'Token was revoked' }).message).toBe(
      '401 invalid_token: Token was revoked',
    );
  });

  it('keeps error_code', () => {
    const error = fromBody(400, {
      message: 'Sorry, we cannot cherry-pick this commit automatically.',
      error_code: 'conflict',
    });
    expect(error.errorCode).toBe('conflict');
    expect(error.serviceMessage).toBe('Sorry, we cannot cherry-pick this commit automatically.');
  });

  it('reads SCIM errors from detail', () => {
    expect(
      fromBody(404, { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], detail: 'User not found', status: 404 })
        .message,
    ).toBe('404 User not found');
  });

  it('reads plain text and the Retry-After of a 429', () => {
    const error = fromBody(429, 'Retry later\n', { 'retry-after': '7' });
    expect(error.message).toBe('429 Retry later');
    expect(error.retryAfterSeconds).toBe(7);
  });

  it('reduces an HTML page to its title, and caps long bodies', () => {
    const html =
      '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>';
    expect(fromBody(502, html).message).toBe('502 Bad Gateway');
    const long = fromBody(500, 'x'.repeat(5000));
    expect(long.serviceMessage.length).toBeLessThanOrEqual(500);
    expect(long.serviceMessage.endsWith('…')).toBe(true);
  });

  it('uses the status text for an empty body', () => {
    expect(fromBody(503, '').message).toBe('503 Service Unavailable');
    expect(
      apiErrorFromResponse({
        status: 418,
        statusText: 'Short and stout',
        method: 'GET',
        path: '/',
        headers: {},
        body: '  ',
      }).message,
    ).toBe('418 Short and stout');
  });

  it('keeps an unknown JSON shape as its text', () => {
    expect(fromBody(500, { oops: true }).message).toBe('500 {"oops":true}');
  });

  it('redacts tokens in messages, field errors and path, raw and URL-encoded', () => {
    const token = 'glpat-s3cr3t/+token';
    const error = fromBody(
      401,
      { message: { token: [`${token} is invalid`, `see ${encodeURIComponent(token)}`] } },
      {},
      [token],
    );
    const everything = JSON.stringify({ ...error, message: error.message });
    expect(everything).not.toContain('s3cr3t');
    expect(error.message).toBe('401 token [redacted] is invalid; token see [redacted]');
    expect(error.fieldErrors).toEqual({ token: ['[redacted] is invalid', 'see [redacted]'] });
    // fromBody's path carries no token: the path needs a case of its own.
    const inPath = apiErrorFromResponse(
      { status: 404, method: 'GET', path: `/keys/${encodeURIComponent(token)}?x=1`, headers: {}, body: '' },
      [token],
    );
    expect(inPath.path).toBe('/keys/[redacted]');
  });
});

describe('ApiError without a response', () => {
  it('reads as the kind of failure with status 0', () => {
    const error = new ApiError({
      kind: 'network',
      method: 'POST',
      path: '/projects',
      serviceMessage: 'connect ECONNREFUSED 127.0.0.1:1',
      code: 'ECONNREFUSED',
    });
    expect(error.message).toBe('network error: connect ECONNREFUSED 127.0.0.1:1');
    expect(error).toMatchObject({ status: 0, code: 'ECONNREFUSED', name: 'ApiError' });
    expect(
      new ApiError({ kind: 'timeout', method: 'GET', path: '/', serviceMessage: 'no response within 5 ms' }).message,
    ).toBe('timeout: no response within 5 ms');
  });
});

describe('redact', () => {
  it('ignores empty secrets and replaces every occurrence', () => {
    expect(redact('a tok b tok', ['', 'tok'])).toBe('a [redacted] b [redacted]');
  });
});
