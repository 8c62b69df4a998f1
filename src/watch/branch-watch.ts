// Watching one project's branch: a cheap check each interval (the branch's latest pipeline, one request; one more while
// a red episode follows an open revert of its culprit, whose own pipeline is told too), a triage only when a finished
// pipeline changed, and the red episode's transitions (red, running, still red, green) emitted
// once across replicas: a lease in the state store says which process polls the project, and a key per transition
// says it was already told. What the watch has seen lives in the store too, so a replica taking over carries on.
import { type Clock, realClock } from '../clock.js';
import { randomUUID } from 'node:crypto';
import { executeOperation } from '../operations/engine/execute.js';
import type { ApiTransport } from '../http/types.js';
import type { Operation, RunContext } from '../operations/engine/define.js';
import { asList, asRecord, show, type Fields } from '../operations/engine/present.js';
import type { TriageReport } from '../operations/composed/triage.js';
import {
  isMergeOf,
  mergedBranchOf,
  type FixingMergeRequest,
  type KnownMergeRequest,
} from '../operations/composed/fixed-by.js';
import { revertMatch } from '../operations/composed/open-reverts.js';
import { StoreUnavailableError } from '../state/redis-store.js';
import type { StateStore } from '../state/store.js';
import {
  deploymentSeenOf,
  deploymentTransition,
  deploymentsQuery,
  followedAfter,
  worthTelling,
  type DeploymentSeen,
  type DeploymentsFollowed,
} from './deployment-watch.js';
import { WATCH_JITTER, WatchLease } from './watch-lease.js';

/** How often a watch checks by default; each check costs one request when nothing changed. */
export const DEFAULT_WATCH_INTERVAL_MS = 30_000;
/** Watches in all, on every replica (counted in the store): a stranger cannot make forgeops poll without bound. */
export const MAX_WATCHES = 200;
/** The longest a service's Retry-After holds a watch back: a wrong or hostile header cannot stop watching for hours. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;
/** The answers whose Retry-After a watch honours: the service says it is rate limiting or unavailable. */
const RETRY_AFTER_STATUSES = new Set([429, 503]);
/** A red episode's keys outlive any incident worth watching, then go. */
export const EPISODE_TTL_MS = 30 * 24 * 3600_000;
/** A deployment in one of these has ended: nothing more moves it. */
const ENDED_DEPLOYMENT = new Set(['success', 'failed', 'canceled', 'skipped']);

const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped']);

export interface CommitRef {
  sha: string;
  title?: string;
  author?: string;
}

/**
 * The merge request reverting the culprit that a red episode follows: named by triage at red or still red, or opened
 * by a press (the Slack sink writes it). While one is known and open, each check also reads it (its pipeline).
 */
export interface FollowedRevert extends KnownMergeRequest {
  reverts: string;
}

/** Where an episode's followed revert is kept: any replica's sink may write it, the watch holding the lease reads it. */
export const revertKey = (episode: string) => `watch:revert:${episode}`;
/**
 * A rollback pressed during the episode (set by the incident sink): the deploy job its retry made. Its deployment is
 * of an older commit's pipeline (a tag's, say), which moves no pipeline of the branch: the watch reads the project's
 * deployments at each check while it is set, until that job's deployment ends.
 */
export const rollbackJobKey = (episode: string) => `watch:rollback-job:${episode}`;

/** What a watch tells: the state when it starts (not red), then each transition of a red episode. */
export type WatchEvent = (
  | { kind: 'watching'; project: string; ref: string; report: TriageReport }
  | { kind: 'red'; project: string; ref: string; episode: string; report: TriageReport }
  | {
      kind: 'running';
      project: string;
      ref: string;
      episode: string;
      pipeline: { id: number; sha: string; status: string };
    }
  | { kind: 'still-red'; project: string; ref: string; episode: string; report: TriageReport }
  | {
      kind: 'green';
      project: string;
      ref: string;
      episode: string;
      redForMs: number;
      fixedBy: CommitRef;
      /** The merge request whose merge turned it green, when it came through one (reverts: it reverted the culprit). */
      fixedByMergeRequest?: FixingMergeRequest;
      report: TriageReport;
    }
  /** The followed revert's own pipeline changed (it runs on its source branch, not the watched one). */
  | {
      kind: 'revert';
      project: string;
      ref: string;
      episode: string;
      revert: FollowedRevert;
      pipeline: { id: number; status: string; web_url?: string };
      /** The first failed job, when the pipeline failed. */
      failedJob?: { id: number; name: string };
    }
  /** The project can no longer be read (deleted, or the token no longer has access): the watch has stopped. */
  | { kind: 'gone'; project: string; ref: string; reason: string }
  /** A deployment waits for approvals, moved on since it waited, or failed (./deployment-watch.ts says which). */
  | { kind: 'deployment'; project: string; ref: string; deployment: DeploymentSeen }
) & {
  /** The transition's name, the same on every replica ("<episode>:red"): what a sink remembers it was told. */
  id?: string;
  /** The project's number, when the watch is kept by it (the hub's): what a sink keys its own records by. */
  projectId?: number;
};

interface BranchWatchOptions {
  /** The project's path as shown (path_with_namespace): the watch follows a rename it reads from the service. */
  project: string;
  /**
   * The project's number: what the watch reads it by and names its keys by (lease, state, episodes), so a project
   * renamed or moved stays one watch. Absent (the terminal's watch of its own): the path is both.
   */
  projectId?: number;
  /** The watch read a new path for its project (it was renamed or moved): the one its messages say from now on. */
  onRenamed?: (path: string) => void | Promise<void>;
  /** The branch; the project's default branch when absent. */
  ref?: string;
  /** Follow the project's deployments too (a sink that tells of them is listening); off by default. */
  followDeployments?: boolean;
  /** The registry (a late view, as triage takes it): the watch reads through its operations only. */
  operations: () => readonly Operation[];
  /** The context each read runs in (the service client, a signal). */
  runContext: () => RunContext;
  store: StateStore;
  onEvent: (event: WatchEvent) => void | Promise<void>;
  /** A check that failed (it is tried again next interval, but for a refusal, which ends the watch). */
  onError?: (error: Error) => void;
  /** The branch's latest pipeline changed (told or not): what a status resource's subscribers hear. */
  onChange?: (change: { project: string; ref: string; kind?: WatchEvent['kind'] }) => void | Promise<void>;
  /** Each check's outcome, a failed one included (a check that throws still reports 'failed' first). */
  onCheck?: (result: CheckOutcome) => void;
  /** Each request the watch sends the service (a retry included): what watching costs it. */
  onServiceRequest?: () => void;
  /**
   * The branch's state as last seen with an open red episode, asked only when the store has none: the store lost its
   * data (a state is never deleted), and the episode goes on (ends in its message) instead of starting afresh.
   */
  remembered?: (key: string) => WatchState | undefined;
  clock?: Clock;
  intervalMs?: number;
  /** 0 ≤ random() < 1, for the jitter (tests fix it). */
  random?: () => number;
  /** This process's name in the lease; unique per watch by default. */
  holder?: string;
}

/** The lease's key: one per project (its number, or its path), whatever branch, so one process polls a project. */
/** Where a watch keeps what it has seen of a branch, an open red episode included. */
export const stateKey = (project: string | number, ref: string) => `watch:state:${project}:${ref}`;

interface PipelineSeen {
  id: number;
  sha: string;
  status: string;
  updated_at: string;
}

interface Episode {
  key: string;
  firstRed: number;
  /** When the first red pipeline was created (epoch ms). */
  since?: number;
  /** The finished pipeline the episode was last told about, as "id@updated_at". */
  lastTold: string;
  /** Told results so far: keys a running update apart from the one before the previous retry. */
  attempt: number;
  /** The first red commit: what a merged merge request is judged to revert at green. */
  culprit?: string;
  /** The followed revert's pipeline as last told ("iid:id:status:updated_at"). */
  revertSeen?: string;
  /** A followed revert found merged or closed: not read again (a later one, of another number, is). */
  revertDone?: number;
}

export interface WatchState {
  latest?: PipelineSeen;
  finished?: string;
  episode?: Episode;
  /** Where following the project's deployments is (with followDeployments). */
  deployments?: DeploymentsFollowed;
}

/**
 * What one check did: polled (and what changed); skipped because another process holds the lease; paused because
 * the state store cannot be reached (nothing asked of the service); deferred because the service asked to wait.
 */
type CheckResult = 'not-holder' | 'unchanged' | 'changed' | 'paused' | 'deferred';
/** A check's outcome as counted: a result, or a check that failed. */
export type CheckOutcome = CheckResult | 'failed';

const seenOf = (p: Fields): PipelineSeen => ({
  id: Number(p.id),
  sha: String(p.sha),
  status: String(p.status),
  updated_at: String(p.updated_at),
});
const finishedKey = (p: PipelineSeen) => `${p.id}@${p.updated_at}`;

/** A watch that cannot be made (a cap reached, a branch triage does not judge): said to the person, never retried. */
export class WatchRefusedError extends Error {}

/** The service's answers that end a watch: the project is gone (404) or the token may no longer read it (401, 403). */
export const GONE_STATUSES = new Set([401, 403, 404]);
/** How long a "gone" stays told: a project deleted and made again may be watched, and told about, again. */
const GONE_TTL_MS = 3600_000;

/**
 * The red episode a report is in: one key per first red pipeline of the branch, the same on every replica. An episode
 * keeps the key it was given for life (its records and messages are found by it), so this names new episodes only.
 */
export function episodeKeyOf(project: string | number, report: TriageReport): string | undefined {
  if (report.verdict !== 'red' || !report.red_since) return undefined;
  return `${project}:${report.default_branch}:${report.red_since.first_red.pipeline}`;
}

export class BranchWatch {
  /** What the project's keys are named by: its number, else its path. */
  readonly key: string;
  /** The project's path as last read. */
  private name: string;
  private ref: string | undefined;
  private readonly clock: Clock;
  private readonly intervalMs: number;
  private readonly random: () => number;
  readonly holder: string;
  private cancelWake: (() => void) | undefined;
  private stopped = true;
  /** stop() or abandon() was called: the watch is over. */
  private ended = false;
  private checking: Promise<CheckResult> | undefined;
  /** The transition the check under way told, if any: what its change is announced as. */
  private toldInCheck: WatchEvent['kind'] | undefined;
  private followUp: Promise<CheckResult> | undefined;
  /** Until when (clock ms) the service asked not to be asked again (Retry-After). */
  private quietUntil = 0;
  /** Which replica polls the project. */
  private readonly lease: WatchLease;
  /** This check's answer that asked to wait (Retry-After), when one did. */
  private throttled: Error | undefined;

  constructor(private readonly options: BranchWatchOptions) {
    this.name = options.project;
    this.key = String(options.projectId ?? options.project);
    this.clock = options.clock ?? realClock;
    this.intervalMs = options.intervalMs ?? DEFAULT_WATCH_INTERVAL_MS;
    this.random = options.random ?? Math.random;
    this.holder = options.holder ?? randomUUID();
    this.lease = new WatchLease({
      store: options.store,
      project: this.key,
      holder: this.holder,
      intervalMs: this.intervalMs,
      random: this.random,
    });
  }

  /** How long the lease lasts (see WatchLease). */
  get leaseMs(): number {
    return this.lease.ms;
  }

  /** The project's path as last read (or told by the replica that read it): what its events say. */
  get project(): string {
    return this.name;
  }

  /** The path another replica read for the project, taken while this one stands by (the holder reads its own). */
  rename(path: string): void {
    this.name = path;
  }

  /** Whether this watch held the lease at its last check: it is the one polling the project. */
  get holding(): boolean {
    return this.lease.held && !this.stopped;
  }

  /** Checks now, then every interval (with jitter) until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.tick();
  }

  /** Stops checking and gives the lease back, so another process takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ended = true;
    this.cancelWake?.();
    await this.checking?.catch(() => undefined);
    await this.lease.release();
  }

  /** Stops checking without giving the lease back: what a process that dies does. */
  abandon(): void {
    this.stopped = true;
    this.ended = true;
    this.cancelWake?.();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    let delay = this.intervalMs * (1 + WATCH_JITTER * this.random());
    try {
      if ((await this.check()) === 'not-holder') delay = this.lease.standbyMs;
      else if (this.lease.held && !this.stopped) await this.lease.renew();
    } catch (error) {
      // A refusal ends the watch; any other failed check (the service down, a timeout) is tried again next interval.
      if (error instanceof WatchRefusedError) {
        this.stopped = true;
        this.options.onError?.(error);
        return;
      }
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && GONE_STATUSES.has(status)) {
        this.stopped = true;
        await this.gone(error as Error).catch((failed: Error) => this.options.onError?.(failed));
        return;
      }
      const wait = retryAfterMs(error);
      if (wait !== undefined) delay = Math.max(delay, await this.holdOff(wait));
      this.options.onError?.(error as Error);
    }
    if (this.stopped) return;
    this.cancelWake = this.clock.wakeAt(this.clock.now() + delay, () => void this.tick());
  }

  /** One check: take or renew the lease, ask for the branch's latest pipeline, and act on a change. */
  check(): Promise<CheckResult> {
    // Checks never overlap. One asked for while another runs (a webhook's nudge) may be about a change that one read
    // too early: one more check follows it, however many were asked for meanwhile.
    if (this.checking) {
      this.followUp ??= this.checking
        .catch(() => undefined)
        .then(() => {
          this.followUp = undefined;
          // A watch stopped meanwhile takes no lease again.
          return this.ended ? 'not-holder' : this.check();
        });
      return this.followUp;
    }
    this.checking = this.checkOnce()
      .then(async (result) => {
        const kind = this.toldInCheck;
        this.toldInCheck = undefined;
        if (result === 'changed' && this.ref !== undefined)
          await this.options.onChange?.({ project: this.name, ref: this.ref, ...(kind ? { kind } : {}) });
        return result;
      })
      .catch((error: unknown) => {
        // The store failing mid-check leaves nothing half told: what was seen is saved only after it was told.
        if (error instanceof StoreUnavailableError) return 'paused' as const;
        this.options.onCheck?.('failed');
        throw error;
      })
      .then((result) => {
        this.options.onCheck?.(result);
        return result;
      })
      .finally(() => {
        this.checking = undefined;
      });
    return this.checking;
  }

  private async checkOnce(): Promise<CheckResult> {
    // A nudge in the quiet time the service asked for waits for the next check after it.
    if (this.clock.now() < this.quietUntil) return 'deferred';
    this.throttled = undefined;
    if (!(await this.lease.take())) return 'not-holder';
    const ref = (this.ref ??= await this.branch());
    const key = stateKey(this.key, ref);
    const state =
      (await this.options.store.get<WatchState>(key)) ?? structuredClone(this.options.remembered?.(key)) ?? {};
    const result = await this.checkBranch(ref, key, state);
    // The revert's own pipeline is read only while the episode follows one: no red, or no revert, costs nothing more.
    if (await this.followRevert(ref, state)) await this.options.store.set(key, state);
    // Likewise a rollback's deployment, when the branch's own change did not read the deployments already.
    if (result === 'unchanged' && (await this.followRollback(ref, state))) await this.options.store.set(key, state);
    return result;
  }

  /** The branch's latest pipeline, read and judged when it changed; what was seen is saved once it was told. */
  private async checkBranch(ref: string, key: string, state: WatchState): Promise<CheckResult> {
    const started = state.latest === undefined;
    const [latest] = asList(
      (
        await this.read('list_pipelines', {
          id: this.readId,
          ref,
          per_page: 1,
          ...(state.latest ? { updated_after: state.latest.updated_at } : {}),
        })
      ).data,
    );
    const seen = latest ? seenOf(latest) : undefined;
    const same =
      seen &&
      state.latest &&
      seen.id === state.latest.id &&
      seen.status === state.latest.status &&
      seen.updated_at === state.latest.updated_at;
    if (!started && (!seen || same)) return 'unchanged';
    if (seen) state.latest = seen;
    await this.followDeployments(ref, state, seen, started);
    if (seen && !FINISHED.has(seen.status)) {
      if (state.episode) {
        const episode = state.episode;
        const transition = `${episode.key}:running:${seen.id}:${episode.attempt}`;
        // No triage reads the project for this one: its path is read, so the message says the current one.
        if (!(await this.wasTold(transition))) await this.learnPath();
        await this.tell(transition, {
          kind: 'running',
          project: this.name,
          ref,
          episode: episode.key,
          pipeline: { id: seen.id, sha: seen.sha, status: seen.status },
        });
      }
      if (!started) {
        await this.options.store.set(key, state);
        return 'changed';
      }
    }
    if (!started && seen && state.finished === finishedKey(seen)) {
      await this.options.store.set(key, state);
      return 'changed';
    }
    if (seen && FINISHED.has(seen.status)) state.finished = finishedKey(seen);
    await this.judge(ref, state, seen, started);
    await this.options.store.set(key, state);
    return 'changed';
  }

  /** A finished pipeline changed (or the watch just started): triage says red or green, and the episode moves on. */
  private async judge(ref: string, state: WatchState, seen: PipelineSeen | undefined, started: boolean): Promise<void> {
    const report = (await this.read('triage_project', { id: this.readId })).data as TriageReport;
    await this.learned(report.project);
    const base = { project: this.name, ref };
    if (report.verdict === 'red' && report.red_since) {
      const firstRed = report.red_since.first_red;
      const told = seen ? finishedKey(seen) : String(report.head_pipeline?.id);
      // The same episode while its first red pipeline is: one begun under another key (the project's path, before
      // watches were kept by number) goes on under it.
      if (state.episode?.firstRed !== firstRed.pipeline) {
        const episodeKey = episodeKeyOf(this.key, report)!;
        state.episode = {
          key: episodeKey,
          firstRed: firstRed.pipeline,
          ...(firstRed.since ? { since: Date.parse(firstRed.since) } : {}),
          lastTold: told,
          attempt: 0,
          culprit: firstRed.sha,
        };
        await this.followNamed(episodeKey, report);
        await this.tell(`${episodeKey}:red`, { kind: 'red', ...base, episode: episodeKey, report });
      } else if (state.episode.lastTold !== told) {
        const episodeKey = state.episode.key;
        state.episode.lastTold = told;
        state.episode.attempt += 1;
        state.episode.culprit ??= firstRed.sha;
        await this.followNamed(episodeKey, report);
        await this.tell(`${episodeKey}:still-red:${told}`, { kind: 'still-red', ...base, episode: episodeKey, report });
      }
      return;
    }
    if (report.verdict === 'green' && state.episode) {
      const episode = state.episode;
      state.episode = undefined;
      const greenAt = seen ? Date.parse(seen.updated_at) : this.clock.now();
      const fixedBy: CommitRef =
        report.head && (!seen || report.head.sha === seen.sha)
          ? { sha: report.head.sha, title: report.head.title, author: report.head.author }
          : { sha: seen?.sha ?? report.head_pipeline?.id.toString() ?? '' };
      const redForMs = Math.max(0, (Number.isNaN(greenAt) ? this.clock.now() : greenAt) - (episode.since ?? greenAt));
      // Read again only if not told yet: a replica taking over after the green was told asks nothing more.
      const fixedByMergeRequest = (await this.wasTold(`${episode.key}:green`))
        ? undefined
        : await this.fixingMergeRequest(ref, episode, fixedBy);
      await this.tell(`${episode.key}:green`, {
        kind: 'green',
        ...base,
        episode: episode.key,
        redForMs,
        fixedBy,
        ...(fixedByMergeRequest ? { fixedByMergeRequest } : {}),
        report,
      });
      return;
    }
    if (started) await this.options.onEvent({ kind: 'watching', ...base, report, ...this.numbered });
  }

  /** The revert a red report names (triage found it open): the one the episode follows from now on. */
  private async followNamed(episode: string, report: TriageReport): Promise<void> {
    const named = report.open_reverts?.[0];
    const culprit = report.red_since?.first_red.sha;
    if (!named || !culprit) return;
    const followed: FollowedRevert = {
      iid: named.iid,
      source_branch: named.source_branch,
      title: named.title,
      ...(named.sha ? { sha: named.sha } : {}),
      reverts: culprit,
    };
    await this.options.store.set(revertKey(episode), followed, { ttlMs: EPISODE_TTL_MS });
  }

  /**
   * One read of the revert the episode follows (its merge request, with its head pipeline): a change of that pipeline
   * is told, with its first failed job when it failed; merged or closed, it is read no more. True: the state changed.
   */
  private async followRevert(ref: string, state: WatchState): Promise<boolean> {
    const episode = state.episode;
    if (!episode) return false;
    const revert = await this.options.store.get<FollowedRevert>(revertKey(episode.key));
    if (!revert || revert.iid === episode.revertDone) return false;
    try {
      const mr = asRecord(
        (await this.read('get_merge_request', { id: this.readId, merge_request_iid: revert.iid })).data,
      );
      if (mr.state !== 'opened') {
        episode.revertDone = revert.iid;
        return true;
      }
      const pipeline = asRecord(mr.head_pipeline ?? mr.pipeline);
      if (pipeline.id === undefined) return false;
      const seen = `${revert.iid}:${show(pipeline.id)}:${show(pipeline.status)}:${show(pipeline.updated_at)}`;
      if (episode.revertSeen === seen) return false;
      const followed: FollowedRevert = { ...revert, ...(typeof mr.sha === 'string' ? { sha: mr.sha } : {}) };
      if (followed.sha !== revert.sha)
        await this.options.store.set(revertKey(episode.key), followed, { ttlMs: EPISODE_TTL_MS });
      const status = show(pipeline.status);
      const failedJob = status === 'failed' ? await this.firstFailedJob(Number(pipeline.id)) : undefined;
      // The branch's own change (if any) is what this check announces, not the revert's.
      const toldBefore = this.toldInCheck;
      await this.tell(`${episode.key}:revert:${seen}`, {
        kind: 'revert',
        project: this.name,
        ref,
        episode: episode.key,
        revert: followed,
        pipeline: {
          id: Number(pipeline.id),
          status,
          ...(typeof pipeline.web_url === 'string' ? { web_url: pipeline.web_url } : {}),
        },
        ...(failedJob ? { failedJob } : {}),
      });
      this.toldInCheck = toldBefore;
      episode.revertSeen = seen;
      return true;
    } catch (error) {
      // Only the branch's own reads end or hold back the watch: a revert deleted is followed no more, and any other
      // failure is tried again next interval.
      if (error === this.throttled || error instanceof StoreUnavailableError) throw error;
      if ((error as { status?: unknown }).status === 404) {
        episode.revertDone = revert.iid;
        return true;
      }
      this.options.onError?.(error as Error);
      return false;
    }
  }

  /** The first failed job of a pipeline (one short read), for "failed at test". */
  private async firstFailedJob(pipelineId: number): Promise<{ id: number; name: string } | undefined> {
    const [job] = asList(
      (
        await this.read('list_pipeline_jobs', {
          id: this.readId,
          pipeline_id: pipelineId,
          scope: ['failed'],
          per_page: 1,
        })
      ).data,
    );
    return job ? { id: Number(job.id), name: show(job.name) } : undefined;
  }

  /**
   * The merge request whose merge is the green commit: the revert the episode followed, else the one the merge
   * commit's title names (one read, once an episode), said to revert the culprit when it does.
   */
  private async fixingMergeRequest(
    ref: string,
    episode: Episode,
    commit: CommitRef,
  ): Promise<FixingMergeRequest | undefined> {
    const followed = await this.options.store.get<FollowedRevert>(revertKey(episode.key));
    if (followed && isMergeOf(commit, followed))
      return { iid: followed.iid, ...(followed.title ? { title: followed.title } : {}), reverts: followed.reverts };
    const branch = mergedBranchOf(commit.title, ref);
    if (!branch) return undefined;
    try {
      const [mr] = asList(
        (
          await this.read('list_project_merge_requests', {
            id: this.readId,
            state: 'merged',
            source_branch: branch,
            target_branch: ref,
            per_page: 1,
          })
        ).data,
      );
      if (!mr) return undefined;
      const reverts = episode.culprit && revertMatch(mr, { sha: episode.culprit }) ? episode.culprit : undefined;
      return { iid: Number(mr.iid), title: show(mr.title), ...(reverts ? { reverts } : {}) };
    } catch (error) {
      // The green is told all the same, naming the commit.
      if (error === this.throttled || error instanceof StoreUnavailableError) throw error;
      return undefined;
    }
  }

  /**
   * The project's deployments that moved since the last read, each worth telling told once. Read only in a check that
   * saw the branch's latest pipeline change, which keeps a quiet watch at one request per interval: every move of a
   * deploy job of the branch moves its pipeline (a manual deploy's stage opening, its approval starting the job, a
   * rejection failing it, the job ending), and the pipelines read asks for any updated since the last look, so an older
   * pipeline's deploy counts too. A move that touches no pipeline of the branch (a tag's deploy) is read at the branch's
   * next change, as the read asks for everything updated since its cursor. A failed read is said and tried again at
   * the next change; it does not fail the check (a service without the Deployments API still gets its branch watched).
   */
  private async followDeployments(
    ref: string,
    state: WatchState,
    seen: PipelineSeen | undefined,
    started: boolean,
  ): Promise<DeploymentSeen[] | undefined> {
    if (!this.options.followDeployments) return;
    // Watching starts from now: deployments that moved before are not told.
    if (started || !state.deployments) {
      state.deployments = { cursor: seen?.updated_at ?? new Date(this.clock.now()).toISOString(), open: [] };
      return;
    }
    let read: DeploymentSeen[];
    try {
      read = asList((await this.read('list_deployments', deploymentsQuery(this.readId, state.deployments))).data).map(
        deploymentSeenOf,
      );
    } catch (error) {
      if (error instanceof StoreUnavailableError || error === this.throttled) throw error;
      this.options.onError?.(new Error(`could not read the deployments of ${this.name}: ${(error as Error).message}`));
      return;
    }
    const followed = state.deployments;
    for (const deployment of read)
      if (worthTelling(deployment, followed))
        await this.tell(deploymentTransition(this.key, deployment), {
          kind: 'deployment',
          project: this.name,
          ref,
          deployment,
        });
    state.deployments = followedAfter(followed, read);
    return read;
  }

  /** A rollback's deployment, followed while the episode has one under way: true when the deployments were read. */
  private async followRollback(ref: string, state: WatchState): Promise<boolean> {
    const episode = state.episode;
    if (!episode || !state.deployments) return false;
    const job = await this.options.store.get<number>(rollbackJobKey(episode.key));
    if (job === undefined) return false;
    const read = await this.followDeployments(ref, state, undefined, false);
    if (read?.some((d) => d.job?.id === job && ENDED_DEPLOYMENT.has(d.status)))
      await this.options.store.delete(rollbackJobKey(episode.key));
    return true;
  }

  /** The project can no longer be read: said once, the lease given back; the watch does not check again. */
  private async gone(error: Error): Promise<void> {
    const ref = this.ref ?? this.options.ref ?? '';
    const event: WatchEvent = {
      kind: 'gone',
      project: this.name,
      ref,
      reason: error.message.split('\n')[0],
      ...this.numbered,
    };
    if (await this.options.store.add(`watch:told:${this.key}:${ref}:gone`, this.clock.now(), { ttlMs: GONE_TTL_MS }))
      await this.options.onEvent(event);
    await this.lease.release();
  }

  /** Emits `event` unless some process already did (SET NX on the transition's key). */
  private async tell(key: string, event: WatchEvent): Promise<void> {
    // Marked told only once it was handed on: a process dying (or the store failing) in between leaves it untold,
    // and the next check — here or on the replica taking over — tells it again; the sinks remember what each
    // subscriber was told by the transition's id, so nobody hears it twice.
    const told = `watch:told:${key}`;
    if (await this.wasTold(key)) return;
    await this.options.onEvent({ ...event, id: key, ...this.numbered });
    this.toldInCheck = event.kind;
    await this.options.store.add(told, this.clock.now(), { ttlMs: EPISODE_TTL_MS });
  }

  private async wasTold(transition: string): Promise<boolean> {
    return (await this.options.store.get(`watch:told:${transition}`)) !== undefined;
  }

  /** What the service is asked about the project by: its number when known, so a rename changes nothing read. */
  private get readId(): string | number {
    return this.options.projectId ?? this.options.project;
  }

  /** The project's number on each event, for a watch kept by it. */
  private get numbered(): { projectId?: number } {
    return this.options.projectId === undefined ? {} : { projectId: this.options.projectId };
  }

  /** Reads the project's path now (one request). */
  private async learnPath(): Promise<void> {
    const project = asRecord((await this.read('get_project', { id: this.readId })).data);
    if (typeof project.path_with_namespace === 'string') await this.learned(project.path_with_namespace);
  }

  /** A path read for the project: a new one (a rename or move) is what its events say from now on, and is told. */
  private async learned(path: string): Promise<void> {
    // A full path always has its namespace before a slash; anything else (a report that could not read the project
    // names it by what it was asked) is no path.
    if (!path.includes('/') || path === this.name) return;
    this.name = path;
    await this.options.onRenamed?.(path);
  }

  /**
   * The service asked for `waitMs` of quiet: no check before it ends, and the lease held through it, so no other
   * replica asks in the meantime either. Returns the wait, bounded.
   */
  private async holdOff(waitMs: number): Promise<number> {
    const wait = Math.min(waitMs, MAX_RETRY_AFTER_MS);
    this.quietUntil = this.clock.now() + wait;
    await this.lease.holdThrough(wait);
    return wait;
  }

  /** The branch watched: the default one, read once. Triage judges the default branch, so another is refused. */
  private async branch(): Promise<string> {
    const project = asRecord((await this.read('get_project', { id: this.readId })).data);
    if (typeof project.path_with_namespace === 'string') await this.learned(project.path_with_namespace);
    const defaultBranch = typeof project.default_branch === 'string' ? project.default_branch : 'main';
    if (this.options.ref !== undefined && this.options.ref !== defaultBranch) {
      throw new WatchRefusedError(
        `only the default branch (${defaultBranch}) of ${this.name} can be watched for now: triage judges that branch`,
      );
    }
    return defaultBranch;
  }

  private async read(name: string, input: Record<string, unknown>) {
    const op = this.options.operations().find((o) => o.name === name);
    if (!op) throw new Error(`${name} is not in the registry`);
    const context = this.options.runContext();
    const result = await executeOperation(op, input, { ...context, client: this.watched(context.client) });
    // Triage reads on past a read that failed (saying what it could not read); one the service refused for now,
    // with a Retry-After, fails the check instead, so nothing is judged on it and the change is judged again later.
    if (this.throttled) throw this.throttled;
    return result;
  }

  /** The transport, counting each request sent (a retry is one more) and noting an answer that asks to wait. */
  private watched(client: ApiTransport): ApiTransport {
    const count = this.options.onServiceRequest;
    return {
      request: async (req) => {
        count?.();
        try {
          return await client.request({
            ...req,
            onProgress: (event) => {
              if (event.kind === 'retry') count?.();
              req.onProgress?.(event);
            },
          });
        } catch (error) {
          if (retryAfterMs(error) !== undefined) this.throttled ??= error as Error;
          throw error;
        }
      },
      get lastAnswerAt() {
        return client.lastAnswerAt;
      },
    };
  }
}

/** How long a failed read's Retry-After asks to wait (ms), when the service said it is rate limiting or unavailable. */
function retryAfterMs(error: unknown): number | undefined {
  const { status, retryAfterSeconds } = error as { status?: unknown; retryAfterSeconds?: unknown };
  if (typeof status !== 'number' || !RETRY_AFTER_STATUSES.has(status)) return undefined;
  return typeof retryAfterSeconds === 'number' && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : undefined;
}
