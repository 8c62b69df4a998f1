// Contract: get_current_user against the sandbox — each demo token's own account, the administrator's sudo,
// and the refusals around it.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.js';
import { contractSuite } from './harness.js';

const suite = contractSuite('users');

describe('get_current_user', () => {
  it('returns the account the token belongs to', async () => {
    const result = await suite.call('get_current_user', {}, { as: 'developer' });
    expect(result.status).toBe(200);
    expect(result.data).toMatchObject({ username: 'bob', state: 'active', id: expect.any(Number), web_url: expect.any(String) });
    expect(result.data).not.toHaveProperty('is_admin');
  });

  it('gives an administrator the administrator form, and lets them act as another user with sudo', async () => {
    const admin = await suite.call('get_current_user', {}, { as: 'admin' });
    expect(admin.data).toMatchObject({ username: 'root', is_admin: true });
    const carol = suite.sandbox.store.users.find((u) => u.username === 'carol');
    const result = await suite.call('get_current_user', { sudo: carol!.id }, { as: 'admin' });
    expect(result.data).toMatchObject({ id: carol!.id, username: 'carol' });
  });

  it('refuses sudo from a non-administrator with the service\'s 403', async () => {
    const error = await suite.call('get_current_user', { sudo: 1 }, { as: 'maintainer' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, serviceMessage: '403 Forbidden - Must be admin to use sudo' });
  });

  it('is a 401 without a token', async () => {
    await expect(suite.call('get_current_user', {}, { as: 'anonymous' })).rejects.toMatchObject({ status: 401 });
  });
});

describe('bad input', () => {
  suite.badInputCases([
    ['a sudo that is not a user ID', 'get_current_user', { sudo: 'root' }, 'sudo'],
    ['an unknown key', 'get_current_user', { user: 1 }, ''],
  ]);
});

suite.coverageCase();
