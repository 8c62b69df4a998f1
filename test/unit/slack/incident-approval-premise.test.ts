// An incident button whose call waits for approval checks its premise again when the approval comes, not only when it
// was pressed: Retry pressed while main was red, approved after main went green again, retries nothing, and the
// approver and the incident's thread are told why. Retry is made destructive here so that the policy asks; the
// branch's pipelines are what the test says they are at each moment.
import { describe, expect, it } from 'vitest';
import { DurableApprovals } from '../../../src/approval/binding.js';
import type { ApiTransport } from '../../../src/http/types.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { operations } from '../../../src/operations/index.js';
import { AuditLog } from '../../../src/slack/audit.js';
import { SlackBot, type Turn } from '../../../src/slack/bot.js';
import { Identities } from '../../../src/slack/identity.js';
import { Outbox } from '../../../src/slack/incident/outbox.js';
import { IncidentMessages } from '../../../src/slack/incident/sink.js';
import { PostQueue, ResponseUrls } from '../../../src/slack/replies.js';
import { MemoryStore } from '../../../src/state/store.js';
import type { WatchHub } from '../../../src/watch/hub.js';
import { quietLog } from '../../helpers/watch.js';

const RED = { id: 12, status: 'failed', ref: 'main', sha: 'eb4870be0123', updated_at: '2026-11-27T10:20:00Z' };
const GREEN = { id: 13, status: 'success', ref: 'main', sha: '5b1c0ffee123', updated_at: '2026-11-27T11:05:00Z' };
const report: TriageReport = {
  project: 'acme/web',
  default_branch: 'main',
  verdict: 'red',
  because: 'pipeline #12 failed',
  head_pipeline: { id: 12, status: 'failed' },
  red_since: { first_red: { pipeline: 10, sha: 'eb4870be0123' }, suspects: [], more_suspects: false, ping: [] },
  failure: { kind: 'flaky', evidence: 'test passed on retry 1', jobs: [] },
  failed_jobs: [],
  actions: [],
  unread: [],
  as_of: '2026-11-27T10:30:00Z',
};

function setup() {
  const store = new MemoryStore();
  const ran: unknown[] = [];
  /** main's pipelines, newest first, as the service would list them now. */
  const branch = { pipelines: [RED] as Array<Record<string, unknown>> };
  const ops: Operation[] = operations.map((op) => {
    if (op.name === 'retry_pipeline')
      return {
        ...op,
        effect: 'destructive',
        run: async (_ctx, input) => {
          ran.push(input);
          return { data: { ...RED, status: 'running' }, status: 201 };
        },
      } as Operation;
    if (op.name === 'list_pipelines')
      return { ...op, run: async () => ({ data: branch.pipelines, status: 200 }) } as Operation;
    return op;
  });
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
      history: async () => ({ messages: [] }),
    },
  });
  const identities = new Identities({ store, sandboxToken: async () => 'sandbox-token' });
  const incidents = new IncidentMessages({ store, outbox, identities, log: quietLog });
  const ephemeral: Array<Record<string, unknown>> = [];
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
    watches: { hub: {} as WatchHub, incidents },
  });
  return { branch, ran, calls, outbox, incidents, bot, ephemeral };
}

const ana: Turn = { user: { teamId: 'T1', userId: 'U1' }, userName: 'ana', channelId: 'C1' };
type Button = { action_id: string; value: string; text: { text: string } };
const buttonsOf = (message: Record<string, unknown>): Button[] =>
  (message.blocks as Array<{ type: string; elements?: Button[] }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) => b.elements!);
const thread = (calls: Array<Record<string, unknown>>) => calls.filter((c) => c.thread_ts === '100').map((c) => c.text);

/** The incident message posted, Retry pressed on it while main is red: the approval question shown to the presser. */
async function pressRetry(s: ReturnType<typeof setup>): Promise<Button> {
  await s.incidents.deliver(
    { subscriber: 'slack:T1:C1', project: 'acme/web', since: 0 },
    { kind: 'red', project: 'acme/web', ref: 'main', episode: 'acme/web:main:10', report },
  );
  await s.outbox.drain();
  await s.bot.followUp(ana, buttonsOf(s.calls[0]).find((b) => b.text.text === 'Retry failed jobs')!.value);
  return buttonsOf(s.ephemeral.at(-1)!).find((b) => b.action_id === 'forge_confirm')!;
}

describe('an incident button approved after its premise changed', () => {
  it('runs nothing when main went green between the press and the approval, and says why to the approver and the thread', async () => {
    const s = setup();
    const approve = await pressRetry(s);
    s.branch.pipelines = [GREEN, RED];
    await s.bot.approve(ana, approve.value);
    expect(s.ran).toEqual([]);
    const said = JSON.stringify(s.ephemeral.at(-1)!.blocks);
    expect(said).toContain('main is green again since 11:05 UTC (#13); nothing was retried.');
    await s.outbox.drain();
    expect(thread(s.calls)).toEqual([
      '<@U1> pressed *Retry failed jobs* → asked them to approve',
      '<@U1> approved *Retry failed jobs* → not run: main is green again since 11:05 UTC (#13); nothing was retried.',
    ]);
    // The approval was spent on it: a second click runs nothing either.
    await s.bot.approve(ana, approve.value);
    expect(s.ran).toEqual([]);
    expect(JSON.stringify(s.ephemeral.at(-1)!.blocks)).toContain('already used or is unknown');
  });

  it('runs nothing when a newer pipeline started on main meanwhile', async () => {
    const s = setup();
    const approve = await pressRetry(s);
    s.branch.pipelines = [{ ...GREEN, id: 14, status: 'running' }, RED];
    await s.bot.approve(ana, approve.value);
    expect(s.ran).toEqual([]);
    expect(JSON.stringify(s.ephemeral.at(-1)!.blocks)).toContain(
      "pipeline #12 is no longer main's latest (#14 is running); nothing was retried.",
    );
  });

  it('runs the call approved while its premise still holds', async () => {
    const s = setup();
    const approve = await pressRetry(s);
    await s.bot.approve(ana, approve.value);
    expect(s.ran).toEqual([{ id: 'acme/web', pipeline_id: 12 }]);
  });
});
