// The watch settings of the configuration reach what they govern: the refused-attempt cap and its window through the
// hub serve and the Slack bot start (startWatchHub), the webhooks' spacing through the receiver serve mounts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/config.js';
import { operations } from '../../../src/operations/index.js';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import { startWatchHub } from '../../../src/watch/start.js';
import { configuredPipelineWebhook } from '../../../src/watch/webhook.js';
import { useSandbox } from '../../helpers/mcp.js';
import { quietLog } from '../../helpers/watch.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const SECRET = 'a-webhook-secret-of-some-length';

const hubs: WatchHub[] = [];
afterAll(async () => {
  for (const hub of hubs) await hub.close();
});

/** The hub as serve starts it, from a configuration parsed out of `environment`, over a store on the sandbox's clock. */
async function configuredHub(environment: Record<string, string>): Promise<WatchHub> {
  const hub = await startWatchHub({
    config: parseConfig(environment),
    log: quietLog,
    runtime: {
      client: env.client,
      serviceLabel: 'the sandbox',
      service: { address: 'the sandbox', tokenSource: 'the test' },
      close: async () => undefined,
    },
    state: {
      store: new MemoryStore({ now: () => clock.now() }),
      where: 'memory',
      shared: false,
      ready: async () => true,
    },
    operations,
  });
  hubs.push(hub);
  return hub;
}

describe('the watch settings', () => {
  it('cap the attempts the service refuses at FORGEOPS_MAX_REFUSED_WATCHES per FORGEOPS_REFUSED_WATCHES_WINDOW_MS', async () => {
    const hub = await configuredHub({ FORGEOPS_MAX_REFUSED_WATCHES: '3', FORGEOPS_REFUSED_WATCHES_WINDOW_MS: '90000' });
    const asked = () => env.sandbox.requests.all().filter((r) => r.path.includes('/projects/acme%2Finvented-')).length;
    const before = asked();
    const answers: string[] = [];
    for (let i = 0; i < 8; i++)
      await hub.subscribe({ subscriber: 'slack:T1:C1', project: `acme/invented-${i}` }).then(
        () => answers.push('watched'),
        (error: Error) => answers.push(error.message),
      );
    // Three reached the service (the default would let ten), the rest were refused unasked, in the window's words.
    expect(asked() - before).toBe(3);
    expect(answers.at(-1)).toMatch(/^3 watch attempts from here .* refused in the last 90 seconds; /);
    // Past the configured window (not the default ten minutes), the service is asked again.
    clock.advance(90_001);
    await expect(hub.subscribe({ subscriber: 'slack:T1:C1', project: 'acme/invented-again' })).rejects.toThrow(/404/);
    expect(asked() - before).toBe(4);
  });

  it('space the checks webhooks ask for by FORGEOPS_WEBHOOK_SPACING_MS, and mount no receiver without the secret', async () => {
    const nudged: string[] = [];
    const watches = { nudge: async (project: string | number) => void nudged.push(String(project)) };
    expect(configuredPipelineWebhook(parseConfig({}).watch, { watches, log: quietLog, clock })).toBeUndefined();
    const mounted = configuredPipelineWebhook(
      parseConfig({ FORGEOPS_WEBHOOK_SECRET: SECRET, FORGEOPS_WEBHOOK_SPACING_MS: '60000' }).watch,
      { watches, log: quietLog, clock },
    );
    if (!mounted) throw new Error('no receiver was mounted with a secret');
    const http = createServer(mounted.handle);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}${mounted.path}`;
    const send = async () => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'x-gitlab-token': SECRET },
        body: JSON.stringify({ object_kind: 'pipeline', project: { path_with_namespace: 'acme/web' } }),
      });
      expect(answer.status).toBe(200);
    };
    try {
      await send();
      await send();
      expect(nudged).toEqual(['acme/web']);
      // The default spacing (5 s) has passed, the configured one has not: the second event still waits.
      clock.advance(5_000);
      expect(nudged).toHaveLength(1);
      clock.advance(55_000);
      expect(nudged).toEqual(['acme/web', 'acme/web']);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    }
  });
});
