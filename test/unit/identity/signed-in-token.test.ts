// The stored sign-in in use: refresh before expiry and after a 401, one refresh for two processes, the file's mode
// guard, logout's revocation and whoami's words.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { CredentialsFile } from '../../../src/identity/credentials-file.js';
import { login, logout, whoami } from '../../../src/identity/login-commands.js';
import { SignedInToken } from '../../../src/identity/signed-in-token.js';
import { HttpClient } from '../../../src/http/client.js';
import { sandboxCliApplication, SANDBOX_CLIENT_IDS } from '../../../src/runtime.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { type Sandbox, startSandbox } from '../../../src/sandbox/server.js';
import { approveDeviceCode } from '../../helpers/sign-in-person.js';

let sandbox: Sandbox;
let clock: ManualClock;
let dir: string;
let file: CredentialsFile;

beforeAll(async () => {
  clock = new ManualClock();
  sandbox = await startSandbox({ clock, applications: [sandboxCliApplication()] });
});
afterAll(() => sandbox.close());
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'forgeops-token-'));
  file = new CredentialsFile(join(dir, 'forgeops', 'credentials.json'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const config = (extra: Record<string, string> = {}) =>
  parseConfig({ CODEHOST_URL: sandbox.url, FORGEOPS_CLI_CLIENT_ID: SANDBOX_CLIENT_IDS.cli, ...extra });

async function signIn(username = 'bob') {
  let printed = '';
  return login(
    config(),
    { mode: 'device' },
    {
      out: (text) => {
        printed += text;
      },
      file,
      sleep: async (ms) => {
        await approveDeviceCode(sandbox, /enter the code: (\S+)/.exec(printed)?.[1] as string, username);
        clock.advance(ms);
      },
    },
  );
}

const userStatus = async (token: string) =>
  (await fetch(`${sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${token}` } })).status;
const refreshes = () =>
  sandbox.requests.filter({ method: 'POST', path: '/oauth/token' }).filter((r) => r.status === 200);

test('a token within a minute of its expiry is refreshed first, and the rotated pair is stored', async () => {
  const first = await signIn();
  const later = () => (first.expires_at as number) - 30_000;
  const token = new SignedInToken({ host: sandbox.url, file, now: later });
  const fresh = await token.token();
  expect(fresh).not.toBe(first.access_token);
  const stored = await file.read(sandbox.url);
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
  const a = new SignedInToken({ host: sandbox.url, file: new CredentialsFile(file.path), now: later });
  const b = new SignedInToken({ host: sandbox.url, file: new CredentialsFile(file.path), now: later });
  const [ta, tb] = await Promise.all([a.token(), b.token()]);
  expect(ta).toBe(tb);
  expect(refreshes().length - before).toBe(1);
  expect(await userStatus(ta)).toBe(200);
});

test('the HTTP client refreshes once after a 401 (the host clock passed the expiry) and the call succeeds', async () => {
  const first = await signIn('alice');
  clock.advance(2 * 60 * 60 * 1000 + 1000);
  const { signInTokenSource } = await import('../../../src/identity/signed-in-token.js');
  const lines: string[] = [];
  const log = { info: (l: string) => lines.push(l), warn: (l: string) => lines.push(l) };
  const client = new HttpClient({ baseUrl: sandbox.url, tokenSource: signInTokenSource(sandbox.url, log, file) });
  try {
    const me = await client.request<{ username: string }>({ method: 'GET', path: '/user', idempotent: true });
    expect(me.data.username).toBe('alice');
  } finally {
    await client.close();
  }
  expect((await file.read(sandbox.url))?.access_token).not.toBe(first.access_token);
  expect(lines.join('\n')).toContain('refreshed the sign-in of @alice');
});

test('a credentials file others can read is refused with the fix', async () => {
  await signIn();
  chmodSync(file.path, 0o644);
  await expect(file.read(sandbox.url)).rejects.toThrow(/can be read or written by others \(mode 644\).*chmod 600/);
});

test('logout revokes the tokens at the host and forgets them; whoami says who, then that nobody is', async () => {
  const first = await signIn('bob');
  let out = '';
  const io = {
    out: (text: string) => {
      out += text;
    },
    file,
  };
  expect(await whoami(config(), io)).toBe(0);
  expect(out).toContain(`Signed in to ${sandbox.url} as @bob with forgeops login (scopes api`);
  out = '';
  expect(await whoami(config({ CODEHOST_TOKEN: sandbox.tokens.maintainer }), io)).toBe(0);
  expect(out).toContain('CODEHOST_TOKEN from the environment is in use (@alice); it wins over forgeops login');
  out = '';
  await logout(config(), io);
  expect(out).toContain(`Signed out of ${sandbox.url} (@bob): the tokens were revoked`);
  expect(await userStatus(first.access_token)).toBe(401);
  expect(await file.read(sandbox.url)).toBeUndefined();
  out = '';
  expect(await whoami(config(), io)).toBe(1);
  expect(out).toContain('Not signed in');
});

test('logout with the host unreachable still forgets the sign-in and says revocation failed', async () => {
  const stored = await signIn();
  const gone = 'http://127.0.0.1:9';
  await file.write({ ...stored, host: gone });
  let out = '';
  await logout(parseConfig({ CODEHOST_URL: gone }), {
    out: (text) => {
      out += text;
    },
    file,
  });
  expect(out).toMatch(/Removed the sign-in of @bob .* but revoking it at http:\/\/127\.0\.0\.1:9 failed/);
  expect(await file.read(gone)).toBeUndefined();
});
