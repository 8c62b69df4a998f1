// The MCP clients forgeops's authorization server knows: pre-registered by the operator (FORGEOPS_MCP_CLIENTS), named
// by a Client ID Metadata Document URL (fetched with care, cached briefly), or registered by DCR (RFC 7591) under a
// cap in total and a rate per address. All public clients (PKCE, no secret), all kept in the StateStore.
import { createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../state/store.js';
import { checkClientIdUrl, createMetadataFetcher } from './client-metadata-fetch.js';
import { OAuthError } from './oauth-http.js';

export interface McpClient {
  client_id: string;
  /** What the client calls itself: shown on the consent page as its own claim, never trusted. */
  client_name?: string;
  redirect_uris: string[];
  /** How forgeops knows it: the consent page says so (a CIMD client's host is verified; a DCR name is not). */
  kind: 'registered' | 'metadata-document' | 'dynamic';
}

export interface McpClientsOptions {
  store: StateStore;
  /** Pre-registered clients (FORGEOPS_MCP_CLIENTS). */
  registered?: ReadonlyArray<{ client_id: string; client_name?: string; redirect_uris: string[] }>;
  /** DCR registrations kept at most (FORGEOPS_MCP_MAX_REGISTERED_CLIENTS). */
  maxDynamicClients?: number;
  /** DCR registrations one address may make per hour. */
  registrationsPerAddressPerHour?: number;
  /** http and private addresses for client_id URLs and redirect URIs of others than loopback (tests, closed networks). */
  allowPrivateClientUrls?: boolean;
}

export const DEFAULT_MAX_DYNAMIC_CLIENTS = 10_000;
export const DEFAULT_REGISTRATIONS_PER_HOUR = 20;
/** A registration unused this long is forgotten; the client registers again (the MCP clients do). */
const DYNAMIC_CLIENT_TTL_MS = 90 * 24 * 3600_000;
/** A fetched metadata document is used this long before it is fetched again. */
const DOCUMENT_CACHE_MS = 5 * 60_000;
const MAX_CACHED_DOCUMENTS = 1000;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 200;
const HOUR_MS = 3600_000;

const key = {
  dynamic: (id: string) => `mcp-oauth:client:${id}`,
  document: (url: string) => `mcp-oauth:cimd:${createHash('sha256').update(url).digest('base64url')}`,
  rate: (address: string, slot: number) => `mcp-oauth:dcr-rate:${address}:${slot}`,
};

function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * A redirect URI a client may register: https, http on loopback (a native app's local listener, RFC 8252 §7.3), or a
 * private-use scheme of a native app (cursor://, vscode://); never one that runs script or reads files.
 */
export function checkRedirectUri(uri: unknown, field = 'redirect_uris'): string {
  if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) {
    throw new OAuthError(400, 'invalid_redirect_uri', `${field} holds something that is not a URI`);
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new OAuthError(400, 'invalid_redirect_uri', `${field}: '${uri.slice(0, 100)}' is not an absolute URI`);
  }
  if (url.hash) throw new OAuthError(400, 'invalid_redirect_uri', `${field}: a redirect URI has no fragment`);
  const scheme = url.protocol.slice(0, -1);
  if (['javascript', 'data', 'file', 'blob', 'vbscript', 'about', 'ftp', 'ws', 'wss'].includes(scheme)) {
    throw new OAuthError(400, 'invalid_redirect_uri', `${field}: the ${scheme}: scheme is not a redirect`);
  }
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) {
    throw new OAuthError(400, 'invalid_redirect_uri', `${field}: http is allowed on loopback only; use https`);
  }
  if ((scheme === 'http' || scheme === 'https') && (url.username || url.password)) {
    throw new OAuthError(400, 'invalid_redirect_uri', `${field}: a redirect URI carries no credentials`);
  }
  return uri;
}

function checkName(name: unknown, field: string): string | undefined {
  if (name === undefined) return undefined;
  if (typeof name !== 'string' || name.length > MAX_NAME_LENGTH) {
    throw new OAuthError(
      400,
      'invalid_client_metadata',
      `${field} must be text of at most ${MAX_NAME_LENGTH} characters`,
    );
  }
  return name;
}

function checkRedirectList(value: unknown, error: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_REDIRECT_URIS) {
    throw new OAuthError(400, error, `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`);
  }
  return value.map((uri, i) => checkRedirectUri(uri, `redirect_uris[${i}]`));
}

export class McpClients {
  private readonly registered: Map<string, McpClient>;
  private readonly fetcher;

  constructor(private readonly options: McpClientsOptions) {
    this.registered = new Map(
      (options.registered ?? []).map((c) => [c.client_id, { ...c, kind: 'registered' as const }]),
    );
    this.fetcher = createMetadataFetcher({ allowPrivate: options.allowPrivateClientUrls ?? false });
  }

  /** The client a client_id names, or an OAuthError saying why none (unknown, or a metadata document refused). */
  async find(clientId: string | undefined): Promise<McpClient> {
    if (!clientId) throw new OAuthError(400, 'invalid_request', 'client_id is required');
    const registered = this.registered.get(clientId);
    if (registered) return registered;
    if (clientId.startsWith('https://') || clientId.startsWith('http://')) return this.fromDocument(clientId);
    const dynamic = await this.options.store.get<McpClient>(key.dynamic(clientId));
    if (dynamic) return dynamic;
    throw new OAuthError(400, 'invalid_client', `client_id '${clientId.slice(0, 100)}' is not registered here`);
  }

  /** A CIMD client: the document at its URL must name itself (client_id equal to the URL) and its redirect URIs. */
  private async fromDocument(clientId: string): Promise<McpClient> {
    const { store } = this.options;
    const cached = await store.get<McpClient>(key.document(clientId));
    if (cached) return cached;
    const url = checkClientIdUrl(clientId, this.options.allowPrivateClientUrls ?? false);
    const doc = (await this.fetcher.fetch(url)) as Record<string, unknown> | null;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
      throw new OAuthError(400, 'invalid_client', 'the client metadata document is not a JSON object');
    }
    if (doc.client_id !== clientId) {
      throw new OAuthError(400, 'invalid_client', 'the client metadata document names another client_id than its URL');
    }
    if (doc.token_endpoint_auth_method !== undefined && doc.token_endpoint_auth_method !== 'none') {
      throw new OAuthError(
        400,
        'invalid_client',
        'the client metadata document asks for token_endpoint_auth_method other than none; forgeops serves public clients (PKCE)',
      );
    }
    const client: McpClient = {
      client_id: clientId,
      client_name: checkName(doc.client_name, 'client_name'),
      redirect_uris: checkRedirectList(doc.redirect_uris, 'invalid_client'),
      kind: 'metadata-document',
    };
    if ((await store.count('mcp-oauth:cimd:')) < MAX_CACHED_DOCUMENTS) {
      await store.set(key.document(clientId), client, { ttlMs: DOCUMENT_CACHE_MS });
    }
    return client;
  }

  /** Whether clients may register themselves (FORGEOPS_MCP_MAX_REGISTERED_CLIENTS above 0). */
  get dynamicRegistration(): boolean {
    return (this.options.maxDynamicClients ?? DEFAULT_MAX_DYNAMIC_CLIENTS) > 0;
  }

  /** RFC 7591 registration of a public client, within the caps. */
  async register(body: unknown, address: string): Promise<Record<string, unknown>> {
    const { store } = this.options;
    if (!this.dynamicRegistration) {
      throw new OAuthError(
        403,
        'access_denied',
        'this forgeops takes no dynamic registrations (FORGEOPS_MCP_MAX_REGISTERED_CLIENTS=0): use a pre-registered client_id or a client metadata document URL',
      );
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new OAuthError(400, 'invalid_client_metadata', 'send the client metadata as a JSON object');
    }
    const meta = body as Record<string, unknown>;
    const redirectUris = checkRedirectList(meta.redirect_uris, 'invalid_redirect_uri');
    const name = checkName(meta.client_name, 'client_name');
    const grantTypes = meta.grant_types ?? ['authorization_code'];
    if (!Array.isArray(grantTypes) || grantTypes.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
      throw new OAuthError(
        400,
        'invalid_client_metadata',
        'grant_types may hold authorization_code and refresh_token only',
      );
    }
    const responseTypes = meta.response_types ?? ['code'];
    if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== 'code')) {
      throw new OAuthError(400, 'invalid_client_metadata', 'response_types may hold code only');
    }
    const max = this.options.maxDynamicClients ?? DEFAULT_MAX_DYNAMIC_CLIENTS;
    if ((await store.count('mcp-oauth:client:')) >= max) {
      throw new OAuthError(503, 'temporarily_unavailable', `forgeops holds its maximum of ${max} registered clients`, {
        'retry-after': '3600',
      });
    }
    await this.takeRegistrationSlot(address);
    const clientId = `mcp-${randomBytes(16).toString('base64url')}`;
    const client: McpClient = { client_id: clientId, client_name: name, redirect_uris: redirectUris, kind: 'dynamic' };
    await store.set(key.dynamic(clientId), client, { ttlMs: DYNAMIC_CLIENT_TTL_MS });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      ...(name !== undefined && { client_name: name }),
      redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // Public clients only: PKCE proves the client; a secret handed to every installed copy would prove nothing.
      token_endpoint_auth_method: 'none',
    };
  }

  /** One of the address's registrations this hour (set-if-absent slots, so replicas count together). */
  private async takeRegistrationSlot(address: string): Promise<void> {
    const perHour = this.options.registrationsPerAddressPerHour ?? DEFAULT_REGISTRATIONS_PER_HOUR;
    for (let slot = 0; slot < perHour; slot++) {
      if (await this.options.store.add(key.rate(address, slot), 1, { ttlMs: HOUR_MS })) return;
    }
    throw new OAuthError(429, 'temporarily_unavailable', `at most ${perHour} registrations per address per hour`, {
      'retry-after': '3600',
    });
  }

  close(): Promise<void> {
    return this.fetcher.close();
  }
}
