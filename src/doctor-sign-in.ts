// `forgeops doctor`'s checks of the sign-in: how `serve` lets MCP hosts in, and the terminal's kept sign-in as the token
// the service check uses. Apart from doctor.ts, whose start-up check runs with every `mcp`, so that it stays light.
import { type Config, ConfigError } from './config.js';
import type { Check } from './doctor-check.js';
import { codeHostFetch } from './http/code-host-fetch.js';
import type { TokenSource } from './http/types.js';
import { CALLBACK_PATH, publicUrlOf } from './identity/application.js';
import { CredentialsFile, hostKey } from './identity/credentials-file.js';
import { mcpAuthMode } from './identity/serve-sign-in.js';
import { signInTokenSource } from './identity/signed-in-token.js';

/**
 * How `serve` lets MCP hosts in, and what the code host must have registered for it: the sign-in's settings checked
 * as far as they can be without a person signing in.
 */
export function signInChecks(config: Config): Check[] {
  let mode: 'oauth' | 'token';
  try {
    mode = mcpAuthMode(config);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return [{ status: 'fail', what: `MCP sign-in: ${error.message.replace(/^invalid configuration: /, '')}` }];
  }
  if (mode === 'token') {
    return [
      {
        status: 'info',
        what: config.server.mcpToken
          ? 'MCP sign-in: token mode, clients send FORGEOPS_MCP_TOKEN'
          : 'MCP sign-in: token mode, loopback only (no FORGEOPS_MCP_TOKEN)',
      },
    ];
  }
  if (!config.codehost.url)
    return [{ status: 'info', what: "MCP sign-in: OAuth through the embedded sandbox's own application" }];
  const callback = `${publicUrlOf(config)}${CALLBACK_PATH}`;
  const checks: Check[] = [
    {
      status: 'info',
      what: `MCP sign-in: OAuth through ${hostKey(config.codehost.url)}, application ${config.identity.clientId}; its redirect URI there must be ${callback}`,
    },
  ];
  if (!config.identity.publicUrl)
    checks.push({
      status: 'warn',
      what: `FORGEOPS_PUBLIC_URL is not set: MCP hosts and browsers are sent to ${publicUrlOf(config)}, which only this machine reaches`,
      fix: 'set FORGEOPS_PUBLIC_URL to the https address people and MCP hosts reach forgeops at',
    });
  if (!config.secret)
    checks.push({
      status: 'warn',
      what: 'FORGEOPS_SECRET is not set: every restart signs everybody out',
      fix: 'set FORGEOPS_SECRET (openssl rand -hex 32), the same on every replica',
    });
  return checks;
}

/**
 * The terminal's sign-in (forgeops login) as the token when CODEHOST_TOKEN is unset and one is kept for the host;
 * undefined otherwise. A file others can read is a failure, as it is for every command.
 */
export async function terminalSignIn(
  config: Config,
  file = new CredentialsFile(),
): Promise<{ source: TokenSource; username: string } | undefined> {
  if (!config.codehost.url || config.codehost.token) return undefined;
  const host = hostKey(config.codehost.url);
  const kept = await file.read(host);
  if (!kept) return undefined;
  const quiet = { info: () => undefined, warn: () => undefined };
  return {
    source: signInTokenSource(host, quiet, file, codeHostFetch(config.codehost)),
    username: kept.account.username,
  };
}
