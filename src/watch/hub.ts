// The watches of one process. Who watches which project's branch is kept in the state store (so every replica, and
// a restart, sees the same subscriptions); every replica runs one BranchWatch per watched branch, and the lease
// picks the one that polls. Each transition the holder tells is handed once to the sink of each subscriber (a Slack
// channel), and announced to every replica, whose listeners (MCP sessions subscribed to the status) hear it.
// While the store cannot be reached, watching pauses (said once, and on /readyz) and resumes by itself. A project is
// kept by its number, not its path: renamed or moved, it stays one watch, and its messages say its current path.
import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import type { Operation, RunContext } from '../operations/engine/define.js';
import { executeOperation } from '../operations/engine/execute.js';
import type { TriageReport } from '../operations/composed/triage.js';
import { StoreUnavailableError } from '../state/redis-store.js';
import type { PeerChannel, StateStore } from '../state/store.js';
import { DEFAULT_REFUSED_WATCHES, DEFAULT_REFUSED_WATCHES_WINDOW_MS } from '../defaults.js';
import {
  BranchWatch,
  DEFAULT_WATCH_INTERVAL_MS,
  EPISODE_TTL_MS,
  GONE_STATUSES,
  MAX_WATCHES,
  WatchRefusedError,
  episodeKeyOf,
  stateKey,
  type WatchEvent,
  type WatchState,
} from './branch-watch.js';
import { WatchMemory } from './hub-memory.js';
import {
  byPath,
  CHANGES,
  ENTRY_PREFIX,
  entryKey,
  EPOCH_KEY,
  failedPrefix,
  isNumber,
  nameKey,
  part,
  subKey,
  subscriberOf,
  subscriberPrefix,
  watcherKey,
  watchersPrefix,
  type Entry,
  type Subscription,
} from './hub-records.js';
// Types only: the hub reports through the recorder it is given and never loads the metrics module.
import type { WatchCounts, WatchRecorder } from '../metrics.js';

/** Watches one subscriber (a channel) may hold: a stranger's channel cannot take every watch there is. */
const MAX_WATCHES_PER_SUBSCRIBER = 10;

/** Where a subscriber's events go: Slack channels ('slack:'), each sink owning subscribers that start with its prefix. */
export interface WatchSink {
  prefix: string;
  /** Must not lose the event once it resolves (a sink posts through a durable outbox); errors are logged. */
  deliver(subscription: Subscription, event: WatchEvent): Promise<void>;
  /** The sink tells of deployments: the watches follow them (a read more when a branch changed). */
  followsDeployments?: boolean;
}

/** What every replica hears: a watched branch changed (a transition, or just a new pipeline). */
export interface StatusChange {
  /** The project's path as the replica that heard the change knows it. */
  project: string;
  /** Its number; absent in a message from a replica from before watches were kept by number. */
  projectId?: number;
  ref: string;
  kind: WatchEvent['kind'] | 'changed';
}
type StatusListener = (change: StatusChange) => void;

interface WatchHubOptions {
  store: StateStore;
  /** Replicas sharing the store (Redis pub/sub): changes and nudges reach them all. Absent: this process alone. */
  peers?: PeerChannel;
  operations: () => readonly Operation[];
  /** The context a watch reads in: forgeops's own service token, never a person's. */
  runContext: () => RunContext;
  log: Logger;
  clock?: Clock;
  intervalMs?: number;
  random?: () => number;
  /** This replica's name in the leases. */
  holder?: string;
  maxWatches?: number;
  maxPerSubscriber?: number;
  /** Watch attempts the service refused one subscriber may make in `refusedWindowMs` (FORGEOPS_MAX_REFUSED_WATCHES). */
  maxRefused?: number;
  refusedWindowMs?: number;
  /** The store in words, for the log and /readyz ("Redis at cache.internal:6379"). */
  storeName?: string;
  recorder?: WatchRecorder;
}

/** How long a subscriber's delivery of one transition is claimed: far longer than handing it to a sink takes. */
const DELIVERY_CLAIM_MS = 30_000;

/** Another teller is handing this transition to this subscriber right now. */
class DeliveryUnderWay extends Error {
  constructor(subscriber: string) {
    super(`being told to ${subscriber} already`);
  }
}

/** A window in words: "10 minutes", "1 minute", "90 seconds". */
const spanOf = (ms: number): string => {
  const unit = ms % 60_000 === 0 ? { size: 60_000, word: 'minute' } : { size: 1000, word: 'second' };
  const count = Math.ceil(ms / unit.size);
  return `${count} ${unit.word}${count === 1 ? '' : 's'}`;
};
/**
 * A project as typed (" ACME%2FWEB/ ") in the form the service is asked about and stored paths are matched against:
 * the service resolves the case and a number, but a path encoded once more, spaced or slashed at the end it refuses.
 */
const spelled = (project: string): string => {
  const text = project.trim().replace(/\/+$/, '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};
/** A project as the service names it for good: its number, and its path as last read. */
export interface ProjectRef {
  id: number;
  path: string;
}

interface Running {
  watch: BranchWatch;
  persisted: boolean;
  listeners: Set<StatusListener>;
}

export class WatchHub {
  /** The watches here by project number (the default branch of each). */
  private readonly running = new Map<number, Running>();
  private readonly sinks: WatchSink[] = [];
  private readonly clock: Clock | undefined;
  private readonly intervalMs: number;
  private stopListening: (() => Promise<void>) | undefined;
  private cancelSync: (() => void) | undefined;
  private closed = false;
  /** Since when (epoch ms) the store cannot be reached, so watching is paused; absent while it answers. */
  private pausedSince: number | undefined;
  /** What this replica last saw in the store: written back if the store loses its data. */
  private readonly memory: WatchMemory;

  constructor(private readonly o: WatchHubOptions) {
    this.clock = o.clock;
    this.intervalMs = o.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
    this.memory = new WatchMemory({
      store: o.store,
      log: o.log,
      now: () => this.now(),
      storeName: this.storeName,
      readSubscriptions: (keys) => this.readSubscriptions(keys),
    });
  }

  addSink(sink: WatchSink): void {
    this.sinks.push(sink);
  }

  /** Resumes the watches in the store, listens to the other replicas, and looks for new watches each interval. */
  async start(): Promise<void> {
    if (this.o.peers) {
      this.stopListening = await this.o.peers.listen(CHANGES, (text) => this.heard(text));
    }
    await this.sync().catch((error: Error) => this.failed(error, 'cannot read the watches yet'));
    this.scheduleSync();
  }

  /**
   * Subscribes `subscriber` to a branch; refused (WatchRefusedError) beyond the caps. When the branch is red
   * already, the subscriber is told so at once (its sink posts the episode's message once, whoever else saw it).
   */
  async subscribe(
    asked: Omit<Subscription, 'since' | 'projectId'>,
  ): Promise<{ created: boolean; report: TriageReport; subscription: Subscription; episode?: string }> {
    const { store } = this.o;
    // The default branch is kept as no ref, however it was named: one watch, one message per episode.
    const { ref: _named, ...named } = asked;
    // One subscription per project however it was named (its path in any case, encoded, its number, a path it had
    // before a rename): kept by the number the service gives, showing the path it gives. Read first: a project that
    // cannot be read (a typo, no access) is refused before anything is kept.
    const project = await this.counted(named.subscriber, () => this.resolve(named.project));
    const key = subKey(named.subscriber, project.id);
    const existing = await store.get<Subscription>(key);
    if (!existing) {
      const limit = this.o.maxPerSubscriber ?? MAX_WATCHES_PER_SUBSCRIBER;
      if ((await store.count(subscriberPrefix(named.subscriber))) >= limit) {
        throw new WatchRefusedError(`this channel watches its maximum of ${limit} branches; unwatch one first`);
      }
      const total = this.o.maxWatches ?? MAX_WATCHES;
      if (!(await store.get(entryKey(project.id))) && (await store.count(ENTRY_PREFIX)) >= total) {
        throw new WatchRefusedError(`forgeops watches its maximum of ${total} branches; unwatch one first`);
      }
    }
    const report = await this.counted(
      named.subscriber,
      async () => (await this.read('triage_project', { id: project.id })).data as TriageReport,
    );
    if (asked.ref !== undefined && asked.ref !== report.default_branch) {
      throw new WatchRefusedError(
        `only the default branch (${report.default_branch}) of ${project.path} can be watched for now: triage judges that branch`,
      );
    }
    const subscription: Subscription = existing
      ? { ...existing, project: project.path }
      : { ...named, projectId: project.id, project: project.path, since: this.now() };
    if (!existing) {
      await store.set(entryKey(project.id), { id: project.id, project: project.path } satisfies Entry);
      await store.set(watcherKey(project.id, named.subscriber), 1);
      await store.set(key, subscription);
      await store.add(EPOCH_KEY, this.now());
      this.memory.saw(key, subscription);
      await this.ensure(project, true);
      await this.announce({ project: project.path, projectId: project.id, ref: '', kind: 'changed' }, 'sync');
    }
    // Read now: a path the watch has not read yet (the project was renamed or moved) is the one shown.
    await this.renamed(project);
    const episode = await this.episodeOf(project.id, report);
    if (episode) {
      await this.deliverTo(subscription, {
        kind: 'red',
        project: project.path,
        projectId: project.id,
        ref: report.default_branch,
        episode,
        report,
        id: `${episode}:red`,
      }).catch((error: unknown) => {
        if (!(error instanceof DeliveryUnderWay)) throw error;
      });
    }
    return { created: !existing, report, subscription, ...(episode ? { episode } : {}) };
  }

  /**
   * The red episode a report is in: the one the watch keeps when it is the same (it keeps the key it began with, one
   * from before watches were kept by number included), else the key the watch will give it.
   */
  private async episodeOf(project: number, report: TriageReport): Promise<string | undefined> {
    const fresh = episodeKeyOf(project, report);
    if (!fresh) return undefined;
    const kept = (await this.o.store.get<WatchState>(stateKey(project, report.default_branch)))?.episode;
    return kept && kept.firstRed === report.red_since?.first_red.pipeline ? kept.key : fresh;
  }

  /**
   * A read of the service as the watch will; a refusal by the service counts against the subscriber's failed
   * attempts, and past their cap in the window nothing is asked of the service at all.
   */
  private async counted<T>(subscriber: string, read: () => Promise<T>): Promise<T> {
    const { store } = this.o;
    const failed = await store.count(failedPrefix(subscriber));
    if (failed >= (this.o.maxRefused ?? DEFAULT_REFUSED_WATCHES)) {
      throw new WatchRefusedError(
        `${failed} watch attempts from here named projects the service refused in the last ${spanOf(this.refusedWindowMs)}; ` +
          `forgeops asks it about no more for now: check the names (watching lists the ones you watch) and try again later`,
      );
    }
    try {
      return await read();
    } catch (error) {
      const status = (error as { status?: unknown }).status;
      // The service refusing the name counts; the service being down is nobody's flood.
      if (typeof status === 'number' && status >= 400 && status < 500) {
        await store.add(`${failedPrefix(subscriber)}${this.now()}.${Math.random().toString(36).slice(2)}`, 1, {
          ttlMs: this.refusedWindowMs,
        });
      }
      throw error;
    }
  }

  /**
   * The project as the service names it for good (its number, and its path_with_namespace), whichever way it was
   * named: a path in any case, encoded, with spaces or a slash at the end, its number, or a path it had before.
   */
  private async resolve(named: string | number): Promise<ProjectRef> {
    const id = typeof named === 'number' ? named : spelled(named);
    const project = (await this.read('get_project', { id })).data as { id?: unknown; path_with_namespace?: unknown };
    if (typeof project?.path_with_namespace !== 'string' || typeof project.id !== 'number')
      throw new Error(`the service gave no number and path for ${named}`);
    return { id: project.id, path: project.path_with_namespace };
  }

  /**
   * A subscriber's watch of a project named any way: as the service resolves the name (to its number), else (the
   * service refuses it or cannot be reached: a project deleted is still unwatched) by its number or shown path.
   */
  async find(subscriber: string, named: string): Promise<Subscription | undefined> {
    const resolved = await this.resolve(named).catch(() => undefined);
    const list = await this.subscriptions(subscriber);
    const wanted = spelled(named).toLowerCase();
    return (
      (resolved && list.find((s) => s.projectId === resolved.id)) ||
      list.find((s) => s.projectId === undefined && s.project.toLowerCase() === resolved?.path.toLowerCase()) ||
      list.find((s) => s.project.toLowerCase() === wanted || String(s.projectId) === wanted)
    );
  }

  /**
   * Ends a subscription (the project named any way find() takes, or by its number); the branch stops being watched
   * when its last subscriber leaves. False: it was not watched.
   */
  async unsubscribe(asked: { subscriber: string; project: string | number; ref?: string }): Promise<boolean> {
    const { store } = this.o;
    const { subscriber } = asked;
    const found =
      typeof asked.project === 'number'
        ? (await this.subscriptions(subscriber)).find((s) => s.projectId === asked.project)
        : await this.find(subscriber, asked.project);
    if (!found) return false;
    if (found.projectId === undefined) {
      // Not moved to its number yet (the service could not be asked): its records under the path go.
      const key = byPath.subKey(subscriber, found.project);
      this.memory.forgot(key);
      const had = await store.delete(key);
      await store.delete(`${byPath.watchersPrefix(found.project)}${part(subscriber)}`);
      if ((await store.count(byPath.watchersPrefix(found.project))) === 0)
        await store.delete(`${ENTRY_PREFIX}${part(found.project)}`);
      return had;
    }
    const id = found.projectId;
    const had = await store.delete(subKey(subscriber, id));
    this.memory.forgot(subKey(subscriber, id));
    await store.delete(watcherKey(id, subscriber));
    if ((await store.count(watchersPrefix(id))) === 0) {
      await store.delete(entryKey(id));
      await store.delete(nameKey(id));
      await this.announce({ project: found.project, projectId: id, ref: '', kind: 'changed' }, 'sync');
      await this.sync();
    }
    return had;
  }

  /** A subscriber's watches, oldest first, each showing its project's path as last read. */
  async subscriptions(subscriber: string): Promise<Subscription[]> {
    return (await this.readSubscriptions(await this.o.store.keys(subscriberPrefix(subscriber))))
      .map(([, subscription]) => subscription)
      .sort((a, b) => a.since - b.since);
  }

  /** The subscriptions under `keys` (those still there), each with the path its watch last read. */
  private async readSubscriptions(keys: readonly string[]): Promise<Array<[string, Subscription]>> {
    const { store } = this.o;
    const read = await Promise.all(
      keys.map(async (key): Promise<[string, Subscription] | undefined> => {
        const subscription = await store.get<Subscription>(key);
        if (!subscription) return undefined;
        const id = subscription.projectId;
        const path = id === undefined ? undefined : await store.get<string>(nameKey(id));
        return [key, path ? { ...subscription, project: path } : subscription];
      }),
    );
    return read.filter((pair): pair is [string, Subscription] => pair !== undefined);
  }

  /**
   * Hears every change of a branch on this replica (an MCP session subscribed to the status), watching it while
   * anyone listens. The caller caps its own listeners; the hub caps the branches watched in all.
   */
  async listen(project: string | ProjectRef, listener: StatusListener): Promise<() => Promise<void>> {
    const ref = typeof project === 'string' ? await this.resolve(project) : project;
    const running = await this.ensure(ref, false);
    running.listeners.add(listener);
    return async () => {
      running.listeners.delete(listener);
      if (running.listeners.size === 0 && !running.persisted) await this.drop(ref.id);
    };
  }

  /**
   * Checks a project now (a webhook said it changed), named by its number (a pipeline event carries it) or its path:
   * on the replica that holds its lease, wherever that is.
   */
  async nudge(project: string | number): Promise<void> {
    const id = typeof project === 'number' ? project : isNumber(project) ? Number(project) : undefined;
    await this.announce(
      { project: String(project), ...(id === undefined ? {} : { projectId: id }), ref: '', kind: 'changed' },
      'nudge',
    );
  }

  /** How many branches this replica runs a watch for (polling or standing by): /metrics. */
  get size(): number {
    return this.running.size;
  }

  /** The watches here that poll (hold their project's lease) and those standing by. */
  counts(): WatchCounts {
    const polling = [...this.running.values()].filter((r) => r.watch.holding).length;
    return { polling, standingBy: this.running.size - polling };
  }

  /** Why watching is paused, in words ("watching paused: Redis at … unreachable"); undefined while it runs. */
  get paused(): string | undefined {
    return this.pausedSince === undefined ? undefined : `watching paused: ${this.storeName} unreachable`;
  }

  /** Stops every watch without giving the leases back, and stops listening: what a process that dies does (tests). */
  abandon(): void {
    this.closed = true;
    this.cancelSync?.();
    void this.stopListening?.();
    for (const running of this.running.values()) running.watch.abandon();
    this.running.clear();
  }

  /** Stops every watch, keeping the subscriptions (a restart resumes them) and giving the leases back. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelSync?.();
    await this.stopListening?.();
    await Promise.all([...this.running.values()].map((r) => r.watch.stop()));
    this.running.clear();
  }

  /** Starts the watches the store lists and stops the ones no longer listed (unless someone here still listens). */
  private async sync(): Promise<void> {
    // A hub closed (or abandoned) starts no watch again, whatever a replica announces meanwhile.
    if (this.closed) return;
    await this.memory.look();
    const { store } = this.o;
    let keys = await store.keys(ENTRY_PREFIX);
    const byPaths = keys.filter((key) => !isNumber(key.slice(ENTRY_PREFIX.length)));
    if (byPaths.length > 0) {
      await this.moveToNumbers(byPaths);
      keys = await store.keys(ENTRY_PREFIX);
    }
    const watched = (
      await Promise.all(
        keys.map(async (key): Promise<ProjectRef | undefined> => {
          const entry = await store.get<Entry>(key);
          if (entry?.id === undefined) return undefined;
          return { id: entry.id, path: (await store.get<string>(nameKey(entry.id))) ?? entry.project };
        }),
      )
    ).filter((project): project is ProjectRef => project !== undefined);
    const listed = new Set(watched.map((project) => project.id));
    this.storeAnswered();
    for (const project of watched) {
      if (this.closed) return;
      await this.ensure(project, true);
    }
    for (const [id, running] of this.running) {
      if (!running.persisted || listed.has(id)) continue;
      if (running.listeners.size > 0) running.persisted = false;
      else await this.drop(id);
    }
  }

  /**
   * Moves watches written before they were kept by number (a deployment upgraded while watching) to the number: the
   * entry, each subscription and the watch's state, an open episode keeping the key it began with (its records and
   * Slack message are found by that key, so the episode ends in its message). Each replica may do it at once: new
   * records are written if absent, old ones deleted. A project the service no longer shows is told gone and
   * forgotten, as its watch would have; one it cannot be asked about now is moved at a later look.
   */
  private async moveToNumbers(entryKeys: readonly string[]): Promise<void> {
    const { store } = this.o;
    for (const key of entryKeys) {
      if (this.closed) return;
      const path = (await store.get<Entry>(key))?.project ?? decodeURIComponent(key.slice(ENTRY_PREFIX.length));
      let project: ProjectRef;
      try {
        project = await this.resolve(path);
      } catch (error) {
        const status = (error as { status?: unknown }).status;
        if (typeof status === 'number' && GONE_STATUSES.has(status)) await this.forgetByPath(key, path, error as Error);
        else this.failed(error as Error, `cannot move the watch of ${path} to its project number yet`);
        continue;
      }
      for (const watcher of await store.keys(byPath.watchersPrefix(path))) {
        const subscriber = subscriberOf(watcher);
        const old = await store.get<Subscription>(byPath.subKey(subscriber, path));
        if (old) {
          const moved: Subscription = { ...old, projectId: project.id, project: project.path };
          await store.add(subKey(subscriber, project.id), moved);
          await store.add(watcherKey(project.id, subscriber), 1);
          this.memory.forgot(byPath.subKey(subscriber, path));
          this.memory.saw(subKey(subscriber, project.id), moved);
        }
        await store.delete(byPath.subKey(subscriber, path));
        await store.delete(watcher);
      }
      for (const old of await store.keys(byPath.statePrefix(path))) {
        const state = await store.get(old);
        if (state !== undefined)
          await store.add(stateKey(project.id, old.slice(byPath.statePrefix(path).length)), state);
        await store.delete(old);
      }
      if ((await store.count(watchersPrefix(project.id))) > 0)
        await store.add(entryKey(project.id), { id: project.id, project: project.path } satisfies Entry);
      await store.delete(key);
      this.o.log.info(
        `watch: moved the watch of ${path} to project number ${project.id}${project.path === path ? '' : ` (now ${project.path})`}: watches are kept by number, so a rename keeps them`,
      );
    }
  }

  /** A watch from before watches were kept by number whose project the service no longer shows: told gone, forgotten. */
  private async forgetByPath(entry: string, path: string, error: Error): Promise<void> {
    const { store } = this.o;
    const reason = error.message.split('\n')[0];
    for (const watcher of await store.keys(byPath.watchersPrefix(path))) {
      const subscriber = subscriberOf(watcher);
      const subscription = await store.get<Subscription>(byPath.subKey(subscriber, path));
      if (subscription)
        await this.deliverTo(subscription, { kind: 'gone', project: path, ref: '', reason, id: `${part(path)}:gone` });
      await store.delete(byPath.subKey(subscriber, path));
      this.memory.forgot(byPath.subKey(subscriber, path));
      await store.delete(watcher);
    }
    for (const old of await store.keys(byPath.statePrefix(path))) await store.delete(old);
    await store.delete(entry);
    this.o.log.warn(`watch: stopped watching ${path}: it can no longer be read (${reason})`);
  }

  private scheduleSync(): void {
    if (this.closed) return;
    const clock = this.clock;
    const wake = () => {
      void this.sync()
        .catch((error: Error) => this.failed(error, 'cannot read the watches'))
        .finally(() => this.scheduleSync());
    };
    if (clock) this.cancelSync = clock.wakeAt(clock.now() + this.intervalMs, wake);
    else {
      const timer = setTimeout(wake, this.intervalMs);
      timer.unref();
      this.cancelSync = () => clearTimeout(timer);
    }
  }

  private async ensure(project: ProjectRef, persisted: boolean): Promise<Running> {
    const found = this.running.get(project.id);
    if (found) {
      found.persisted ||= persisted;
      // The path the replica holding the lease read; the holder itself reads its own.
      if (!found.watch.holding) found.watch.rename(project.path);
      return found;
    }
    if (!persisted && this.running.size >= (this.o.maxWatches ?? MAX_WATCHES)) {
      throw new WatchRefusedError(
        `forgeops watches its maximum of ${this.o.maxWatches ?? MAX_WATCHES} branches here; try again later`,
      );
    }
    const id = project.id;
    const watch = new BranchWatch({
      project: project.path,
      projectId: id,
      operations: this.o.operations,
      runContext: this.o.runContext,
      store: this.o.store,
      ...(this.clock ? { clock: this.clock } : {}),
      intervalMs: this.intervalMs,
      followDeployments: this.sinks.some((sink) => sink.followsDeployments === true),
      ...(this.o.random ? { random: this.o.random } : {}),
      ...(this.o.holder ? { holder: this.o.holder } : {}),
      onEvent: (event) => this.told(id, event),
      onChange: (change) =>
        this.announce(
          { project: change.project, projectId: id, ref: change.ref, kind: change.kind ?? 'changed' },
          'change',
        ),
      onRenamed: (path) => this.renamed({ id, path }),
      onError: (error) => this.failed(error, watch.project),
      onCheck: (result) => {
        this.o.recorder?.checked(result);
        if (result === 'paused') this.storeFailed();
        else if (result !== 'deferred' && result !== 'failed') this.storeAnswered();
      },
      ...(this.o.recorder ? { onServiceRequest: () => this.o.recorder?.requested() } : {}),
      // Only open episodes' states are remembered: a check after a loss (before or after the write-back) goes on.
      remembered: (key) => this.memory.remembered(key) as WatchState | undefined,
    });
    const running: Running = { watch, persisted, listeners: new Set() };
    this.running.set(id, running);
    watch.start();
    return running;
  }

  private async drop(id: number): Promise<void> {
    const running = this.running.get(id);
    this.running.delete(id);
    await running?.watch.stop();
  }

  /**
   * The project's path as its watch (or a subscription) just read it: when it changed (a rename or a move), it is what
   * the subscriptions show from now on and what every replica's watch of it says. Kept apart from the subscriptions,
   * so a rename never writes one back that its subscriber is just ending.
   */
  private async renamed(project: ProjectRef): Promise<void> {
    const { store } = this.o;
    const entry = await store.get<Entry>(entryKey(project.id));
    if (!entry) return;
    const before = (await store.get<string>(nameKey(project.id))) ?? entry.project;
    if (before === project.path) return;
    await store.set(nameKey(project.id), project.path);
    this.o.log.info(`watch: ${before} is now ${project.path} (project ${project.id}); still one watch of it`);
  }

  /** A transition this replica told (it held the lease): to each subscriber's sink, then to every replica's listeners. */
  private async told(project: number, event: WatchEvent): Promise<void> {
    this.o.recorder?.told(event.kind);
    if (event.kind !== 'watching') {
      await this.memory.writtenBackIfLost();
      const subscribers = await this.o.store.keys(watchersPrefix(project));
      const failed: Array<{ subscriber: string; error: unknown }> = [];
      for (const key of subscribers) {
        const subscriber = subscriberOf(key);
        const subscription = await this.o.store.get<Subscription>(subKey(subscriber, project));
        if (subscription)
          await this.deliverTo({ ...subscription, project: event.project }, event).catch((error: unknown) =>
            failed.push({ subscriber, error }),
          );
      }
      // Not told until every subscriber was: the watch tells it again at its next check, to those who missed it. A
      // store gone pauses watching (said once); a delivery another teller has under way is no failure to report.
      if (failed.length > 0) {
        const storeDown = failed.find((f) => f.error instanceof StoreUnavailableError);
        if (storeDown) throw storeDown.error;
        if (failed.every((f) => f.error instanceof DeliveryUnderWay)) throw failed[0].error;
        throw new Error(
          `${event.kind} of ${event.project} was not handed to ${failed.map((f) => f.subscriber).join(', ')}; telling it again at the next check`,
        );
      }
      if (event.kind === 'gone') await this.forget(project, event.project, subscribers);
    }
    // A transition comes from a check that saw the branch change, which announces itself (onChange); only a project
    // gone, which ends the watch without such a check, is announced here: every listener hears one change per check.
    if (event.kind === 'gone')
      await this.announce({ project: event.project, projectId: project, ref: event.ref, kind: event.kind }, 'change');
  }

  private async deliverTo(subscription: Subscription, event: WatchEvent): Promise<void> {
    const sink = this.sinks.find((s) => subscription.subscriber.startsWith(s.prefix));
    if (!sink) return;
    // What each subscriber was told, by the transition's id: a red episode reaches a subscriber two ways (its
    // subscription to a red branch, and the watch telling red), and a transition not yet marked told everywhere is
    // told again; either way each subscriber hears it once. Marked once handed to the sink (its outbox keeps it).
    const delivered = event.id ? `watch:told:${event.id}:to:${part(subscription.subscriber)}` : undefined;
    if (delivered) {
      if ((await this.o.store.get(delivered)) !== undefined) return;
      // One teller at a time per subscriber: another one under way (the subscription's own red) finishes it, or, if
      // it dies, its claim runs out and the next check tells it.
      if (!(await this.o.store.add(`${delivered}:claim`, this.now(), { ttlMs: DELIVERY_CLAIM_MS })))
        throw new DeliveryUnderWay(subscription.subscriber);
    }
    try {
      await sink.deliver(subscription, event);
    } catch (error) {
      this.o.log.error(
        `watch: could not tell ${subscription.subscriber} about ${event.project}: ${(error as Error).message}`,
      );
      if (delivered) await this.o.store.delete(`${delivered}:claim`).catch(() => undefined);
      throw error;
    }
    if (delivered) await this.o.store.add(delivered, this.now(), { ttlMs: EPISODE_TTL_MS });
  }

  /** A project gone (deleted, or the token no longer reads it): its subscriptions end everywhere. */
  private async forget(project: number, path: string, watcherKeys: string[]): Promise<void> {
    for (const key of watcherKeys) {
      await this.o.store.delete(subKey(subscriberOf(key), project));
      await this.o.store.delete(key);
    }
    await this.o.store.delete(entryKey(project));
    await this.o.store.delete(nameKey(project));
    await this.announce({ project: path, projectId: project, ref: '', kind: 'changed' }, 'sync');
  }

  /** Tells every replica (this one included) about a change, a nudge or a new set of watches. */
  private async announce(change: StatusChange, why: 'change' | 'nudge' | 'sync'): Promise<void> {
    const message = JSON.stringify({ ...change, why });
    if (this.o.peers) {
      try {
        await this.o.peers.publish(CHANGES, message);
        return;
      } catch (error) {
        this.failed(error as Error, 'cannot reach the other replicas');
      }
    }
    this.heard(message);
  }

  private heard(text: string): void {
    let message: StatusChange & { why?: string };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (typeof message?.project !== 'string') return;
    if (message.why === 'sync') {
      void this.sync().catch((error: Error) => this.failed(error, 'cannot read the watches'));
      return;
    }
    // By number; a message naming only a path (a webhook's without the number, a replica from before numbers) by the
    // path the watch knows.
    const id = typeof message.projectId === 'number' ? message.projectId : undefined;
    const path = message.project.toLowerCase();
    for (const [key, running] of this.running) {
      if (id !== undefined ? key !== id : running.watch.project.toLowerCase() !== path) continue;
      if (message.why === 'nudge') void running.watch.check().catch(() => undefined);
      else
        for (const listener of running.listeners)
          listener({ project: message.project, projectId: key, ref: String(message.ref ?? ''), kind: message.kind });
    }
  }

  /** A failure in words, once: the store unreachable pauses watching (said when it starts and when it ends). */
  private failed(error: Error, what: string): void {
    if (error instanceof StoreUnavailableError) this.storeFailed();
    else if (error instanceof DeliveryUnderWay)
      this.o.log.debug(`watch: ${what}: ${error.message}; checking again at the next interval`);
    else this.o.log.warn(`watch: ${what}: ${error.message}`);
  }

  private storeFailed(): void {
    if (this.pausedSince !== undefined || this.closed) return;
    this.pausedSince = this.now();
    this.o.log.warn(
      `watch: ${this.paused}; no watch asks the service until it answers again, and watching resumes by itself`,
    );
  }

  private storeAnswered(): void {
    if (this.pausedSince === undefined) return;
    const seconds = Math.round((this.now() - this.pausedSince) / 1000);
    this.pausedSince = undefined;
    this.o.log.info(`watch: watching resumed: ${this.storeName} answers again after ${seconds} s`);
  }

  private get refusedWindowMs(): number {
    return this.o.refusedWindowMs ?? DEFAULT_REFUSED_WATCHES_WINDOW_MS;
  }

  private get storeName(): string {
    return this.o.storeName ?? 'the state store';
  }

  private async read(name: string, input: Record<string, unknown>) {
    const op = this.o.operations().find((o) => o.name === name);
    if (!op) throw new Error(`${name} is not in the registry`);
    return executeOperation(op, input, this.o.runContext());
  }

  private now(): number {
    return this.clock?.now() ?? Date.now();
  }
}
