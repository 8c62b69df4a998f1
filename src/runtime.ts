// What every mode needs to reach the service: the configured one, or an embedded sandbox started in-process.
import type { Config } from './config.js';
import { HttpClient } from './http/client.js';
import type { Logger } from './log.js';

export interface Runtime {
  client: HttpClient;
  /** The service base URL in use. */
  serviceUrl: string;
  /** Set when no service was configured and the embedded sandbox runs in this process. */
  sandbox?: { url: string; tokens: Record<string, string> };
  close(): Promise<void>;
}

/** The demo identity used when the sandbox runs and no token was configured: a maintainer, so writes work in the demo. */
export const SANDBOX_DEFAULT_ROLE = 'maintainer';

export async function createRuntime(config: Config, log: Logger): Promise<Runtime> {
  const retry = { maxRetries: config.codehost.maxRetries };
  if (config.codehost.url) {
    const client = new HttpClient({
      baseUrl: config.codehost.url,
      token: config.codehost.token,
      scimToken: config.codehost.scimToken,
      caFile: config.codehost.caFile,
      timeoutMs: config.codehost.timeoutMs,
      retry,
    });
    if (!config.codehost.token) log.warn('CODEHOST_TOKEN is not set: only public data can be read');
    return { client, serviceUrl: config.codehost.url, close: () => client.close() };
  }
  const { startSandbox } = await import('./sandbox/server.js');
  const sandbox = await startSandbox({ port: 0, log: (line) => log.debug(`sandbox: ${line}`) });
  const tokens = sandbox.tokens as unknown as Record<string, string>;
  const client = new HttpClient({
    baseUrl: sandbox.url,
    token: config.codehost.token ?? tokens[SANDBOX_DEFAULT_ROLE],
    scimToken: config.codehost.scimToken ?? tokens.scim,
    timeoutMs: config.codehost.timeoutMs,
    retry,
  });
  log.info(`no CODEHOST_URL set: using the embedded sandbox at ${sandbox.url}`);
  return {
    client,
    serviceUrl: sandbox.url,
    sandbox: { url: sandbox.url, tokens },
    async close() {
      await client.close();
      await sandbox.close();
    },
  };
}
