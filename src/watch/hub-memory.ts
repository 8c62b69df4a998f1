// What one replica last saw of the watches in the state store (every subscription, and the records of each open red
// episode and followed deployment), so that a store that lost its data (Redis FLUSHALL, or a restart without
// persistence) gets them back from whichever replica looks first; the watch hub asks before each look and transition.
import type { Logger } from '../log.js';
import type { StateStore } from '../state/store.js';
import {
  byPath,
  deploymentRecordPrefixes,
  ENTRY_PREFIX,
  entryKey,
  EPISODE_RECORD_PREFIXES,
  EPOCH_KEY,
  MUTE_PREFIX,
  part,
  rememberedWins,
  STATE_PREFIX,
  watcherKey,
  type Entry,
  type Remembered,
  type StateRead,
  type Subscription,
} from './hub-records.js';

interface WatchMemoryOptions {
  store: StateStore;
  log: Logger;
  /** The hub's clock, epoch ms. */
  now: () => number;
  /** The store in words, for the log. */
  storeName: string;
  /** The subscriptions under some keys, as the hub reads them (each with its project's path as last read). */
  readSubscriptions: (keys: readonly string[]) => Promise<Array<[string, Subscription]>>;
}

export class WatchMemory {
  /** Every subscription as last read from (or written to) the store: what goes back if the store loses its data. */
  private known = new Map<string, Subscription>();
  /**
   * The open red episodes' records as last read (the watch's state, what each subscriber was told, the Slack message
   * kept to be updated): written back with the subscriptions, so the episode still ends in its message when green.
   * The same for deployments followed while they wait, whose message then follows them to their end.
   */
  private knownEpisodes = new Map<string, Remembered>();
  /** A look for a loss (and its write-back) under way, which a transition told meanwhile waits for. */
  private restoring: Promise<void> | undefined;

  constructor(private readonly o: WatchMemoryOptions) {}

  /** A subscription written (or read) under `key`: it goes back after a loss. */
  saw(key: string, subscription: Subscription): void {
    this.known.set(key, subscription);
  }

  /** A subscription ended or moved away from `key`: it does not come back. */
  forgot(key: string): void {
    this.known.delete(key);
  }

  /** A record of an open episode or followed deployment as last read, if it was. */
  remembered(key: string): unknown {
    return this.knownEpisodes.get(key)?.value;
  }

  /**
   * The store's subscriptions, remembered while its epoch stands; once it is gone with subscriptions remembered, the
   * store lost its data and they are written back (set-if-absent: every replica may do the same at once), said in the
   * log. An unsubscribe since the last read is the one thing this can bring back, and only on a replica that missed it.
   */
  private async restoreIfLost(): Promise<void> {
    const { store } = this.o;
    if ((await store.get(EPOCH_KEY)) !== undefined) {
      const read = await this.o.readSubscriptions(await store.keys('watch:sub:'));
      // Lost while they were read: what was read is not the store's, and the next look writes back what was known.
      const episodes = await this.readEpisodes();
      if ((await store.get(EPOCH_KEY)) === undefined) return;
      this.known = new Map(read);
      this.knownEpisodes = episodes;
      return;
    }
    if (this.known.size === 0) {
      // Nothing to lose yet: from here on, the epoch's absence means a loss.
      await store.add(EPOCH_KEY, this.o.now());
      return;
    }
    for (const [key, subscription] of this.known) {
      const { projectId: id, project, subscriber } = subscription;
      // One not yet moved to its number goes back under its path, and is moved at the next look.
      await store.add(id === undefined ? `${ENTRY_PREFIX}${part(project)}` : entryKey(id), {
        ...(id === undefined ? {} : { id }),
        project,
      } satisfies Entry);
      await store.add(
        id === undefined ? `${byPath.watchersPrefix(project)}${part(subscriber)}` : watcherKey(id, subscriber),
        1,
      );
      await store.add(key, subscription);
    }
    let restored = 0;
    for (const [key, { value, expiresAt }] of this.knownEpisodes) {
      // Each record keeps the expiry it had: written back with a fresh one, an episode lost and restored again and
      // again would never expire. One past its expiry stays gone.
      const ttlMs = expiresAt === undefined ? undefined : expiresAt - this.o.now();
      if (ttlMs !== undefined && ttlMs <= 0) continue;
      restored += 1;
      // A watch that checked since the loss wrote its state afresh, without the episode: the remembered one wins, so
      // the next check finds the branch moved on and tells the episode's end. The rest only if absent.
      if (key.startsWith(STATE_PREFIX)) {
        if (rememberedWins(value as StateRead, await store.get<StateRead>(key)))
          await store.set(key, value, ttlMs === undefined ? {} : { ttlMs });
      } else await store.add(key, value, ttlMs === undefined ? {} : { ttlMs });
    }
    await store.add(EPOCH_KEY, this.o.now());
    this.o.log.warn(
      `watch: ${this.o.storeName} lost its data; wrote back the ${this.known.size} subscription(s) and ` +
        `${restored} open episode record(s) this replica knew`,
    );
  }

  /**
   * Every open red episode's records in the store: the watch states with an episode, and the keys its transitions
   * and messages are kept under (each starts with the episode's key after its own prefix). Likewise the deployments a
   * watch follows while they wait: its state, and their transitions and messages, so a deployment message lost with
   * the store still follows its deployment, in place.
   */
  private async readEpisodes(): Promise<Map<string, Remembered>> {
    const { store } = this.o;
    const found = new Map<string, Remembered>();
    const remember = (key: string, read: { value: unknown; ttlMs?: number }) =>
      found.set(key, {
        value: read.value,
        ...(read.ttlMs === undefined ? {} : { expiresAt: this.o.now() + read.ttlMs }),
      });
    for (const key of await store.keys(STATE_PREFIX)) {
      const state = await store.getWithTtl<StateRead>(key);
      const episode = state?.value?.episode?.key;
      const following = state ? deploymentRecordPrefixes(key, state.value) : [];
      if (!state || (typeof episode !== 'string' && following.length === 0)) continue;
      remember(key, state);
      const episodes = typeof episode === 'string' ? EPISODE_RECORD_PREFIXES.map((p) => `${p}${episode}:`) : [];
      for (const prefix of [...episodes, ...following])
        for (const record of await store.keys(prefix)) {
          const read = await store.getWithTtl(record);
          if (read !== undefined) remember(record, read);
        }
    }
    for (const key of await store.keys(MUTE_PREFIX)) {
      const read = await store.getWithTtl(key);
      if (read !== undefined) remember(key, read);
    }
    return found;
  }

  /**
   * The store lost its data since this replica last looked: what it knew is written back now, before a transition is
   * handed on, so that the transition finds its subscribers and the records of its message (told before the next
   * look, it would reach no one, or a message's sink that no longer knows the message). One write-back at a time.
   */
  async writtenBackIfLost(): Promise<void> {
    if (this.known.size === 0 || (await this.o.store.get(EPOCH_KEY)) !== undefined) return;
    await this.look();
  }

  /** A look for a loss (restoreIfLost), one at a time in this replica: a look and a write-back never run together. */
  look(): Promise<void> {
    return (this.restoring ??= this.restoreIfLost().finally(() => {
      this.restoring = undefined;
    }));
  }
}
