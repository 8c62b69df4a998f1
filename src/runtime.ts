// What every mode needs to reach the service: the configured one, or an embedded sandbox started in-process.
import type { Config } from './config.js';
import type { HttpClientOptions } from './http/client.js';
import type { ApiRequest, ApiResponse, ApiTransport } from './http/types.js';
import type { Logger } from './log.js';
import { withoutCredentials } from './text/shown-url.js';
import type { ServiceSettings } from './operations/engine/failures.js';

export interface SandboxInfo {
  url: string;
  tokens: Record<string, string>;
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
    async close() {
      const started = await made?.catch(() => undefined);
      await started?.close();
    },
  };
}

export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  if (config.codehost.url) {
    const client = lazyHttpClient({
      baseUrl: config.codehost.url,
      token: config.codehost.token,
      scimToken: config.codehost.scimToken,
      caFile: config.codehost.caFile,
      proxy: config.proxy,
      ...clientOptions(config),
    });
    if (!config.codehost.token) log.warn('CODEHOST_TOKEN is not set: only public data can be read');
    // Config refuses a URL with credentials; shown without them all the same (banner, /readyz, errors).
    const shown = withoutCredentials(config.codehost.url);
    const service = { address: `CODEHOST_URL (${shown})`, tokenSource: 'CODEHOST_TOKEN' };
    return { client, serviceLabel: shown, service, close: () => client.close() };
  }
  return embeddedSandboxRuntime(config, log);
}

/**
 * Seeding the sandbox's git repositories takes a second or more; an MCP client should not wait for that to see
 * the tools. So the sandbox starts in the background and the first request waits for it.
 */
function embeddedSandboxRuntime(config: Config, log: Logger): Runtime {
  const starting = (async () => {
    const { startSandbox } = await import('./sandbox/server.js');
    const sandbox = await startSandbox({ port: 0, log: (line) => log.debug(`sandbox: ${line}`) });
    const tokens = { ...sandbox.tokens } as Record<string, string>;
    const client = lazyHttpClient({
      baseUrl: sandbox.url,
      token: config.codehost.token ?? tokens[SANDBOX_DEFAULT_ROLE],
      scimToken: config.codehost.scimToken ?? tokens.scim,
      // The sandbox is on loopback in this process: no proxy has any business between them.
      proxy: {},
      ...clientOptions(config),
    });
    log.info(`no CODEHOST_URL set: using the embedded sandbox at ${sandbox.url}`);
    return { sandbox, client, info: { url: sandbox.url, tokens } };
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
