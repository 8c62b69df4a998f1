// The built CLI's MCP server over stdio, spawned the way an assistant spawns it, with the service set to a test's
// sandbox (as its maintainer) and warnings only in its log.
import { tmpdir } from 'node:os';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { cli as builtCli } from './terminal-session.js';

/**
 * `nodeArgs` go before the CLI's path (--import a probe…); `env` adds to or replaces the child's environment; `cli` is
 * another build of the CLI to run (default: this tree's dist/cli.js).
 */
export function cliStdioTransport(
  sandbox: Sandbox,
  o: { nodeArgs?: string[]; env?: Record<string, string>; cli?: string } = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [...(o.nodeArgs ?? []), o.cli ?? builtCli, 'mcp'],
    cwd: '/',
    stderr: 'ignore',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      TMPDIR: tmpdir(),
      FORGEOPS_LOG_LEVEL: 'warn',
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.maintainer,
      ...o.env,
    },
  });
}
