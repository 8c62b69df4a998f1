// forgeops's /mcp as an OAuth protected resource (MCP authorization spec, RFC 9728): its metadata naming forgeops's
// authorization server, the bearer check of each request (401 with WWW-Authenticate pointing at the metadata), and the
// scope a tool call needs (403 insufficient_scope: a read-only sign-in sees and runs reads only).
import type { IncomingMessage } from 'node:http';
import type { McpPrincipal, McpTokens, Scope } from './mcp-tokens.js';
import { SCOPES } from './mcp-tokens.js';
import type { PersonVault } from './sign-in-port.js';

export const PRM_PATH = '/.well-known/oauth-protected-resource';

export function protectedResourceMetadata(issuer: string, resource: string) {
  return {
    resource,
    authorization_servers: [issuer],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'forgeops',
    resource_documentation: 'https://github.com/forgeops/forgeops#sign-in-from-an-mcp-host',
  };
}

/** Where the metadata of a resource at `resource` lives: under its path (RFC 9728 §3.1), e.g. …/oauth-protected-resource/mcp. */
export function resourceMetadataUrl(issuer: string, resource: string): string {
  return `${issuer}${PRM_PATH}${new URL(resource).pathname}`;
}

/** A refusal of the resource server, in the words RFC 6750 §3 gives it. */
export interface BearerRefusal {
  status: 401 | 403;
  message: string;
  wwwAuthenticate: string;
}

function challenge(metadataUrl: string, fields: Record<string, string | undefined>): string {
  const parts = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}="${String(v).replace(/["\\]/g, '')}"`);
  return `Bearer ${[`resource_metadata="${metadataUrl}"`, ...parts].join(', ')}`;
}

export interface SignedInRequest {
  principal: McpPrincipal;
}

export interface ResourceServerOptions {
  tokens: McpTokens;
  vault: PersonVault;
  issuer(): string;
  resource(): string;
}

export function createResourceServer(options: ResourceServerOptions) {
  const metadataUrl = () => resourceMetadataUrl(options.issuer(), options.resource());

  /**
   * The person a request acts as, or the refusal to send: no token (401, pointing at the metadata), a token forgeops
   * did not issue for this resource, expired or revoked (401 invalid_token), or a person whose code host grant is
   * gone (401: signing in again makes a new one).
   */
  async function authenticate(req: IncomingMessage): Promise<{ principal: McpPrincipal } | BearerRefusal> {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
    if (!match) {
      return {
        status: 401,
        message: 'Unauthorized: sign in (OAuth) and send Authorization: Bearer <access token>',
        wwwAuthenticate: challenge(metadataUrl(), { scope: SCOPES.join(' ') }),
      };
    }
    const checked = await options.tokens.verify(match[1]);
    if (!checked.ok) {
      return {
        status: 401,
        message: `Unauthorized: ${checked.why}; sign in again`,
        wwwAuthenticate: challenge(metadataUrl(), { error: 'invalid_token', error_description: checked.why }),
      };
    }
    const { principal } = checked;
    if (!(await options.vault.accessToken(principal.person))) {
      // The code host took its grant back (revoked, or a refresh refused): forgeops's grant ends with it.
      await options.tokens.revokeGrant(principal.grant);
      const why = 'the code host no longer accepts this sign-in';
      return {
        status: 401,
        message: `Unauthorized: ${why}; sign in again`,
        wwwAuthenticate: challenge(metadataUrl(), { error: 'invalid_token', error_description: why }),
      };
    }
    return { principal };
  }

  /** 403 for a call that needs a scope the token lacks: the client may ask the person for more (step-up). */
  function insufficientScope(needed: Scope, what: string): BearerRefusal {
    return {
      status: 403,
      message: `Forbidden: ${what} needs the ${needed} scope; this sign-in allows reads only`,
      wwwAuthenticate: challenge(metadataUrl(), {
        error: 'insufficient_scope',
        scope: needed,
        error_description: `${what} needs the ${needed} scope`,
      }),
    };
  }

  return { authenticate, insufficientScope, metadataUrl };
}

/** Whether a principal may act beyond reads. */
export function canWrite(principal: McpPrincipal): boolean {
  return principal.scopes.includes('api');
}

/**
 * The tool names a JSON-RPC body calls (one message or a batch), to hold them against the token's scope before any
 * of them runs.
 */
export function calledTools(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  const names: string[] = [];
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    if (m?.method === 'tools/call' && typeof m.params?.name === 'string') names.push(m.params.name);
  }
  return names;
}
