// The device authorization grant (RFC 8628) end to end: the device's codes, the person's pages at the verification
// URI, and the polling answers (authorization_pending, slow_down, access_denied, expired_token, then the tokens).
import { beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { Application } from '../../../src/sandbox/server.js';
import { Browser, formOf, postForm, signInFrom, terminalApplication, tokenAnswer } from './oauth-browser.js';
import { api } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const clock = new ManualClock();
let cli: Application;
let server: Application;

const env = useSandbox({
  clock,
  applications: [
    terminalApplication(['api', 'read_api']),
    { name: 'Server', redirect_uris: ['https://server.example/cb'], scopes: ['api'] },
  ],
});
beforeAll(() => {
  [cli, server] = env.sandbox.applications;
});

async function startDevice(scope = 'read_api') {
  const answer = await postForm(env.sandbox, '/oauth/authorize_device', { client_id: cli.uid, scope });
  expect(answer.status).toBe(200);
  return answer.data as { device_code: string; user_code: string; verification_uri_complete: string };
}

function poll(deviceCode: string, clientId = cli.uid) {
  return postForm(env.sandbox, '/oauth/token', {
    grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
    device_code: deviceCode,
    client_id: clientId,
  });
}

/** A person signs in at the verification URI, enters the code and answers the consent page. */
async function answerOnPages(userCode: string, decision: 'authorize' | 'deny', username = 'bob') {
  const browser = new Browser(env.sandbox);
  const signIn = await browser.open('/oauth/device');
  const codePage = await signInFrom(browser, signIn, username);
  expect(codePage.url).toBe(`${env.sandbox.url}/oauth/device`);
  const consent = await browser.submit(formOf(codePage), { user_code: userCode });
  expect(consent.status).toBe(200);
  expect(consent.html).toContain('Authorize Terminal to use your account?');
  return browser.submit(formOf(consent), { decision });
}

describe('the device grant', () => {
  test('a device gets its codes, a person authorizes at the verification URI, the next poll gets tokens', async () => {
    const start = await postForm(env.sandbox, '/oauth/authorize_device', { client_id: cli.uid, scope: 'read_api' });
    expect(start.data).toEqual({
      device_code: expect.stringMatching(/^[0-9a-f]{64}$/),
      user_code: expect.stringMatching(/^[A-Z0-9]{8}$/),
      verification_uri: `${env.sandbox.url}/oauth/device`,
      verification_uri_complete: `${env.sandbox.url}/oauth/device?user_code=${start.data.user_code}`,
      expires_in: 300,
      interval: 5,
    });
    const { device_code, user_code, verification_uri_complete } = start.data;
    const pending = await poll(device_code);
    expect(pending.status).toBe(400);
    expect(pending.data.error).toBe('authorization_pending');

    // The complete URI carries the code: after signing in, the page has it filled in.
    const browser = new Browser(env.sandbox);
    const codePage = await signInFrom(browser, await browser.open(verification_uri_complete), 'alice');
    expect(formOf(codePage).fields.user_code).toBe(user_code);
    const consent = await browser.submit(formOf(codePage));
    expect(consent.html).toContain('<code>read_api</code>');
    const done = await browser.submit(formOf(consent), { decision: 'authorize' });
    expect(done.html).toContain('You can go back to your device.');

    clock.advance(5_000);
    const granted = await poll(device_code);
    expect(granted.status).toBe(200);
    expect(granted.data).toMatchObject({ token_type: 'Bearer', expires_in: 7200, scope: 'read_api' });
    expect(granted.data.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    const me = await api(env.sandbox, 'GET', '/user', {
      as: 'anonymous',
      headers: { authorization: `Bearer ${granted.data.access_token}` },
    });
    expect(me.data.username).toBe('alice');
    // A device code gives tokens once.
    clock.advance(5_000);
    expect((await poll(device_code)).data.error).toBe('invalid_grant');
  });

  test('polling faster than the interval is slow_down, and each slow_down adds five seconds', async () => {
    const { device_code } = await startDevice();
    expect((await poll(device_code)).data.error).toBe('authorization_pending');
    const tooSoon = await poll(device_code);
    expect(tooSoon.status).toBe(400);
    expect(tooSoon.data.error).toBe('slow_down');
    clock.advance(5_000);
    // The interval is now ten seconds: five is still too soon.
    expect((await poll(device_code)).data.error).toBe('slow_down');
    clock.advance(15_000);
    expect((await poll(device_code)).data.error).toBe('authorization_pending');
  });

  test('a denied device code is access_denied', async () => {
    const { device_code, user_code } = await startDevice();
    const page = await answerOnPages(user_code, 'deny');
    expect(page.html).toContain('The device was not given access.');
    const answer = await poll(device_code);
    expect(answer.status).toBe(400);
    expect(answer.data.error).toBe('access_denied');
  });

  test('an expired device code is expired_token, and its user code is no longer accepted', async () => {
    const { device_code, user_code } = await startDevice();
    clock.advance(300_000);
    const answer = await poll(device_code);
    expect(answer.status).toBe(400);
    expect(answer.data.error).toBe('expired_token');
    const browser = new Browser(env.sandbox);
    const codePage = await signInFrom(browser, await browser.open('/oauth/device'), 'carol');
    const refused = await browser.submit(formOf(codePage), { user_code });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('That code is not valid or has expired.');
  });

  test('a user code may be typed in lower case with a dash', async () => {
    const { device_code, user_code } = await startDevice();
    const typed = `${user_code.slice(0, 4)}-${user_code.slice(4)}`.toLowerCase();
    await answerOnPages(typed, 'authorize');
    clock.advance(5_000);
    expect((await poll(device_code)).status).toBe(200);
  });
});

describe('refusals', () => {
  test('another client cannot poll a device code', async () => {
    const { device_code } = await startDevice();
    const answer = await tokenAnswer(env.sandbox, server, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code,
    });
    expect(answer.data.error).toBe('invalid_grant');
  });

  test('a confidential client needs its secret to start; a scope beyond the application is invalid_scope', async () => {
    const noSecret = await postForm(env.sandbox, '/oauth/authorize_device', { client_id: server.uid, scope: 'api' });
    expect(noSecret.status).toBe(401);
    expect(noSecret.data.error).toBe('invalid_client');
    const withSecret = await postForm(env.sandbox, '/oauth/authorize_device', {
      client_id: server.uid,
      client_secret: server.secret,
      scope: 'api',
    });
    expect(withSecret.status).toBe(200);
    const wide = await postForm(env.sandbox, '/oauth/authorize_device', { client_id: cli.uid, scope: 'read_user' });
    expect(wide.status).toBe(400);
    expect(wide.data.error).toBe('invalid_scope');
  });

  test('the code page refuses a forged form token; the consent page of a device code, another browser', async () => {
    const { user_code } = await startDevice();
    const browser = new Browser(env.sandbox);
    const codePage = await signInFrom(browser, await browser.open('/oauth/device'), 'dave');
    const forged = await browser.submit(formOf(codePage), { user_code, authenticity_token: 'forged' });
    expect(forged.status).toBe(422);

    const victim = new Browser(env.sandbox);
    await signInFrom(victim, await victim.open('/oauth/device'), 'alice');
    const fresh = await browser.open('/oauth/device');
    const consent = await browser.submit(formOf(fresh), { user_code });
    const crossed = await victim.submit(formOf(consent), { decision: 'authorize' });
    expect(crossed.status).toBe(422);
  });
});
