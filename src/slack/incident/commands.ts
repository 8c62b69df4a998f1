// `/forge watch <project> [branch]`, `/forge unwatch <project>` and `/forge watching`: a channel subscribes to a
// project's default branch in the watch hub (kept in the state store, so it survives restarts). The person must be
// able to read the project with their own identity before the channel watches it; the answer says what now stands.
import { momentText } from '../../operations/engine/present.js';
import { WatchRefusedError } from '../../watch/branch-watch.js';
import type { WatchHub } from '../../watch/hub.js';
import type { IncidentMessages } from './sink.js';
import { subscriberOf } from './sink.js';

export const WATCH_WORDS = new Set(['watch', 'unwatch', 'watching']);

export interface WatchCommandContext {
  hub: WatchHub;
  incidents: IncidentMessages;
  teamId: string;
  channel: string;
  /** Who asks, as the listing names them ("@ana"). */
  by: string;
  /** The project as the asker may read it: its full path, or why they cannot (run as them, through the dispatcher). */
  readProject(project: string): Promise<{ ok: true; path: string } | { ok: false; why: string }>;
  /** The channel's default project (`/forge use`), for a watch that names none. */
  defaultProject(): Promise<string | undefined>;
  /** A pasted link to the service, as the project it names. */
  projectOf(word: string): string;
  now?: () => number;
}

interface WatchAnswer {
  text: string;
  ok: boolean;
  /** Shared news: the channel sees that it is now watched (or no longer). */
  inChannel: boolean;
}

const USAGE = 'Usage: `/forge watch <project> [branch]`, `/forge unwatch <project>`, `/forge watching`.';

export async function watchCommand(words: readonly string[], ctx: WatchCommandContext): Promise<WatchAnswer> {
  const [word, ...rest] = words;
  const subscriber = subscriberOf(ctx.teamId, ctx.channel);
  const now = ctx.now?.() ?? Date.now();
  if (word === 'watching') {
    if (rest.length > 0) return { text: USAGE, ok: false, inChannel: false };
    const list = await ctx.hub.subscriptions(subscriber);
    if (list.length === 0)
      return { text: 'This channel watches nothing. `/forge watch <project>` starts.', ok: true, inChannel: false };
    const lines = list.map(
      (s) =>
        `• ${s.project} (default branch), since ${momentText(new Date(s.since), now)}${s.by ? `, by ${s.by}` : ''}`,
    );
    return { text: `This channel watches:\n${lines.join('\n')}`, ok: true, inChannel: false };
  }
  if (word === 'unwatch') {
    if (rest.length !== 1) return { text: USAGE, ok: false, inChannel: false };
    const named = ctx.projectOf(rest[0]);
    // Named any way it can be watched by (case, encoded, its number): the hub finds the one watch.
    const watched = await ctx.hub.find(subscriber, named);
    if (!watched)
      return { text: `This channel was not watching ${named}; nothing changed.`, ok: false, inChannel: false };
    await ctx.hub.unsubscribe({ subscriber, project: watched.projectId ?? watched.project });
    return {
      text: `Stopped watching ${watched.project} in this channel (watched since ${momentText(new Date(watched.since), now)}${watched.by ? `, by ${watched.by}` : ''}).`,
      ok: true,
      inChannel: true,
    };
  }
  if (rest.length > 2) return { text: USAGE, ok: false, inChannel: false };
  const asked = rest[0] !== undefined ? ctx.projectOf(rest[0]) : await ctx.defaultProject();
  if (asked === undefined) return { text: `Name a project. ${USAGE}`, ok: false, inChannel: false };
  const readable = await ctx.readProject(asked);
  if (!readable.ok)
    return { text: `Not watching ${asked}: you cannot read it (${readable.why}).`, ok: false, inChannel: false };
  try {
    const { created, report, subscription, episode } = await ctx.hub.subscribe({
      subscriber,
      project: readable.path,
      ...(rest[1] !== undefined ? { ref: rest[1] } : {}),
      by: ctx.by,
    });
    const where = `${subscription.project} ${report.default_branch}`;
    const already = created ? 'Watching' : 'Already watching';
    let state = `it is ${report.verdict} now`;
    if (episode) {
      // The subscription told the sink at once: a message claimed now is on its way; one claimed before is above.
      const claimed = await ctx.incidents.messageClaimedAt(episode, ctx.channel);
      const muted = await ctx.incidents.mutedUntil(ctx.channel, {
        id: subscription.projectId,
        path: subscription.project,
      });
      state =
        claimed === undefined
          ? `it is red now${muted ? ` (muted here until ${momentText(new Date(muted), now)}: no message)` : ''}`
          : `it is red now (${claimed < now ? 'its message is above' : 'message below'})`;
    }
    return { text: `${already} ${where} in this channel: ${state}.`, ok: true, inChannel: created };
  } catch (error) {
    if (error instanceof WatchRefusedError)
      return { text: `Not watching ${readable.path}: ${error.message}.`, ok: false, inChannel: false };
    return {
      text: `Could not watch ${readable.path}: ${(error as Error).message.split('\n')[0]}`,
      ok: false,
      inChannel: false,
    };
  }
}
