// What `forgeops serve` prints on start: where the MCP endpoint is, which service it acts on, how to connect.
import type { Config } from './config.js';
import type { Runtime } from './runtime.js';
import { SANDBOX_DEFAULT_ROLE } from './runtime.js';

export function bannerText({ mcpUrl, runtime, config }: { mcpUrl: string; runtime: Runtime; config: Config }): string {
  const lines = [`forgeops MCP server: ${mcpUrl}`];
  if (runtime.sandbox) {
    lines.push(`service: embedded sandbox at ${runtime.sandbox.url} (set CODEHOST_URL to use a real one)`);
    lines.push(`acting as the sandbox ${SANDBOX_DEFAULT_ROLE} unless CODEHOST_TOKEN is set; demo tokens:`);
    for (const [role, token] of Object.entries(runtime.sandbox.tokens)) lines.push(`  ${role.padEnd(11)} ${token}`);
  } else {
    lines.push(`service: ${runtime.serviceUrl}`);
  }
  if (config.policy.readOnly) lines.push('read-only mode: only read tools are offered');
  lines.push('', 'Connect a client:');
  lines.push(`  Claude Code:      claude mcp add --transport http forgeops ${mcpUrl}`);
  lines.push(`  MCP Inspector:    npx @modelcontextprotocol/inspector  (Streamable HTTP, URL ${mcpUrl})`);
  if (config.server.mcpToken) lines.push('  Send the header  Authorization: Bearer $FORGEOPS_MCP_TOKEN');
  lines.push('Press Ctrl+C to stop.', '');
  return lines.join('\n');
}
