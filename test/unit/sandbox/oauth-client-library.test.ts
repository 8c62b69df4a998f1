// The sandbox's provider against a real OAuth client library (oauth4webapi, by panva): discovery, the authorization
// code flow with PKCE for a confidential and a public client, refresh, revocation and the device grant, each response
// checked by the library's own validation.
import * as oauth from 'oauth4webapi';
import { beforeAll, describe, expect, test } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import type { Application } from '../../../src/sandbox/server.js';
import { Browser, formOf, jsonOf, signInFrom, terminalApplication } from './oauth-browser.js';
import { useSandbox } from '../../helpers/mcp.js';

const CALLBACK = 'https://forgeops.example/oauth/callback';
// The sandbox is plain http on loopback; the library refuses that unless told.
const insecure = { [oauth.allowInsecureRequests]: true };

const clock = new ManualClock();
let as: oauth.AuthorizationServer;
let web: Application;
let cli: Application;

const env = useSandbox({
  clock,
  applications: [
    { name: 'forgeops', redirect_uris: [CALLBACK], scopes: ['api', 'read_api', 'read_user'] },
    terminalApplication(['api', 'read_api', 'read_user'], 'forgeops-cli'),
  ],
});
beforeAll(async () => {
  [web, cli] = env.sandbox.applications;
  const issuer = new URL(env.sandbox.url);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
});

/** The library's authorization URL, opened by a person who signs in and authorizes; the callback's parameters. */
async function authorize(client: oauth.Client, redirectUri: string, scope: string) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const browser = new Browser(env.sandbox);
  const consent = await signInFrom(browser, await browser.open(url.href), 'alice');
  // A confidential client already holding a token with these scopes is not asked for consent again.
  const back = consent.leftTo ? consent : await browser.submit(formOf(consent), { decision: 'authorize' });
  return { params: oauth.validateAuthResponse(as, client, back.leftTo!, state), verifier };
}

/** GET /api/v4/user with the token; a refusal comes back as the challenge the library read from WWW-Authenticate. */
async function user(accessToken: string) {
  try {
    const response = await oauth.protectedResourceRequest(
      accessToken,
      'GET',
      new URL(`${env.sandbox.url}/api/v4/user`),
      undefined,
      undefined,
      insecure,
    );
    return { status: response.status, body: await jsonOf(response) };
  } catch (error) {
    if (!(error instanceof oauth.WWWAuthenticateChallengeError)) throw error;
    return { status: error.status, challenge: error.cause[0] };
  }
}

describe('oauth4webapi', () => {
  test('discovers the provider', () => {
    expect(as.issuer).toBe(env.sandbox.url);
    expect(as.token_endpoint).toBe(`${env.sandbox.url}/oauth/token`);
  });

  test.each([
    ['client_secret_post', () => oauth.ClientSecretPost(web.secret)],
    ['client_secret_basic', () => oauth.ClientSecretBasic(web.secret)],
  ])('a confidential client (%s): code with PKCE, tokens, the API, a refresh, a revocation', async (_name, auth) => {
    const client: oauth.Client = { client_id: web.uid };
    const { params, verifier } = await authorize(client, CALLBACK, 'api read_user');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth(), params, CALLBACK, verifier, insecure),
    );
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(7200);
    expect(tokens.scope).toBe('api read_user');
    expect((await user(tokens.access_token)).body.username).toBe('alice');

    clock.advance(7_200_000);
    const expired = await user(tokens.access_token);
    expect(expired.status).toBe(401);
    expect(expired.challenge).toMatchObject({ scheme: 'bearer', parameters: { error: 'invalid_token' } });
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth(), tokens.refresh_token!, insecure),
    );
    expect((await user(refreshed.access_token)).status).toBe(200);
    // The old refresh token went with the refresh.
    const reuse = oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth(), tokens.refresh_token!, insecure),
    );
    await expect(reuse).rejects.toMatchObject({ error: 'invalid_grant', status: 400 });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth(), refreshed.access_token, insecure),
    );
    expect((await user(refreshed.access_token)).status).toBe(401);
  });

  test('a public client on a loopback port, with PKCE alone; a wrong verifier is refused', async () => {
    const client: oauth.Client = { client_id: cli.uid, token_endpoint_auth_method: 'none' };
    const redirect = 'http://127.0.0.1:61000/callback';
    const { params, verifier } = await authorize(client, redirect, 'read_api');
    const wrong = oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        params,
        redirect,
        oauth.generateRandomCodeVerifier(),
        insecure,
      ),
    );
    await expect(wrong).rejects.toMatchObject({ error: 'invalid_grant' });
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirect, verifier, insecure),
    );
    expect(tokens.scope).toBe('read_api');
    expect((await user(tokens.access_token)).status).toBe(200);
  });

  test('the device grant: pending while nobody answered, tokens once a person authorized', async () => {
    const client: oauth.Client = { client_id: cli.uid, token_endpoint_auth_method: 'none' };
    const device = await oauth.processDeviceAuthorizationResponse(
      as,
      client,
      await oauth.deviceAuthorizationRequest(as, client, oauth.None(), { scope: 'read_user' }, insecure),
    );
    const poll = async () =>
      oauth.processDeviceCodeResponse(
        as,
        client,
        await oauth.deviceCodeGrantRequest(as, client, oauth.None(), device.device_code, insecure),
      );
    await expect(poll()).rejects.toMatchObject({ error: 'authorization_pending' });

    const browser = new Browser(env.sandbox);
    const codePage = await signInFrom(browser, await browser.open(device.verification_uri_complete!), 'erin');
    const consent = await browser.submit(formOf(codePage));
    await browser.submit(formOf(consent), { decision: 'authorize' });
    clock.advance(device.interval! * 1000);
    const tokens = await poll();
    expect((await user(tokens.access_token)).body.username).toBe('erin');
  });
});
