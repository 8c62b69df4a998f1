// Where the watch hub keeps its records in the state store (one key scheme, shared by every replica), the
// subscription record itself, and what the hub reads of a watch's state to write it back after a loss.

export const part = (text: string) => encodeURIComponent(text);

/** One subscriber's watch of a project's branch (`ref` absent: the default branch, the only one watched for now). */
export interface Subscription {
  subscriber: string;
  /**
   * The project's number, which the watch is kept by; absent only in a record written before watches were (the hub
   * moves such a record to the number at its next look at the store).
   */
  projectId?: number;
  /** The project's path as last read from the service (path_with_namespace): what is shown. */
  project: string;
  ref?: string;
  /** Who asked for it, in words ("@alice"), and when (epoch ms). */
  by?: string;
  since: number;
}

// The records of a watch, each named by the project's number.
export const subKey = (subscriber: string, project: number) => `watch:sub:${part(subscriber)}:${project}`;
export const subscriberPrefix = (subscriber: string) => `watch:sub:${part(subscriber)}:`;
export const watcherKey = (project: number, subscriber: string) => `watch:subs:${project}:${part(subscriber)}`;
export const watchersPrefix = (project: number) => `watch:subs:${project}:`;
export const failedPrefix = (subscriber: string) => `watch-refused:${part(subscriber)}:`;
export const ENTRY_PREFIX = 'watch:entry:';
export const entryKey = (project: number) => `${ENTRY_PREFIX}${project}`;
/** The project's path as its watch last read it, when that changed since it was watched (a rename or a move). */
export const nameKey = (project: number) => `watch:name:${project}`;
/** The subscriber a key of the watchers' index (or a subscription) ends with. */
export const subscriberOf = (key: string) => decodeURIComponent(key.slice(key.lastIndexOf(':') + 1));
/**
 * The same records as written before watches were kept by number: named by the project's path (encoded, but for the
 * state). Read only to move them to the number (moveToNumbers); the last part of an entry's key tells which it is.
 */
export const byPath = {
  subKey: (subscriber: string, path: string) => `watch:sub:${part(subscriber)}:${part(path)}`,
  watchersPrefix: (path: string) => `watch:subs:${part(path)}:`,
  statePrefix: (path: string) => `watch:state:${path}:`,
};
export const isNumber = (text: string) => /^\d+$/.test(text);
export const CHANGES = 'watch:changes';
/**
 * Written once the watches are in the store: its absence later means the store lost its data (Redis FLUSHALL, or a
 * restart without persistence), and each replica writes back the subscriptions it last saw.
 */
export const EPOCH_KEY = 'watch:epoch';
/** The watches' states (src/watch/branch-watch.ts), one per branch: an open red episode is kept in it. */
export const STATE_PREFIX = 'watch:state:';
/**
 * Where an episode's records live, each followed by the episode's key: what each subscriber was told (here), the
 * Slack message's claim, reference and record (src/slack/incident/sink.ts).
 */
export const EPISODE_RECORD_PREFIXES = ['watch:told:', 'watch:post:', 'watch:msg:', 'watch:incident:'];
/**
 * Where a followed deployment's records live, each followed by `<project>:<deployment id>:`: the watch's transitions
 * told, and the Slack message's record, claim and reference (src/slack/incident/deployment-messages.ts).
 */
export const DEPLOYMENT_RECORD_PREFIXES = [
  'watch:told:deploy:',
  'watch:deploy:',
  'watch:deploy-post:',
  'watch:deploy-msg:',
];

/**
 * Where a channel's "Mute for an hour" of a project lives (src/slack/incident/sink.ts): written back after a loss
 * like an episode's records, so a mute pressed at 3 a.m. still holds when the store comes back empty.
 */
export const MUTE_PREFIX = 'watch:mute:';

/** What the hub reads of a watch's state: its open red episode, and the deployments it follows while they wait. */
export interface StateRead {
  episode?: { key?: unknown };
  deployments?: { open?: unknown };
}

/** The deployments a state follows while they wait (ids). */
export function openDeployments(state: StateRead | undefined): number[] {
  const open = state?.deployments?.open;
  return Array.isArray(open) ? open.filter((id): id is number => typeof id === 'number') : [];
}

/**
 * The key prefixes of the records of the deployments `state` (under `key`) follows. The watch names them by its key
 * (the project's number, or its path as written before numbers), the Slack message by the number or encoded path.
 */
export function deploymentRecordPrefixes(key: string, state: StateRead): string[] {
  const project = key.slice(STATE_PREFIX.length, key.lastIndexOf(':'));
  const names = [...new Set([project, encodeURIComponent(project)])];
  return openDeployments(state).flatMap((id) =>
    DEPLOYMENT_RECORD_PREFIXES.flatMap((prefix) => names.map((name) => `${prefix}${name}:${id}:`)),
  );
}

/**
 * Whether a state remembered before a loss should replace the one the store holds now: none is there, or the one
 * there (written afresh by a watch that checked since) lost the open episode, or a waiting deployment, it followed.
 */
export function rememberedWins(remembered: StateRead, now: StateRead | undefined): boolean {
  if (!now) return true;
  if (remembered.episode) return !now.episode;
  const following = openDeployments(now);
  return openDeployments(remembered).some((id) => !following.includes(id));
}

/** A watched project: its number (absent in an entry from before watches were kept by number) and its path then. */
export interface Entry {
  id?: number;
  project: string;
}
/** A record as last read, with when (hub clock, epoch ms) it expires: written back, it keeps that expiry. */
export interface Remembered {
  value: unknown;
  expiresAt?: number;
}
