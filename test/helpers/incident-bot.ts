// The Slack incident tests' shared pieces: a red triage report to deliver, and the bot over a memory store with an
// outbox whose Slack records every post and update (each answered at once), so a test reads the thread it drew.
import { DurableApprovals } from '../../src/approval/binding.js';
import type { ApiTransport } from '../../src/http/types.js';
import type { TriageReport } from '../../src/operations/composed/triage.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { AuditLog } from '../../src/slack/audit.js';
import { SlackBot } from '../../src/slack/bot.js';
import { Identities } from '../../src/slack/identity.js';
import { Outbox } from '../../src/slack/incident/outbox.js';
import { IncidentMessages } from '../../src/slack/incident/sink.js';
import { PostQueue, ResponseUrls } from '../../src/slack/replies.js';
import type { MemoryStore } from '../../src/state/store.js';
import type { WatchHub } from '../../src/watch/hub.js';
import { quietLog } from './watch.js';

/** A Slack for an outbox that records each post and update by method and answers posts with ts 100, 101, … */
export function recordingSlack() {
  const calls: Array<{ method: string; args: Record<string, unknown> }> = [];
  let ts = 100;
  const slack: ConstructorParameters<typeof Outbox>[0]['slack'] = {
    postMessage: async (args) => {
      calls.push({ method: 'post', args: { ...args } });
      return { ts: String(ts++) };
    },
    update: async (args) => {
      calls.push({ method: 'update', args: { ...args } });
      return {};
    },
    // Every post is answered here, so none is ever looked for.
    history: async () => ({ messages: [] }),
  };
  return { slack, calls };
}

/** acme/web's main red since pipeline #10, its head #12 failed, as of 2026-11-27T10:30Z; `changes` set the rest. */
export function redReport(changes: Partial<TriageReport> = {}): TriageReport {
  return {
    project: 'acme/web',
    default_branch: 'main',
    verdict: 'red',
    because: 'failed',
    head_pipeline: { id: 12, status: 'failed' },
    red_since: { first_red: { pipeline: 10, sha: 'eb4870be0123' }, suspects: [], more_suspects: false, ping: [] },
    failed_jobs: [],
    actions: [],
    unread: [],
    as_of: '2026-11-27T10:30:00Z',
    ...changes,
  };
}

/** The bot running `ops` on `store`, its incident messages through a recording outbox; the thread's ts is '100'. */
export function incidentBot(store: MemoryStore, ops: Operation[]) {
  const calls: Array<Record<string, unknown>> = [];
  const outbox = new Outbox({
    store,
    log: quietLog,
    slack: {
      postMessage: async (args) => {
        calls.push({ ...args });
        return { ts: '100' };
      },
      update: async (args) => {
        calls.push({ ...args });
        return {};
      },
      // Every post is answered here, so none is ever looked for.
      history: async () => ({ messages: [] }),
    },
  });
  const identities = new Identities({ store, sandboxToken: async () => 'sandbox-token' });
  const incidents = new IncidentMessages({ store, outbox, identities, log: quietLog });
  const ephemeral: Array<Record<string, unknown>> = [];
  const nudged: Array<string | number> = [];
  const bot = new SlackBot({
    operations: ops,
    client: {} as ApiTransport,
    store,
    identities,
    settings: { botToken: 'xoxb-test', readOnlyChannels: new Set(), inChannel: new Set(), readOnly: false },
    approvals: new DurableApprovals(store),
    audit: new AuditLog(undefined, quietLog),
    responses: new ResponseUrls(quietLog),
    queue: new PostQueue({ log: quietLog, post: async () => {} }),
    web: {
      postEphemeral: async (args) => {
        ephemeral.push({ ...args });
      },
      unfurl: async () => {},
    },
    explain: { operations: ops },
    callTimeoutMs: 5_000,
    log: quietLog,
    // The hub's one part a press uses: the look it asks for right after (the projects named, in order).
    watches: { hub: { nudge: async (project: string | number) => void nudged.push(project) } as WatchHub, incidents },
  });
  return { calls, outbox, incidents, bot, ephemeral, nudged };
}

/** The texts posted in the incident message's thread. */
export const threadOf = (calls: Array<Record<string, unknown>>) =>
  calls.filter((c) => c.thread_ts === '100').map((c) => c.text);
