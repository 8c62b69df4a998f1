// The defaults of the watch settings the configuration offers (src/config.ts), kept apart from the watch code so that
// reading the configuration loads none of it.

/**
 * Watch attempts refused by the service (a made-up or unreadable project) one subscriber may make per window: each
 * costs service requests, so a flood of made-up names costs at most this many before they are refused unasked.
 */
export const DEFAULT_REFUSED_WATCHES = 10;
/** How long a refused attempt counts against its subscriber. */
export const DEFAULT_REFUSED_WATCHES_WINDOW_MS = 10 * 60_000;

/** Two checks of one project asked for by webhooks start at least this far apart. */
export const DEFAULT_NUDGE_SPACING_MS = 5_000;
/** A longer spacing would make a webhook no quicker than polling at the default interval (30 s) many times over. */
export const MAX_NUDGE_SPACING_MS = 10 * 60_000;
