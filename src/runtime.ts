// What every mode needs to reach the service: the configured one, or an embedded sandbox started in-process.
import type { Config } from './config.js';
import type { HttpClientOptions } from './http/client.js';
import type { ApiRequest, ApiResponse, ApiTransport, TokenSource } from './http/types.js';
import type { Logger } from './log.js';
import { withoutCredentials } from './text/shown-url.js';
import type { ServiceSettings } from './operations/engine/failures.js';
import type { Application, ApplicationInput } from './sandbox/server.js';
import type { SandboxInfo, SandboxOAuthClient } from './identity/application.js';
import { forgeopsUrl } from './http/addresses.js';

/**
 * The client ids of forgeops's own applications on the embedded sandbox, fixed so that they can be documented:
 * "forgeops" (confidential: the server's sign-in, redirecting to <forgeops URL>/oauth/callback) and "forgeops-cli"
 * (public: the terminal's device grant, or a loopback redirect on any port).
 */
export const SANDBOX_CLIENT_IDS = { forgeops: 'forgeops-sandbox', cli: 'forgeops-cli-sandbox' } as const;
const SANDBOX_CLIENT_SCOPES = ['api', 'read_api', 'read_user', 'openid'] as const;
const CLI_LOOPBACK_REDIRECT = 'http://127.0.0.1/callback';

export interface RuntimeOptions {
  /**
   * forgeops's address as a browser reaches it (serve's), where the sandbox's "forgeops" application sends people
   * back to; default the one of FORGEOPS_HOST and FORGEOPS_PORT (forgeopsUrl).
   */
  publicUrl?: string;
  /**
   * The port this process is about to listen on (serve's, the Slack bot's), which the embedded sandbox must not be
   * handed while picking a free one before that listener binds it.
   */
  ownPort?: number;
}

export interface Runtime {
  client: ApiTransport;
  /** A description of the service in use, for logs and banners. */
  serviceLabel: string;
  /** The settings behind the service in use, named by errors that a setting fixes. */
  service: ServiceSettings;
  /** Set when no service was configured: resolves once the embedded sandbox is up and seeded. */
  sandbox?: () => Promise<SandboxInfo>;
  close(): Promise<void>;
}

/** The demo identity used when the sandbox runs and no token was configured: a maintainer, so writes work in the demo. */
export const SANDBOX_DEFAULT_ROLE = 'maintainer';

function clientOptions(config: Config) {
  return { timeoutMs: config.codehost.timeoutMs, retry: { maxRetries: config.codehost.maxRetries } };
}

type ServiceClient = ApiTransport & { close(): Promise<void> };

/**
 * The HTTP client, made on the first request: undici is the largest module forgeops loads, and a stdio MCP server
 * answers its handshake and tools/list without it. A client that cannot be made fails that request and every later one.
 */
function lazyHttpClient(options: HttpClientOptions): ServiceClient {
  let made: Promise<ServiceClient> | undefined;
  const client = () => (made ??= import('./http/client.js').then(({ HttpClient }) => new HttpClient(options)));
  return {
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      return (await client()).request<T>(req);
    },
    async warmUp() {
      await client();
    },
    async close() {
      const started = await made?.catch(() => undefined);
      await started?.close();
    },
  };
}

/**
 * The terminal's sign-in as a token source, loaded on the first request like the client itself: a stdio server
 * answers its handshake and tools/list without reading the credentials file or loading the OAuth code.
 */
function signInSource(host: string, caFile: string | undefined, log: Logger): TokenSource {
  let made: Promise<TokenSource> | undefined;
  const source = () =>
    (made ??= Promise.all([import('./identity/signed-in-token.js'), import('./http/code-host-fetch.js')]).then(
      ([{ signInTokenSource }, { codeHostFetch }]) =>
        signInTokenSource(host, log, undefined, codeHostFetch({ caFile })),
    ));
  return {
    token: async () => (await source()).token(),
    rejected: async (token) => (await source()).rejected(token),
  };
}

export async function createRuntime(config: Config, log: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  if (config.codehost.url) {
    const client = lazyHttpClient({
      baseUrl: config.codehost.url,
      token: config.codehost.token,
      scimToken: config.codehost.scimToken,
      caFile: config.codehost.caFile,
      proxy: config.proxy,
      // An explicit CODEHOST_TOKEN wins; without one, the terminal's sign-in (forgeops login), if there is one.
      ...(!config.codehost.token && { tokenSource: signInSource(config.codehost.url, config.codehost.caFile, log) }),
      ...clientOptions(config),
    });
    // Config refuses a URL with credentials; shown without them all the same (banner, /readyz, errors).
    const shown = withoutCredentials(config.codehost.url);
    const service = {
      address: `CODEHOST_URL (${shown})`,
      tokenSource: config.codehost.token ? 'CODEHOST_TOKEN' : 'the sign-in of forgeops login (or CODEHOST_TOKEN)',
      ...(!config.codehost.token && { renew: 'run forgeops login again (or set CODEHOST_TOKEN)' }),
    };
    return { client, serviceLabel: shown, service, close: () => client.close() };
  }
  return embeddedSandboxRuntime(
    config,
    log,
    options.publicUrl ?? forgeopsUrl(config.server.host, config.server.port),
    options.ownPort,
  );
}

/** The sandbox's registrations of forgeops's two applications. */
function forgeopsApplications(publicUrl: string): ApplicationInput[] {
  return [
    {
      name: 'forgeops',
      uid: SANDBOX_CLIENT_IDS.forgeops,
      redirect_uris: [`${publicUrl.replace(/\/+$/, '')}/oauth/callback`],
      scopes: [...SANDBOX_CLIENT_SCOPES],
      confidential: true,
      trusted: false,
    },
    sandboxCliApplication(),
  ];
}

/**
 * The terminal's public application (device grant, loopback redirect on any port), also on a sandbox run alone
 * (`forgeops sandbox`), which is what `forgeops login` can sign in to: CODEHOST_URL=<its address>
 * FORGEOPS_CLI_CLIENT_ID=forgeops-cli-sandbox.
 */
export function sandboxCliApplication(): ApplicationInput {
  return {
    name: 'forgeops-cli',
    uid: SANDBOX_CLIENT_IDS.cli,
    redirect_uris: [CLI_LOOPBACK_REDIRECT],
    scopes: [...SANDBOX_CLIENT_SCOPES],
    confidential: false,
  };
}

function clientInfo(app: Application, withSecret: boolean): SandboxOAuthClient {
  return {
    name: app.name,
    client_id: app.uid,
    ...(withSecret && { client_secret: app.secret }),
    redirect_uris: [...app.redirect_uris],
    scopes: [...app.scopes],
  };
}

/**
 * Seeding the sandbox's git repositories takes a second or more; an MCP client should not wait for that to see
 * the tools. So the sandbox starts in the background and the first request waits for it.
 */
function embeddedSandboxRuntime(config: Config, log: Logger, publicUrl: string, ownPort?: number): Runtime {
  const starting = (async () => {
    const { startSandbox } = await import('./sandbox/server.js');
    const sandbox = await startSandbox({
      port: 0,
      avoidPorts: ownPort ? [ownPort] : [],
      log: (line) => log.debug(`sandbox: ${line}`),
      applications: forgeopsApplications(publicUrl),
    });
    const tokens = { ...sandbox.tokens } as Record<string, string>;
    const [forgeops, cli] = sandbox.applications;
    const applications = { forgeops: clientInfo(forgeops, true), cli: clientInfo(cli, false) };
    const client = lazyHttpClient({
      baseUrl: sandbox.url,
      token: config.codehost.token ?? tokens[SANDBOX_DEFAULT_ROLE],
      scimToken: config.codehost.scimToken ?? tokens.scim,
      // The sandbox is on loopback in this process: no proxy has any business between them.
      proxy: {},
      ...clientOptions(config),
    });
    log.info(`no CODEHOST_URL set: using the embedded sandbox at ${sandbox.url}`);
    log.info(
      `sandbox OAuth applications: forgeops (client id ${forgeops.uid}, confidential, redirect ${forgeops.redirect_uris[0]}) and forgeops-cli (client id ${cli.uid}, public: device grant or ${CLI_LOOPBACK_REDIRECT} on any port)`,
    );
    return { sandbox, client, info: { url: sandbox.url, tokens, applications } };
  })();
  // A failed start is reported by the first request that needs it; this only keeps it from being unhandled.
  starting.catch((error) => log.error(`embedded sandbox failed to start: ${(error as Error).message}`));
  const client: ApiTransport = {
    async request<T>(req: ApiRequest): Promise<ApiResponse<T>> {
      return (await starting).client.request<T>(req);
    },
  };
  return {
    client,
    serviceLabel: 'the embedded sandbox',
    service: {
      address: 'the embedded sandbox',
      tokenSource: config.codehost.token ? 'CODEHOST_TOKEN' : `the sandbox's ${SANDBOX_DEFAULT_ROLE} token`,
    },
    sandbox: async () => (await starting).info,
    async close() {
      const started = await starting.catch(() => undefined);
      if (!started) return;
      await started.client.close();
      await started.sandbox.close();
    },
  };
}
