// Which way MCP clients of `serve` authenticate (FORGEOPS_MCP_AUTH) and, for OAuth, the parts put together over the
// code host application (the sandbox's, or FORGEOPS_OAUTH_CLIENT_ID's), the vault and the shared store.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Config, ConfigError } from '../config.js';
import { codeHostFetch } from '../http/code-host-fetch.js';
import type { ApiTransport } from '../http/types.js';
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import { codeHostApplication, publicUrlOf, type SandboxInfo } from './application.js';
import { CodeHostOAuth } from './code-host-oauth.js';
import { createMcpSignInParts } from './mcp-sign-in.js';
import { personTransport } from './person-client.js';
import { personKey, TokenVault } from './token-vault.js';

export type McpAuthMode = 'oauth' | 'token';

/**
 * FORGEOPS_MCP_AUTH, or the sensible default: token when FORGEOPS_MCP_TOKEN is set (an operator chose a shared bearer),
 * else OAuth where forgeops has an application at the code host to sign people in through (the embedded sandbox's, or
 * FORGEOPS_OAUTH_CLIENT_ID's), else token. Throws a ConfigError on a combination that cannot work.
 */
export function mcpAuthMode(config: Config): McpAuthMode {
  const chosen = config.server.mcpAuth;
  const hasApplication = !config.codehost.url || config.identity.clientId !== undefined;
  if (chosen === 'oauth') {
    if (!hasApplication) {
      throw new ConfigError(
        'invalid configuration: FORGEOPS_MCP_AUTH is oauth, but forgeops has no application at CODEHOST_URL to sign people in through; register one and set FORGEOPS_OAUTH_CLIENT_ID and FORGEOPS_OAUTH_CLIENT_SECRET',
      );
    }
    if (config.server.mcpToken) {
      throw new ConfigError(
        'invalid configuration: FORGEOPS_MCP_TOKEN is a shared bearer for FORGEOPS_MCP_AUTH=token; with oauth each person signs in, so unset one of them',
      );
    }
    return 'oauth';
  }
  if (chosen === 'token') return 'token';
  if (config.server.mcpToken) return 'token';
  return hasApplication ? 'oauth' : 'token';
}

export interface ServeSignInOptions {
  config: Config;
  /** Where the embedded sandbox is, when it runs (its applications sign people in). */
  runtime: { sandbox?: () => Promise<SandboxInfo> };
  store: StateStore;
  /** Whether other replicas share the store: then FORGEOPS_SECRET must be set, the same on all. */
  sharedStore: boolean;
  log: Logger;
  mcpPath: string;
  /** Where serve listens once it does (port 0 picks one). */
  listening(): { host: string; port: number };
  address(req: IncomingMessage): string;
  /** Other sign-ins sharing /oauth/callback (Slack's Connect links): tried for a state that is not an MCP one. */
  otherCallback?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
}

export function serveSignIn(options: ServeSignInOptions) {
  const { config, runtime, store, log } = options;
  if (!config.secret && options.sharedStore) {
    throw new ConfigError(
      'invalid configuration: FORGEOPS_MCP_AUTH=oauth with FORGEOPS_REDIS_URL needs FORGEOPS_SECRET (32+ characters, the same on every replica): it encrypts the code host tokens and signs the tokens MCP clients get',
    );
  }
  // One process alone: a key of its own is enough (a restart signs everybody out, as memory state does anyway).
  const secret = config.secret ?? randomBytes(32).toString('hex');
  const publicUrl = () => publicUrlOf(config, options.listening());
  let made: Promise<{ oauth: CodeHostOAuth; vault: TokenVault }> | undefined;
  /** The application needs the sandbox started and the port known: made on the first sign-in or call. */
  const setup = () =>
    (made ??= (async () => {
      const sandbox = runtime.sandbox ? await runtime.sandbox() : undefined;
      const application = codeHostApplication(config, publicUrl(), sandbox);
      if (!application) throw new Error('no application at the code host to sign people in through');
      const oauth = new CodeHostOAuth(application, { fetch: codeHostFetch(config.codehost) });
      return { oauth, vault: new TokenVault({ store, secret, oauth }) };
    })().catch((error: Error) => {
      made = undefined;
      throw error;
    }));
  const vault = {
    save: async (...args: Parameters<TokenVault['save']>) => (await setup()).vault.save(...args),
    account: async (person: string) => (await setup()).vault.account(person),
    accessToken: async (person: string) => (await setup()).vault.accessToken(person),
    afterRejection: async (person: string, rejected: string) => (await setup()).vault.afterRejection(person, rejected),
    signOut: async (person: string) => {
      await (await setup()).vault.signOut(person);
    },
  };
  const codeHost = {
    authorizationRequest: async () => (await setup()).oauth.authorizationRequest(),
    signIn: async (...args: Parameters<CodeHostOAuth['signIn']>) => (await setup()).oauth.signIn(...args),
  };
  const parts = createMcpSignInParts({
    store,
    secret,
    publicUrl,
    mcpPath: options.mcpPath,
    codeHost,
    vault,
    personOf: personKey,
    clients: {
      registered: config.server.mcpClients,
      maxDynamicClients: config.server.maxRegisteredClients,
      allowPrivateClientUrls: config.server.allowPrivateClientUrls,
    },
    address: options.address,
    otherCallback: options.otherCallback,
    log,
  });
  return {
    parts,
    publicUrl,
    /** The service client of one signed-in person (their code host token, refreshed in the vault). */
    transportOf: (client: ApiTransport, person: string) => personTransport(client, vault, person),
  };
}
