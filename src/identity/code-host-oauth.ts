// forgeops as an OAuth client of the code host (its one registered application): the authorization code flow with
// PKCE, refresh, revocation and who a token belongs to. The protocol is oauth4webapi's; nothing here signs or hashes.
import * as oauth from 'oauth4webapi';

/** forgeops's application at the code host, as registered there. */
export interface CodeHostApplication {
  /** The code host's base URL (the API is under /api/v4, the OAuth provider under /oauth). */
  url: string;
  clientId: string;
  /** Absent: a public client (the terminal's); present: a confidential one (the server's). */
  clientSecret?: string;
  /** Where the code host sends the person back: exactly as registered. */
  redirectUri: string;
  scopes: string[];
}

/** A pair issued by the code host. Its refresh rotates both: the old refresh token is dead once the new pair is out. */
export interface CodeHostTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms. */
  expiresAt: number;
  scopes: string[];
}

/** The person a token belongs to (GET /api/v4/user). */
export interface CodeHostAccount {
  id: number;
  username: string;
  name?: string;
}

/** A finished sign-in: the pair, and who it belongs to. */
export interface SignedIn {
  tokens: CodeHostTokens;
  account: CodeHostAccount;
}

/** A sign-in started: where to send the browser, and what to check its return against (kept server-side). */
export interface AuthorizationRequest {
  url: URL;
  state: string;
  codeVerifier: string;
}

/**
 * The code host refused, with the OAuth error it gave (`invalid_grant`: the grant is gone, sign in again;
 * `access_denied`: the person said no). `error` is the wire code, the message is for people.
 */
export class CodeHostOAuthError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
    this.name = 'CodeHostOAuthError';
  }
}

/** The vendor documents fixed paths, so no discovery round trip is needed before the first sign-in. */
const TOKEN_LIFETIME_FALLBACK_S = 7200;
const REQUEST_TIMEOUT_S = 30;

type Fetch = typeof fetch;

export class CodeHostOAuth {
  readonly application: CodeHostApplication;
  private readonly server: oauth.AuthorizationServer;
  private readonly client: oauth.Client;
  private readonly clientAuth: oauth.ClientAuth;
  private readonly options: oauth.TokenEndpointRequestOptions;
  private readonly fetch: Fetch;
  private readonly now: () => number;

  constructor(application: CodeHostApplication, options: { fetch?: Fetch; now?: () => number } = {}) {
    this.application = application;
    const base = application.url.replace(/\/+$/, '');
    this.server = {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      userinfo_endpoint: `${base}/oauth/userinfo`,
    };
    this.client = { client_id: application.clientId };
    this.clientAuth = application.clientSecret ? oauth.ClientSecretPost(application.clientSecret) : oauth.None();
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
    this.options = {
      // A code host on plain http (the sandbox on loopback, a lab instance) is the operator's choice of CODEHOST_URL.
      [oauth.allowInsecureRequests]: base.startsWith('http:'),
      [oauth.customFetch]: (url, init) => this.fetch(url, init as RequestInit),
    };
  }

  /** A fresh sign-in: PKCE S256 and a random state, both to be kept server-side until the browser returns. */
  async authorizationRequest(): Promise<AuthorizationRequest> {
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(this.server.authorization_endpoint as string);
    url.searchParams.set('client_id', this.application.clientId);
    url.searchParams.set('redirect_uri', this.application.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', this.application.scopes.join(' '));
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { url, state, codeVerifier };
  }

  /**
   * The browser came back to the redirect URI: checks its state (and `iss` when sent), then trades the code for a
   * pair. An `error` in the callback (the person refused) is a CodeHostOAuthError too.
   */
  async exchangeCode(callbackUrl: URL, expected: { state: string; codeVerifier: string }): Promise<CodeHostTokens> {
    return (await this.exchange(callbackUrl, expected)).tokens;
  }

  /**
   * The browser came back: the code traded for a pair, and who signed in. With openid among the application's scopes
   * the code host's answer carries an ID token saying so, and that is one request to the code host; without it (or
   * from a code host whose ID token lacks the username) GET /api/v4/user is a second.
   */
  async signIn(callbackUrl: URL, expected: { state: string; codeVerifier: string }): Promise<SignedIn> {
    const { tokens, idClaims } = await this.exchange(callbackUrl, expected);
    const account = (idClaims && accountIn(idClaims)) ?? (await this.account(tokens.accessToken));
    return { tokens, account };
  }

  private async exchange(
    callbackUrl: URL,
    expected: { state: string; codeVerifier: string },
  ): Promise<{ tokens: CodeHostTokens; idClaims?: oauth.IDToken }> {
    let parameters: URLSearchParams;
    try {
      parameters = oauth.validateAuthResponse(this.server, this.client, callbackUrl, expected.state);
    } catch (error) {
      throw refusal(error, 'the code host sign-in did not complete');
    }
    return this.tokens(
      () =>
        oauth.authorizationCodeGrantRequest(
          this.server,
          this.client,
          this.clientAuth,
          parameters,
          this.application.redirectUri,
          expected.codeVerifier,
          this.requestOptions(),
        ),
      (response) => oauth.processAuthorizationCodeResponse(this.server, this.client, response),
    );
  }

  /** A new pair for a refresh token; the old pair is dead afterwards (the vendor rotates both). */
  async refresh(refreshToken: string): Promise<CodeHostTokens> {
    const { tokens } = await this.tokens(
      () =>
        oauth.refreshTokenGrantRequest(this.server, this.client, this.clientAuth, refreshToken, this.requestOptions()),
      (response) => oauth.processRefreshTokenResponse(this.server, this.client, response),
    );
    return tokens;
  }

  /** Revokes a token (access or refresh) at the code host; a token already gone counts as revoked (RFC 7009). */
  async revoke(token: string): Promise<void> {
    try {
      const response = await oauth.revocationRequest(
        this.server,
        this.client,
        this.clientAuth,
        token,
        this.requestOptions(),
      );
      await oauth.processRevocationResponse(response);
    } catch (error) {
      throw refusal(error, 'the code host did not revoke the token');
    }
  }

  /** Who the token belongs to, as the API says (the id is what forgeops keys a person on: usernames change). */
  async account(accessToken: string): Promise<CodeHostAccount> {
    const url = `${this.server.issuer}/api/v4/user`;
    const response = await this.fetch(url, {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_S * 1000),
    });
    if (!response.ok) {
      throw new CodeHostOAuthError(
        response.status === 401 ? 'invalid_token' : 'server_error',
        `GET /api/v4/user answered ${response.status}`,
      );
    }
    const user = (await response.json()) as { id?: unknown; username?: unknown; name?: unknown };
    if (typeof user.id !== 'number' || typeof user.username !== 'string') {
      throw new CodeHostOAuthError('server_error', 'GET /api/v4/user answered without an id and username');
    }
    return { id: user.id, username: user.username, ...(typeof user.name === 'string' ? { name: user.name } : {}) };
  }

  private requestOptions() {
    // A fresh deadline per request: one AbortSignal.timeout made at construction would expire for all of them.
    return { ...this.options, signal: AbortSignal.timeout(REQUEST_TIMEOUT_S * 1000) };
  }

  /**
   * The pair of a token answer, and the claims of its ID token when it has one. oauth4webapi checks the ID token's
   * issuer, audience, algorithm and times (against forgeops's clock, `now`); its signature is not checked, as OpenID
   * Connect allows for a token that came straight from the token endpoint over the connection forgeops opened.
   */
  private async tokens(
    send: () => Promise<Response>,
    process: (response: Response) => Promise<oauth.TokenEndpointResponse>,
  ): Promise<{ tokens: CodeHostTokens; idClaims?: oauth.IDToken }> {
    let answer: oauth.TokenEndpointResponse;
    try {
      this.client[oauth.clockSkew] = Math.round((this.now() - Date.now()) / 1000);
      answer = await process(await send());
    } catch (error) {
      throw refusal(error, 'the code host refused the token request');
    }
    const tokens = {
      accessToken: answer.access_token,
      ...(answer.refresh_token ? { refreshToken: answer.refresh_token } : {}),
      expiresAt: this.now() + (answer.expires_in ?? TOKEN_LIFETIME_FALLBACK_S) * 1000,
      scopes: answer.scope ? answer.scope.split(' ').filter(Boolean) : [...this.application.scopes],
    };
    return { tokens, idClaims: oauth.getValidatedIdTokenClaims(answer) };
  }
}

/** The account an ID token names: the code host's user id as `sub` and the username as `nickname` (the vendor's). */
function accountIn(claims: oauth.IDToken): CodeHostAccount | undefined {
  const { sub, nickname, name } = claims;
  if (!/^[1-9][0-9]{0,15}$/.test(sub) || typeof nickname !== 'string' || nickname === '') return undefined;
  return { id: Number(sub), username: nickname, ...(typeof name === 'string' ? { name } : {}) };
}

/** oauth4webapi's errors as one kind: the OAuth error code when the code host gave one, else a transport failure. */
function refusal(error: unknown, context: string): CodeHostOAuthError {
  if (error instanceof CodeHostOAuthError) return error;
  if (error instanceof oauth.ResponseBodyError || error instanceof oauth.AuthorizationResponseError) {
    const detail = error.error_description ? `: ${error.error_description}` : '';
    return new CodeHostOAuthError(error.error, `${context} (${error.error}${detail})`);
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new CodeHostOAuthError('temporarily_unavailable', `${context}: ${reason}`);
}
