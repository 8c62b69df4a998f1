// Which application at the code host forgeops signs people in through: the embedded sandbox's pre-registered
// "forgeops" application, or the one named by FORGEOPS_OAUTH_CLIENT_ID at CODEHOST_URL; and where browsers reach forgeops.
import type { Config } from '../config.js';
import { forgeopsUrl } from '../http/addresses.js';
import type { CodeHostApplication } from './code-host-oauth.js';

/** One of forgeops's own OAuth applications on the embedded sandbox. */
export interface SandboxOAuthClient {
  name: string;
  client_id: string;
  /** Handed over in process only; never logged or shown. A public client has none to use. */
  client_secret?: string;
  redirect_uris: string[];
  scopes: string[];
}

export interface SandboxInfo {
  url: string;
  tokens: Record<string, string>;
  /** forgeops's applications on the sandbox's OAuth provider, for signing in through the code host. */
  applications: { forgeops: SandboxOAuthClient; cli: SandboxOAuthClient };
}

/** The path on forgeops's listener where the code host sends people back (registered with the application). */
export const CALLBACK_PATH = '/oauth/callback';

/** forgeops's address as browsers reach it: FORGEOPS_PUBLIC_URL, else the address it listens on. */
export function publicUrlOf(config: Config, listening: { host: string; port: number } = config.server): string {
  return (config.identity.publicUrl ?? forgeopsUrl(listening.host, listening.port)).replace(/\/+$/, '');
}

/**
 * forgeops's application at the code host, or undefined when none is configured (a code host without
 * FORGEOPS_OAUTH_CLIENT_ID: people then use personal access tokens). `sandbox` is the runtime's, when it runs one.
 */
export function codeHostApplication(
  config: Config,
  publicUrl: string,
  sandbox?: SandboxInfo,
): CodeHostApplication | undefined {
  const redirectUri = `${publicUrl.replace(/\/+$/, '')}${CALLBACK_PATH}`;
  if (sandbox) {
    const app = sandbox.applications.forgeops;
    return {
      url: sandbox.url,
      clientId: app.client_id,
      clientSecret: app.client_secret,
      // The sandbox registered this address at start (on a loopback address any port matches, RFC 8252 §7.3, so
      // forgeops on port 0 passes the port it got).
      redirectUri,
      // openid besides when the application allows it: the sign-in's answer then says who signed in (one request
      // to the code host instead of two).
      scopes: [
        ...new Set([
          ...config.identity.scopes.filter((scope) => app.scopes.includes(scope)),
          ...(app.scopes.includes('openid') ? ['openid'] : []),
        ]),
      ],
    };
  }
  if (!config.codehost.url || !config.identity.clientId) return undefined;
  return {
    url: config.codehost.url,
    clientId: config.identity.clientId,
    clientSecret: config.identity.clientSecret,
    redirectUri,
    scopes: config.identity.scopes,
  };
}
