// What `forgeops serve` prints on start: where the MCP endpoint is, which service it acts on, how to connect.
import type { Config } from './config.js';
import type { SandboxInfo } from './identity/application.js';
import { SANDBOX_DEFAULT_ROLE } from './runtime.js';

interface BannerInput {
  mcpUrl: string;
  serviceLabel: string;
  /** Its address and demo tokens (not its OAuth applications: a client secret is never printed). */
  sandbox?: Pick<SandboxInfo, 'url' | 'tokens'>;
  config: Config;
  /** OAuth mode: each person signs in from their MCP host (the calls act as them, not as a configured token). */
  signIn?: boolean;
}

export function bannerText({ mcpUrl, serviceLabel, sandbox, config, signIn }: BannerInput): string {
  const lines = [`forgeops MCP server: ${mcpUrl}`];
  if (sandbox) {
    lines.push(`service: embedded sandbox at ${sandbox.url} (set CODEHOST_URL to use a real one)`);
    const actingAs = config.codehost.token ? 'the configured CODEHOST_TOKEN' : `the sandbox ${SANDBOX_DEFAULT_ROLE}`;
    if (signIn) {
      lines.push(
        'MCP clients sign in through the sandbox (demo users: alice, bob, … with the password <username>-sandbox-password)',
      );
    }
    lines.push(`${signIn ? 'the chat acts' : 'acting'} as ${actingAs}; demo tokens (see docs/configuration.md):`);
    for (const [role, token] of Object.entries(sandbox.tokens)) lines.push(`  ${role.padEnd(11)} ${token}`);
  } else {
    lines.push(`service: ${serviceLabel}`);
  }
  if (config.policy.readOnly) lines.push('read-only mode: only read tools are offered');
  lines.push('', 'Connect a client:');
  lines.push(`  Claude Code:    claude mcp add --transport http forgeops ${mcpUrl}`);
  lines.push(`  MCP Inspector:  npx @modelcontextprotocol/inspector  (transport Streamable HTTP, URL ${mcpUrl})`);
  if (signIn) lines.push('  Each person signs in from their client (OAuth): the client opens the sign-in page itself');
  else if (config.server.mcpToken) lines.push('  Clients must send  Authorization: Bearer $FORGEOPS_MCP_TOKEN');
  lines.push('', 'No client? Try the same operations in the terminal chat (`triage acme/web` is a good start):');
  if (sandbox) {
    // The chat on its own starts its own sandbox; pointed at this one, it sees what the MCP clients change.
    lines.push(`  npx forgeops chat                       its own fresh sandbox`);
    lines.push(
      `  CODEHOST_URL=${sandbox.url} CODEHOST_TOKEN=${sandbox.tokens[SANDBOX_DEFAULT_ROLE]} npx forgeops chat`,
    );
    lines.push("                                          this server's sandbox, shared with its MCP clients");
  } else {
    lines.push('  npx forgeops chat');
  }
  lines.push('Press Ctrl+C to stop.', '');
  return lines.join('\n');
}
