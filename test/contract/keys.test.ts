// Contract: SSH key lookup — by id and by MD5 or SHA256 fingerprint (URL-encoded, '/', '+' and ':' included), with
// the owner's administrator form; administrators only.
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/http/errors.js';
import { md5Fingerprint, sha256Fingerprint, sshKeysOf } from '../../src/sandbox/areas/ssh-keys/state.js';
import { contractSuite, type Role } from './harness.js';

const suite = contractSuite('keys');

function refusal(name: string, input: Record<string, unknown>, as: Role): Promise<ApiError> {
  return suite.refusal(name, input, as);
}

const keyOf = (title: string) => sshKeysOf(suite.sandbox.store).find((k) => k.title === title)!;

describe.shuffle('keys, in any order', () => {
  describe('get_ssh_key', () => {
    it('gives the key and its owner in the administrator form', async () => {
      const key = keyOf('alice@laptop');
      const result = await suite.call('get_ssh_key', { id: key.id }, { as: 'admin' });
      expect(result.data).toMatchObject({
        id: key.id,
        title: 'alice@laptop',
        key: expect.stringMatching(/^ssh-ed25519 \S+ alice@acme.example$/),
        created_at: expect.any(String),
        user: { username: 'alice', email: 'alice@acme.example', is_admin: false, identities: expect.any(Array) },
      });
    });

    it('answers 404 for an unknown key, 403 to a non-administrator and 401 anonymous', async () => {
      expect((await refusal('get_ssh_key', { id: 99_999 }, 'admin')).status).toBe(404);
      const key = keyOf('bob@desktop');
      expect((await refusal('get_ssh_key', { id: key.id }, 'maintainer')).status).toBe(403);
      expect((await refusal('get_ssh_key', { id: key.id }, 'developer')).status).toBe(403);
      expect((await refusal('get_ssh_key', { id: key.id }, 'anonymous')).status).toBe(401);
    });
  });

  describe('find_ssh_key', () => {
    it('finds a key by a SHA256 fingerprint whose "/", "+" and ":" travel URL-encoded', async () => {
      // A demo key whose fingerprint has both: an unencoded '+' would reach the service as a space.
      const key = sshKeysOf(suite.sandbox.store).find(
        (k) => /\+/.test(sha256Fingerprint(k)) && /\//.test(sha256Fingerprint(k)),
      )!;
      expect(key).toBeDefined();
      const result = await suite.call('find_ssh_key', { fingerprint: sha256Fingerprint(key) }, { as: 'admin' });
      expect(result.data).toMatchObject({ id: key.id, title: key.title, user: { id: key.user_id } });
    });

    it('finds a key by its MD5 fingerprint, with or without the MD5: prefix', async () => {
      const key = keyOf('erin@consulting');
      for (const fingerprint of [md5Fingerprint(key), `MD5:${md5Fingerprint(key)}`]) {
        expect((await suite.call('find_ssh_key', { fingerprint }, { as: 'admin' })).data).toMatchObject({
          id: key.id,
          user: { username: 'erin' },
        });
      }
    });

    it('answers 404 for an unknown fingerprint, and refuses non-administrators before looking', async () => {
      expect((await refusal('find_ssh_key', { fingerprint: 'SHA256:nope' }, 'admin')).status).toBe(404);
      const fingerprint = sha256Fingerprint(keyOf('alice@laptop'));
      expect((await refusal('find_ssh_key', { fingerprint }, 'outsider')).status).toBe(403);
      expect((await refusal('find_ssh_key', { fingerprint }, 'anonymous')).status).toBe(401);
    });
  });

  describe('bad input', () => {
    suite.badInputCases([
      ['a key id that is not a number', 'get_ssh_key', { id: 'abc' }, 'id'],
      ['a missing fingerprint', 'find_ssh_key', {}, 'fingerprint'],
    ]);
  });
});

suite.coverageCase();
