// The watch hub of a running forgeops (serve, or the Slack bot alone): over the process's state store and replicas,
// reading the service with forgeops's own token, at the configured interval and caps.
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { countWatchesWith, watchRecorder } from '../metrics.js';
import type { Operation } from '../operations/engine/define.js';
import type { Runtime } from '../runtime.js';
import type { OpenedStore } from '../state/store.js';
import { WatchHub, type WatchSink } from './hub.js';

export async function startWatchHub(options: {
  config: Config;
  log: Logger;
  runtime: Runtime;
  state: OpenedStore;
  operations: readonly Operation[];
  /** Where subscribers' events go (the Slack incident messages): added before the first watch can tell anything. */
  sinks?: readonly WatchSink[];
}): Promise<WatchHub> {
  const { config, log, runtime, state } = options;
  const hub = new WatchHub({
    store: state.store,
    ...(state.peers ? { peers: state.peers } : {}),
    operations: () => options.operations,
    runContext: () => ({ client: runtime.client, deadline: Date.now() + config.callTimeoutMs }),
    log,
    intervalMs: config.watch.intervalMs,
    maxWatches: config.watch.maxWatches,
    maxPerSubscriber: config.watch.maxPerChannel,
    maxRefused: config.watch.maxRefused,
    refusedWindowMs: config.watch.refusedWindowMs,
    ...(config.server.replicaId ? { holder: `${config.server.replicaId}:${process.pid}` } : {}),
    storeName: state.where,
    // Counted only once serve or the Slack bot enabled metrics; prom-client is never loaded here.
    recorder: watchRecorder,
  });
  countWatchesWith(() => hub.counts());
  for (const sink of options.sinks ?? []) hub.addSink(sink);
  await hub.start();
  return hub;
}
