// OAuth mode of `forgeops serve` put together: forgeops's authorization server (authorization-server.ts) and /mcp as
// its protected resource (resource-server.ts), over one set of clients, tokens and the StateStore, answering on any
// replica; its issuer is FORGEOPS_PUBLIC_URL, or the address serve listens on.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import { AS_METADATA_PATH, AuthorizationServer } from './authorization-server.js';
import { McpClients, type McpClientsOptions } from './mcp-clients.js';
import { McpTokens } from './mcp-tokens.js';
import { answerPublicCors, sendJson } from './oauth-http.js';
import { createResourceServer, PRM_PATH, protectedResourceMetadata } from './resource-server.js';
import type { CodeHostSignIn, PersonVault } from './sign-in-port.js';

export interface McpSignInOptions {
  store: StateStore;
  /** Signs forgeops's access tokens (a purpose-bound key is derived from it). */
  secret: string;
  /** forgeops's address as browsers and MCP hosts reach it, no trailing slash; asked each time (a port 0 is known late). */
  publicUrl(): string;
  /** The MCP endpoint's path on it (/mcp). */
  mcpPath: string;
  codeHost: CodeHostSignIn;
  vault: PersonVault;
  personOf(account: { id: number }): string;
  clients: Omit<McpClientsOptions, 'store'>;
  /** The caller's address (through trusted proxies), for the registration rate. */
  address(req: IncomingMessage): string;
  /** Other sign-ins sharing /oauth/callback (see AuthorizationServerOptions.otherCallback). */
  otherCallback?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  log: Logger;
}

export type McpSignInParts = ReturnType<typeof createMcpSignInParts>;

export function createMcpSignInParts(options: McpSignInOptions) {
  const issuer = () => options.publicUrl().replace(/\/+$/, '');
  const resource = () => `${issuer()}${options.mcpPath}`;
  const tokens = new McpTokens({ store: options.store, secret: options.secret, issuer, resource });
  const clients = new McpClients({ store: options.store, ...options.clients });
  const authorizationServer = new AuthorizationServer({
    store: options.store,
    clients,
    tokens,
    codeHost: options.codeHost,
    vault: options.vault,
    personOf: options.personOf,
    issuer,
    resource,
    address: options.address,
    otherCallback: options.otherCallback,
    log: options.log,
  });
  const resourceServer = createResourceServer({ tokens, vault: options.vault, issuer, resource });

  /** RFC 9728 metadata at the root and under the MCP path (clients try the path-aware one first), and RFC 8414's. */
  async function wellKnown(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === PRM_PATH || path === `${PRM_PATH}${options.mcpPath}`) {
      if (answerPublicCors(req, res)) return;
      return sendJson(res, 200, protectedResourceMetadata(issuer(), resource()), { 'cache-control': 'max-age=300' });
    }
    if (path === AS_METADATA_PATH) return authorizationServer.handle(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
  }

  return {
    tokens,
    clients,
    issuer,
    resource,
    authenticate: resourceServer.authenticate,
    insufficientScope: resourceServer.insufficientScope,
    handlers: {
      '/oauth/': (req: IncomingMessage, res: ServerResponse) => authorizationServer.handle(req, res),
      '/.well-known/': wellKnown,
    },
    close: () => clients.close(),
  };
}
