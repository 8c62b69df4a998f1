// Credentials kept out of what is recorded: an operation's own secret inputs (a CI variable's value) are redacted.
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../src/operations/index.js';
import {
  isSecretName,
  maskSecret,
  REDACTED,
  redactSecretInputs,
  redactSecrets,
} from '../../../src/operations/engine/secrets.js';

describe('redactSecretInputs', () => {
  it('redacts exactly the inputs the operation declares secret, and leaves an empty value as it is', () => {
    const op = findOperation('update_group_variable')!;
    expect(op.secretInputs).toEqual(['value']);
    const input = { id: 'acme', key: 'REGISTRY_PASSWORD', value: 'hunter2', protected: true };
    expect(redactSecretInputs(op.secretInputs, input)).toEqual({ ...input, value: REDACTED });
    expect(redactSecretInputs(op.secretInputs, { ...input, value: '' })).toEqual({ ...input, value: '' });
    // The input itself is not changed: it is what runs.
    expect(input.value).toBe('hunter2');
    expect(redactSecretInputs(undefined, input)).toBe(input);
  });

  it('is declared by both operations that send a variable value', () => {
    for (const name of ['create_group_variable', 'update_group_variable'])
      expect(findOperation(name)?.secretInputs, name).toContain('value');
  });
});

describe('isSecretName', () => {
  it('knows credentials by name, cloud keys and any *_KEY included, and leaves ordinary names alone', () => {
    for (const name of [
      'AWS_KEY',
      'aws_secret_access_key',
      'SIGNING_KEY',
      'deploy-key',
      'api_key',
      'eks_access_key_id',
      'client_key',
      'PRIVATE_KEY',
      'privatekey',
      'DB_PASSWORD',
      'passwd',
      'ssh_passphrase',
      'GITHUB_TOKEN',
      'webhook',
      'credentials',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ['key', 'LOG_LEVEL', 'keyboard', 'monkey', 'KEYCLOAK_URL', 'description', 'name'])
      expect(isSecretName(name), name).toBe(false);
  });

  it('reads a name by its words in any case and with any separator, so apiKey and Authorization are credentials', () => {
    for (const name of [
      'apiKey',
      'APIKEY',
      'api-key',
      'Authorization',
      'authorization',
      'Proxy-Authorization',
      'x_auth_token',
      'X-Auth-Token',
      'Set-Cookie',
      'cookies',
      'session_id',
      'sessionId',
      'SESSIONID',
      'session',
      'clientSecret',
      'PASSWORD',
      'private_key',
      'credentials',
      'accessToken',
    ]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it('leaves names about a credential, and names that only look like one, alone', () => {
    for (const name of [
      'token_expires_at',
      'tokens_count',
      'password_length',
      'session_type',
      'author',
      'authored_date',
      'author_email',
      'key_id',
      'expires_at',
      'fingerprint',
    ]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });
});

describe('maskSecret', () => {
  it('shows the length and a short digest, never the value', () => {
    const masked = maskSecret('AKIAIOSFODNN7EXAMPLE');
    expect(masked).toMatch(/^<secret, 20 characters, sha256 [0-9a-f]{8}…>$/);
    expect(masked).not.toContain('AKIA');
    expect(maskSecret('AKIAIOSFODNN7EXAMPLF')).not.toBe(masked);
  });
});

describe('redactSecrets', () => {
  it('redacts credentials by name at any depth, in objects and arrays, and keeps the rest', () => {
    const answer = JSON.parse(
      '{"id": 1, "author": "bob", "apiKey": "k1", "nested": {"Authorization": "Bearer t", "list": [{"Set-Cookie": "c", "name": "x"}]}, "token_expires_at": "2026-01-01"}',
    );
    expect(redactSecrets(answer)).toEqual({
      id: 1,
      author: 'bob',
      apiKey: REDACTED,
      nested: { Authorization: REDACTED, list: [{ 'Set-Cookie': REDACTED, name: 'x' }] },
      token_expires_at: '2026-01-01',
    });
  });

  it('judges a name the same every time it meets it, and keeps a "__proto__" field a field', () => {
    const answer = JSON.parse('[{"private_token": "t1", "__proto__": {"token": "t2"}}, {"private_token": "t3"}]');
    const redacted = redactSecrets(answer) as Record<string, unknown>[];
    expect(redacted).toEqual([
      { private_token: REDACTED, ['__proto__']: { token: REDACTED } },
      { private_token: REDACTED },
    ]);
    expect(Object.getPrototypeOf(redacted[0])).toBe(Object.prototype);
    expect(Object.keys(redacted[0])).toEqual(['private_token', '__proto__']);
  });

  it('copies only what holds a credential: the rest is given back as it came, and the answer is never changed', () => {
    const clean = JSON.parse('{"id": 1, "jobs": [{"name": "build", "tags": ["linux"]}], "author": {"name": "bob"}}');
    expect(redactSecrets(clean)).toBe(clean);
    const sent =
      '{"__proto__": {"a": 1}, "id": 2, "jobs": [{"name": "x"}, {"name": "y", "token": "t"}], "author": {"name": "al"}}';
    const answer = JSON.parse(sent);
    const redacted = redactSecrets(answer) as Record<string, any>;
    expect(answer).toEqual(JSON.parse(sent));
    expect(redacted).not.toBe(answer);
    // Fields before the first credential keep their order and stay fields; untouched branches are shared, not copied.
    expect(Object.keys(redacted)).toEqual(['__proto__', 'id', 'jobs', 'author']);
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(redacted.jobs).toEqual([{ name: 'x' }, { name: 'y', token: REDACTED }]);
    expect(redacted.jobs[0]).toBe(answer.jobs[0]);
    expect(redacted.author).toBe(answer.author);
  });
});
