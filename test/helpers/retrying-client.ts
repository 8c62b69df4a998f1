// A client of the file's sandbox that retries as a configured forgeops does, and the count of what reached the sandbox.
import { afterAll, beforeAll } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import type { Sandbox } from '../../src/sandbox/server.js';

/**
 * Registers the hooks of the calling file (after useSandbox's): a maintainer's client of `env`'s sandbox that retries
 * up to three times with waits of a few milliseconds. The returned function gives it inside a test.
 */
export function useRetryingClient(env: { readonly sandbox: Sandbox }): () => HttpClient {
  let client: HttpClient | undefined;
  beforeAll(() => {
    client = new HttpClient({
      baseUrl: env.sandbox.url,
      token: env.sandbox.tokens.maintainer,
      retry: { maxRetries: 3, minDelayMs: 1, maxDelayMs: 5 },
    });
  });
  afterAll(() => client?.close());
  return () => {
    if (!client) throw new Error('the retrying client is only there inside a test');
    return client;
  };
}

/** How many requests for `method` and `path` the sandbox has answered so far. */
export function sentTo(sandbox: Sandbox, method: string, path: string): number {
  return sandbox.requests.filter({ method, path }).length;
}
