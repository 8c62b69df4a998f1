// OAuth mode on the HTTP endpoint: forgeops's authorization server and metadata mounted beside /mcp, the bearer check
// of every /mcp request (the person marked on the request for sessions, caps and approvals), and a read-only sign-in
// held to the tools that only read (403 insufficient_scope before anything runs).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpSignInParts } from '../../identity/mcp-sign-in.js';
import { calledTools, type BearerRefusal } from '../../identity/resource-server.js';
import { markSignedIn } from './guard.js';
import { Refusal } from './refusal.js';
import type { SignedIn } from './guard.js';
import type { McpSignIn } from './server.js';

function refusalOf(refused: BearerRefusal): Refusal {
  return new Refusal(refused.status, -32001, refused.message, refused.status === 401 ? 'unauthorized' : 'scope', {
    'www-authenticate': refused.wwwAuthenticate,
  });
}

/**
 * The HTTP server's view of OAuth mode. `readOnlyAllows(name)` says whether a tool may be called with reads only (the
 * read operations and the meta tools, which refuse writes themselves in a read-only session).
 */
export function mcpSignIn(parts: McpSignInParts, readOnlyAllows: (tool: string) => boolean): McpSignIn {
  const mount =
    (handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>) =>
    (req: IncomingMessage, res: ServerResponse) => {
      void handler(req, res);
    };
  return {
    mounts: Object.fromEntries(Object.entries(parts.handlers).map(([path, handler]) => [path, mount(handler)])),
    async authenticate(req): Promise<SignedIn> {
      const checked = await parts.authenticate(req);
      if (!('principal' in checked)) throw refusalOf(checked);
      markSignedIn(req, checked.principal.person);
      return { person: checked.principal.person, scopes: checked.principal.scopes };
    },
    checkScopes(body, who) {
      if (who.scopes.includes('api')) return;
      const write = calledTools(body).find((name) => !readOnlyAllows(name));
      if (write) throw refusalOf(parts.insufficientScope('api', `the tool ${write}`));
    },
  };
}
