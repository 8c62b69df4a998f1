// Reading a Prometheus text exposition in tests (one series' value by its name and some of its labels), and a client
// whose calls the metrics count from zero.
import { HttpClient } from '../../src/http/client.js';
import { enableMetrics, resetMetrics } from '../../src/metrics.js';
/** The value of one series, e.g. series(text, 'forgeops_calls_total', { operation: 'list_pipelines', … }). */
export function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const line = text
    .split('\n')
    .find((l) =>
      l.startsWith(`${name}{`) || l.startsWith(`${name} `)
        ? Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`))
        : false,
    );
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Metrics on and back at zero, and a maintainer's client of the sandbox that retries without waiting (a 429 with
 * Retry-After 0 is sent again at once), so that a test counts exactly its own calls and retries.
 */
export async function countedClient(sandbox: { url: string; tokens: { maintainer: string } }): Promise<HttpClient> {
  await enableMetrics();
  resetMetrics();
  return new HttpClient({
    baseUrl: sandbox.url,
    token: sandbox.tokens.maintainer,
    retry: { maxRetries: 2, minDelayMs: 1, maxDelayMs: 5 },
  });
}
