// An MCP host signing in to forgeops as hosts do: the SDK client's own OAuth flow (discovery, DCR, PKCE, refresh)
// through an OAuthClientProvider kept in memory, with the person's part done by a browser (fetch or Chromium).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** Where the host's local listener would be: the browser stops there, so nothing needs to listen. */
export const HOST_REDIRECT = 'http://127.0.0.1:1/mcp-host/callback';

export class MemoryOAuthProvider implements OAuthClientProvider {
  authorizationUrl?: URL;
  private client?: OAuthClientInformationMixed;
  private saved?: OAuthTokens;
  private verifier?: string;
  /** Every token set the host was given, in order (refreshes included). */
  readonly tokenHistory: OAuthTokens[] = [];

  constructor(
    readonly name = 'Test MCP host',
    readonly redirect = HOST_REDIRECT,
  ) {}

  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
    this.tokenHistory.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  /** Forgets the tokens, as a host does when the server refuses them for good. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
  }
}

/** A 2025-11-25 SDK client over Streamable HTTP with the provider. */
export async function connectWith(url: string, provider: OAuthClientProvider) {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const client = new Client({ name: 'oauth-host-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/**
 * The host's whole sign-in: connecting fails with 401 and sends the person to authorizationUrl; `person` does their
 * part and gives the address they were sent back to; the host finishes with the code and connects again.
 */
export async function signInHost(
  url: string,
  provider: MemoryOAuthProvider,
  person: (authorizationUrl: URL) => Promise<URL>,
): Promise<{ client: Client; back: URL }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  const first = new Client({ name: 'oauth-host-test', version: '1.0.0' });
  const refused = await first.connect(transport).then(
    () => undefined,
    (error: Error) => error,
  );
  if (!refused || !provider.authorizationUrl) throw new Error(`expected a sign-in to be asked for, got ${refused}`);
  const back = await person(provider.authorizationUrl);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`the person came back without a code: ${back}`);
  await transport.finishAuth(code);
  const { client } = await connectWith(url, provider);
  return { client, back };
}
