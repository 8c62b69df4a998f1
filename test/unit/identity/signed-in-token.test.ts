// The stored sign-in in use: refresh before expiry and after a 401, one refresh for two processes, the file's mode
// guard, logout's revocation and whoami's words.
import { chmodSync } from 'node:fs';
import { expect, test } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { CredentialsFile } from '../../../src/identity/credentials-file.js';
import { logout, whoami } from '../../../src/identity/login-commands.js';
import { SignedInToken } from '../../../src/identity/signed-in-token.js';
import { HttpClient } from '../../../src/http/client.js';
import { answerAtFirstPoll, capturedIo, loginByDevice, useLoginSandbox } from '../../helpers/login-sandbox.js';

const at = useLoginSandbox('forgeops-token-');
const config = (extra: Record<string, string> = {}) => at.config(extra);
const signIn = (username = 'bob') => loginByDevice(at, answerAtFirstPoll(at, username)).attempt;

const userStatus = async (token: string) =>
  (await fetch(`${at.sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${token}` } })).status;
const refreshes = () =>
  at.sandbox.requests.filter({ method: 'POST', path: '/oauth/token' }).filter((r) => r.status === 200);

test('a token within a minute of its expiry is refreshed first, and the rotated pair is stored', async () => {
  const first = await signIn();
  const later = () => (first.expires_at as number) - 30_000;
  const token = new SignedInToken({ host: at.sandbox.url, file: at.file, now: later });
  const fresh = await token.token();
  expect(fresh).not.toBe(first.access_token);
  const stored = await at.file.read(at.sandbox.url);
  expect(stored?.access_token).toBe(fresh);
  expect(stored?.refresh_token).not.toBe(first.refresh_token);
  expect(stored?.signed_in_at).toBe(first.signed_in_at);
  expect(await userStatus(first.access_token)).toBe(401);
  expect(await userStatus(fresh)).toBe(200);
});

test('two processes refreshing at once refresh once and share the new pair', async () => {
  const first = await signIn();
  const later = () => (first.expires_at as number) - 30_000;
  const before = refreshes().length;
  // Two readers of the same file, as two stdio servers would be.
  const a = new SignedInToken({ host: at.sandbox.url, file: new CredentialsFile(at.file.path), now: later });
  const b = new SignedInToken({ host: at.sandbox.url, file: new CredentialsFile(at.file.path), now: later });
  const [ta, tb] = await Promise.all([a.token(), b.token()]);
  expect(ta).toBe(tb);
  expect(refreshes().length - before).toBe(1);
  expect(await userStatus(ta)).toBe(200);
});

test('the HTTP client refreshes once after a 401 (the host clock passed the expiry) and the call succeeds', async () => {
  const first = await signIn('alice');
  at.clock.advance(2 * 60 * 60 * 1000 + 1000);
  const { signInTokenSource } = await import('../../../src/identity/signed-in-token.js');
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(l) };
  const client = new HttpClient({
    baseUrl: at.sandbox.url,
    tokenSource: signInTokenSource(at.sandbox.url, log, at.file),
  });
  try {
    const me = await client.request<{ username: string }>({ method: 'GET', path: '/user', idempotent: true });
    expect(me.data.username).toBe('alice');
  } finally {
    await client.close();
  }
  expect((await at.file.read(at.sandbox.url))?.access_token).not.toBe(first.access_token);
  expect(lines.join('\n')).toContain('refreshed the sign-in of @alice');
});

test('a credentials file others can read is refused with the fix', async () => {
  await signIn();
  chmodSync(at.file.path, 0o644);
  await expect(at.file.read(at.sandbox.url)).rejects.toThrow(
    /can be read or written by others \(mode 644\).*chmod 600/,
  );
});

test('logout revokes the tokens at the host and forgets them; whoami says who, then that nobody is', async () => {
  const first = await signIn('bob');
  const captured = capturedIo(at.file);
  const io = captured.io;
  expect(await whoami(config(), io)).toBe(0);
  expect(captured.text()).toContain(`Signed in to ${at.sandbox.url} as @bob with forgeops login (scopes api`);
  captured.clear();
  expect(await whoami(config({ CODEHOST_TOKEN: at.sandbox.tokens.maintainer }), io)).toBe(0);
  expect(captured.text()).toContain(
    'CODEHOST_TOKEN from the environment is in use (@alice); it wins over forgeops login',
  );
  captured.clear();
  await logout(config(), io);
  expect(captured.text()).toContain(`Signed out of ${at.sandbox.url} (@bob): the tokens were revoked`);
  expect(await userStatus(first.access_token)).toBe(401);
  expect(await at.file.read(at.sandbox.url)).toBeUndefined();
  captured.clear();
  expect(await whoami(config(), io)).toBe(1);
  expect(captured.text()).toContain('Not signed in');
});

test('logout with the host unreachable still forgets the sign-in and says revocation failed', async () => {
  const stored = await signIn();
  const gone = 'http://127.0.0.1:9';
  await at.file.write({ ...stored, host: gone });
  const captured = capturedIo(at.file);
  await logout(parseConfig({ CODEHOST_URL: gone }), captured.io);
  expect(captured.text()).toMatch(/Removed the sign-in of @bob .* but revoking it at http:\/\/127\.0\.0\.1:9 failed/);
  expect(await at.file.read(gone)).toBeUndefined();
});
