// Finding an incident post Slack may have accepted without our hearing back (a timeout, a dropped connection, a
// replica that died before saving the ts): every post carries message metadata naming its outbox entry, and the
// channel's history around the attempts is searched for it before the post is sent again.

const INCIDENT_EVENT_TYPE = 'forgeops_incident';

/** What a post carries to be recognised later: its episode, its channel, and its outbox entry's id. */
export interface PostMarker {
  episode: string;
  channel: string;
  id: string;
}

export interface MessageMetadata {
  event_type: string;
  event_payload: Record<string, string>;
}

interface HistoryArgs {
  channel: string;
  oldest: string;
  latest: string;
  inclusive: boolean;
  limit: number;
  include_all_metadata: boolean;
  cursor?: string;
}

interface HistoryPage {
  messages?: Array<{ ts?: string; metadata?: { event_type?: string; event_payload?: Record<string, unknown> } }>;
  has_more?: boolean;
  response_metadata?: { next_cursor?: string };
}

/** conversations.history (scope channels:history, groups:history for private channels). */
export type HistoryCall = (args: HistoryArgs) => Promise<HistoryPage>;

/**
 * Messages asked for per call: 15 is the most Slack gives a non-Marketplace app distributed to other workspaces, so
 * the lookup works the same whichever way the app is installed; the window is narrow enough that one page is usual.
 */
const PAGE = 15;
/** Pages read before giving up on one lookup (a busy channel): it is then tried again like a failed one. */
const MAX_PAGES = 4;
/** Slack's clock and ours may differ; a message's ts is Slack's time of posting. */
const CLOCK_MARGIN_MS = 60_000;
/** An attempt's request may reach Slack this long after it was started (the client's timeout, with room). */
const REQUEST_MARGIN_MS = 60_000;

export function incidentMetadata(marker: PostMarker): MessageMetadata {
  return {
    event_type: INCIDENT_EVENT_TYPE,
    event_payload: { episode: marker.episode, channel: marker.channel, id: marker.id },
  };
}

const slackTime = (ms: number) => (Math.max(0, ms) / 1000).toFixed(6);

/**
 * The ts of the post marked `marker` if the channel has it, between the first attempt's start and the last one's
 * end; undefined when the whole window was read and it is not there. Throws when Slack refuses (missing scope, rate
 * limit) or the window holds more than this looks through: the caller cannot tell, so it must not post yet.
 */
export async function findPosted(
  history: HistoryCall,
  marker: PostMarker,
  attempts: { first: number; last: number },
): Promise<string | undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const answer = await history({
      channel: marker.channel,
      oldest: slackTime(attempts.first - CLOCK_MARGIN_MS),
      latest: slackTime(attempts.last + REQUEST_MARGIN_MS + CLOCK_MARGIN_MS),
      inclusive: true,
      limit: PAGE,
      include_all_metadata: true,
      ...(cursor ? { cursor } : {}),
    });
    const found = (answer.messages ?? []).find(
      (m) => m.metadata?.event_type === INCIDENT_EVENT_TYPE && m.metadata.event_payload?.id === marker.id,
    );
    if (found?.ts) return found.ts;
    cursor = answer.response_metadata?.next_cursor || undefined;
    if (!answer.has_more || !cursor) return undefined;
  }
  throw new Error(
    `more than ${PAGE * MAX_PAGES} messages in ${marker.channel} around the attempts; looked through the newest`,
  );
}
