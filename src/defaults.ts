// The defaults and names the configuration (config.ts) shares with the code that uses them, in a module that imports
// nothing, so that reading the configuration loads none of that code and no feature folder sits below config.ts.

// MCP transports (mcp/limits.ts says how a refusal names them).
/**
 * One input message, over stdio or HTTP. Big enough for a whole-file update of a large source file in base64
 * (12 MiB of file → 16 MiB of JSON); the SDK's own stdio reader would die at 10 MiB.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/**
 * Live Streamable HTTP sessions per replica. Sized for a team: 1,000 sessions that each made a call held 153 MiB of
 * RSS in all (about 70 KB a session, measured by tools/bench/sessions.mjs), and a flood is held back by closing
 * half-open sessions after the handshake time and idle ones only once the cap is reached.
 */
export const DEFAULT_MAX_SESSIONS = 1000;

// Approvals (approval/page-store.ts).
/**
 * What a call needing a human does, chosen by the operator (FORGEOPS_APPROVAL):
 * - elicit: the client's form elicitation; else URL elicitation to the approval page; else refuse.
 * - page:   always the approval page (never a form the client might let the model answer).
 * - refuse: the client's form elicitation; else refuse.
 * - allow:  the client's form elicitation; else run without asking.
 */
export const APPROVAL_POLICIES = ['elicit', 'page', 'refuse', 'allow'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** A replica's name (FORGEOPS_REPLICA_ID), as it starts session and approval ids for a balancer to route by. */
export const REPLICA_NAME = '[a-z0-9][a-z0-9-]{0,31}';

// The watch.
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
