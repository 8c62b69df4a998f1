// forgeops login against a sandbox on loopback: the device grant (pending, slow_down, expiry, denial) and the browser on
// a loopback redirect (forged state and a wrong issuer refused), each ending in the credentials file or a clear error.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { login, LoginError, LoginSetupError } from '../../../src/identity/login-commands.js';
import { authorizeInBrowser, approveDeviceCode } from '../../helpers/sign-in-person.js';
import { answerAtFirstPoll, loginByDevice, useLoginSandbox } from '../../helpers/login-sandbox.js';

const at = useLoginSandbox('forgeops-login-');
const config = () => at.config();

async function apiUser(token: string) {
  const response = await fetch(`${at.sandbox.url}/api/v4/user`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: (await response.json()) as { username?: string } };
}

describe('forgeops login --device', () => {
  test('prints the code, polls at the server interval while pending, and stores the sign-in of the person who approved', async () => {
    const asked: number[] = [];
    let approved: Promise<void> | undefined;
    // The first poll comes before the person is done (authorization_pending); the second after.
    const run = loginByDevice(
      at,
      async (ms, userCode) => {
        asked.push(ms);
        if (asked.length === 2) {
          approved ??= approveDeviceCode(at.sandbox, userCode, 'bob');
          await approved;
        }
        at.clock.advance(ms);
      },
      { scopes: 'read_api' },
    );
    const signIn = await run.attempt;
    const printed = run.printed();
    expect(printed).toMatch(new RegExp(`open ${at.sandbox.url}/oauth/device and enter the code: [A-Z0-9]{8}`));
    expect(printed).toContain(`(or open ${at.sandbox.url}/oauth/device?user_code=`);
    expect(asked).toEqual([5000, 5000]);
    expect(printed).toContain(`Signed in to ${at.sandbox.url} as @bob (scopes read_api)`);
    expect(signIn).toMatchObject({ host: at.sandbox.url, client_id: 'forgeops-cli-sandbox', scopes: ['read_api'] });
    expect(signIn.account.username).toBe('bob');
    const stored = await at.file.read(at.sandbox.url);
    expect(stored?.access_token).toBe(signIn.access_token);
    expect(stored?.refresh_token).toEqual(expect.any(String));
    expect(printed).not.toContain(signIn.access_token);
    expect((await apiUser(signIn.access_token)).body.username).toBe('bob');
  });

  test('slow_down adds five seconds to the interval', async () => {
    const asked: number[] = [];
    await loginByDevice(at, async (ms, userCode) => {
      asked.push(ms);
      // The second wait is cut short, as a client that polls too fast would: the server answers slow_down.
      if (asked.length === 2) return at.clock.advance(1000);
      if (asked.length === 3) await approveDeviceCode(at.sandbox, userCode, 'alice');
      at.clock.advance(ms);
    }).attempt;
    expect(asked).toEqual([5000, 5000, 10000]);
    expect((await at.file.read(at.sandbox.url))?.account.username).toBe('alice');
  });

  test('a code nobody approved in time ends with a clear error and no sign-in', async () => {
    const run = loginByDevice(at, async () => at.clock.advance(301_000));
    await expect(run.attempt).rejects.toThrow(
      /the code [A-Z0-9]{8} expired before it was approved .*run forgeops login again/,
    );
    expect(await at.file.read(at.sandbox.url)).toBeUndefined();
  });

  test('a denied code says so', async () => {
    const run = loginByDevice(at, answerAtFirstPoll(at, 'bob', 'deny'));
    await expect(run.attempt).rejects.toThrow(`the sign-in was denied at ${at.sandbox.url}`);
  });

  test('an unknown client id names FORGEOPS_CLI_CLIENT_ID; no CODEHOST_URL says why the embedded sandbox cannot be signed in to', async () => {
    const unknown = parseConfig({ CODEHOST_URL: at.sandbox.url, FORGEOPS_CLI_CLIENT_ID: 'nobody' });
    await expect(login(unknown, { mode: 'device' }, { out: () => undefined, file: at.file })).rejects.toThrow(
      /does not accept client id 'nobody' \(FORGEOPS_CLI_CLIENT_ID\)/,
    );
    const embedded = login(parseConfig({}), { mode: 'device' }, { out: () => undefined, file: at.file });
    await expect(embedded).rejects.toBeInstanceOf(LoginSetupError);
    await expect(embedded).rejects.toThrow(/embedded sandbox, which lives inside each forgeops process/);
    const noClient = login(parseConfig({ CODEHOST_URL: at.sandbox.url }), {}, { out: () => undefined, file: at.file });
    await expect(noClient).rejects.toThrow(/FORGEOPS_CLI_CLIENT_ID is not set: register a public application/);
    await expect(login(config(), { scopes: 'sudo' }, { out: () => undefined, file: at.file })).rejects.toThrow(
      "--scopes must be api or read_api, got 'sudo'",
    );
  });
});

describe('forgeops login --browser', () => {
  /** Runs the browser flow; `visit` plays the browser with the authorization URL the login printed. */
  async function browserLogin(visit: (authorizeUrl: string) => Promise<void>) {
    let printed = '';
    let opened: (url: string) => void = () => undefined;
    const url = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const attempt = login(
      config(),
      { mode: 'browser' },
      {
        out: (text) => {
          printed += text;
          const address = /Open this address in a browser to sign in:\n {2}(\S+)/.exec(text)?.[1];
          if (address) opened(address);
        },
        file: at.file,
        browserWaitMs: 20_000,
      },
    );
    attempt.catch(() => undefined);
    await visit(await url);
    return { attempt, printed: () => printed };
  }

  test('PKCE with S256 and a state, back to a listener on 127.0.0.1 that a forged state cannot end', async () => {
    let callback: URL | undefined;
    const run = await browserLogin(async (authorizeUrl) => {
      const asked = new URL(authorizeUrl);
      expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
      expect(asked.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      callback = await authorizeInBrowser(at.sandbox, authorizeUrl, 'alice');
      const forged = new URL(callback);
      forged.searchParams.set('state', 'forged');
      const refused = await fetch(forged);
      expect(refused.status).toBe(400);
      expect(await fetch(callback)).toHaveProperty('status', 200);
    });
    const signIn = await run.attempt;
    expect(run.printed()).toContain('(a callback without the state of this sign-in was refused)');
    expect(signIn.account.username).toBe('alice');
    expect((await at.file.read(at.sandbox.url))?.scopes).toEqual(['api']);
    // The listener is gone once the sign-in is over.
    await expect(fetch(callback as URL)).rejects.toThrow();
  });

  test('an answer naming another issuer is refused', async () => {
    const run = await browserLogin(async (authorizeUrl) => {
      const callback = await authorizeInBrowser(at.sandbox, authorizeUrl, 'alice');
      callback.searchParams.set('iss', 'https://elsewhere.example');
      expect((await fetch(callback)).status).toBe(400);
    });
    await expect(run.attempt).rejects.toThrow(/issuer.*expected issuer/);
    expect(await at.file.read(at.sandbox.url)).toBeUndefined();
  });

  test('a browser that never comes back ends the wait', async () => {
    const attempt = login(config(), { mode: 'browser' }, { out: () => undefined, file: at.file, browserWaitMs: 200 });
    await expect(attempt).rejects.toThrow(/the browser did not come back within/);
  });

  test('a sign-in is cancelled by its signal (Ctrl-C)', async () => {
    const controller = new AbortController();
    const attempt = login(
      config(),
      { mode: 'browser' },
      { out: () => controller.abort(), file: at.file, signal: controller.signal, browserWaitMs: 20_000 },
    );
    await expect(attempt).rejects.toBeInstanceOf(LoginError);
    await expect(attempt).rejects.toThrow('the sign-in was cancelled');
  });
});

test('the credentials file is 0600 in a 0700 directory', async () => {
  await loginByDevice(at, answerAtFirstPoll(at)).attempt;
  expect(statSync(at.file.path).mode & 0o777).toBe(0o600);
  expect(statSync(join(at.dir, 'forgeops')).mode & 0o777).toBe(0o700);
});
