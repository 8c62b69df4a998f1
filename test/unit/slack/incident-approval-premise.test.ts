// An incident button whose call waits for approval checks its premise again when the approval comes, not only when it
// was pressed: Retry pressed while main was red, approved after main went green again, retries nothing, and the
// approver and the incident's thread are told why. Retry is made destructive here so that the policy asks; the
// branch's pipelines are what the test says they are at each moment.
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';
import type { Turn } from '../../../src/slack/turn.js';
import { MemoryStore } from '../../../src/state/store.js';
import { incidentBot, threadOf } from '../../helpers/incident-bot.js';
import { type Button, buttonLabelled, buttonsOf, postRedIncident } from '../../helpers/incident-buttons.js';

const RED = { id: 12, status: 'failed', ref: 'main', sha: 'eb4870be0123', updated_at: '2026-11-27T10:20:00Z' };
const GREEN = { id: 13, status: 'success', ref: 'main', sha: '5b1c0ffee123', updated_at: '2026-11-27T11:05:00Z' };

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
  const { calls, outbox, incidents, bot, ephemeral } = incidentBot(store, ops);
  return { branch, ran, calls, outbox, incidents, bot, ephemeral };
}

const ana: Turn = { user: { teamId: 'T1', userId: 'U1' }, userName: 'ana', channelId: 'C1' };

/** The incident message posted, Retry pressed on it while main is red: the approval question shown to the presser. */
async function pressRetry(s: ReturnType<typeof setup>): Promise<Button> {
  await postRedIncident(s);
  await s.bot.followUp(ana, buttonLabelled(s.calls[0], 'Retry failed jobs').value);
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
    expect(threadOf(s.calls)).toEqual([
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
