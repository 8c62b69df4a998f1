// The incident message's buttons through the bot: a press runs as the presser through the follow-up path, and when
// the policy asks for approval the presser is asked, the thread says so, and then says what ran (exactly the
// call shown) or that they declined. Retry is made destructive here so that the policy asks.
import { describe, expect, it } from 'vitest';
import { operations } from '../../../src/operations/index.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import type { TriageReport } from '../../../src/operations/composed/triage.js';
import { PremiseCheck } from '../../../src/operations/composed/button-premise.js';
import type { Turn } from '../../../src/slack/turn.js';
import { MemoryStore } from '../../../src/state/store.js';
import type { ApiTransport } from '../../../src/http/types.js';
import { incidentBot, threadOf } from '../../helpers/incident-bot.js';
import {
  buttonLabelled,
  buttonsOf,
  FLAKY_RED_REPORT as report,
  postRedIncident,
} from '../../helpers/incident-buttons.js';

function setup() {
  const store = new MemoryStore();
  const ran: unknown[] = [];
  const retry = operations.find((op) => op.name === 'retry_pipeline')!;
  const ops: Operation[] = operations.map((op) =>
    op.name === 'rollback_environment'
      ? // Its facts (the environment's deployments) are read from no service here: the call it is asked about is the
        // button's own, pinned as triage offered it.
        ({
          ...op,
          facts: undefined,
          run: async (_ctx, input) => {
            ran.push(input);
            return { data: { environment: { id: 2, name: 'staging' } }, status: 201 };
          },
        } as Operation)
      : op === retry
        ? ({
            ...retry,
            effect: 'destructive',
            run: async (_ctx, input) => {
              ran.push(input);
              return { data: { id: 12, status: 'running', ref: 'main', sha: 'eb4870be0123' }, status: 201 };
            },
          } as Operation)
        : op.name === 'list_pipelines'
          ? // The button's premise, read when pressed: pipeline #12 is still main's latest and still failed.
            ({
              ...op,
              run: async () => ({
                data: [{ id: 12, status: 'failed', ref: 'main', sha: 'eb4870be0123' }],
                status: 200,
              }),
            } as Operation)
          : op.name === 'get_deployment' || op.name === 'list_deployments'
            ? // A rollback's premise, read when pressed: staging's deployment #12 is still its newest.
              ({
                ...op,
                run: async () => ({
                  data: op.name === 'get_deployment' ? { id: 12, status: 'success' } : [{ id: 12, status: 'success' }],
                  status: 200,
                }),
              } as Operation)
            : op,
  );
  return { store, ran, ...incidentBot(store, ops) };
}

const turn = (user: string): Turn => ({
  user: { teamId: 'T1', userId: user },
  userName: user === 'U1' ? 'ana' : 'bea',
  channelId: 'C1',
});

describe('incident buttons through the bot', () => {
  it('asks the presser to approve, and the thread says who asked, who approved and what ran: exactly the call shown', async () => {
    const { incidents, outbox, calls, bot, ephemeral, ran, nudged } = setup();
    await postRedIncident({ incidents, outbox });
    const retry = buttonLabelled(calls[0], 'Retry failed jobs');
    await bot.followUp(turn('U1'), retry.value);
    const question = ephemeral.at(-1)!;
    expect(JSON.stringify(question.blocks)).toContain('pipeline_id');
    const approve = buttonsOf(question).find((b) => b.action_id === 'forge_confirm')!;
    // Someone else cannot approve it; nothing runs and the thread hears nothing of it.
    await bot.approve(turn('U2'), approve.value);
    expect(ran).toEqual([]);
    expect(nudged, 'nothing ran: the watch is not asked to look').toEqual([]);
    await bot.approve(turn('U1'), approve.value);
    expect(ran).toEqual([{ id: 'acme/web', pipeline_id: 12 }]);
    // The retried pipeline is looked at now, not at the watch's next interval.
    expect(nudged).toEqual(['acme/web']);
    await outbox.drain();
    expect(threadOf(calls)).toEqual([
      '<@U1> pressed *Retry failed jobs* → asked them to approve',
      expect.stringMatching(/^<@U1> approved \*Retry failed jobs\* → .*12/),
    ]);
  });

  it('offers Roll back for an environment the culprit is live in, after the retry, and runs exactly the pinned call once approved', async () => {
    const { incidents, outbox, calls, bot, ephemeral, ran } = setup();
    const input = { id: 'acme/web', environment: 2, to: 7, current_deployment_id: 12 };
    const live: TriageReport = {
      ...report,
      actions: [{ label: 'Roll back staging', operation: 'rollback_environment', input, style: 'danger' }],
    };
    await postRedIncident({ incidents, outbox }, live);
    const labels = buttonsOf(calls[0]).map((b) => b.text.text);
    expect(labels).toContain('Roll back staging');
    expect(labels.indexOf('Roll back staging')).toBe(labels.indexOf('Retry failed jobs') + 1);
    await bot.followUp(turn('U1'), buttonLabelled(calls[0], 'Roll back staging').value);
    expect(ran).toEqual([]);
    const question = ephemeral.at(-1)!;
    expect(JSON.stringify(question.blocks)).toContain('current_deployment_id');
    await bot.approve(turn('U1'), buttonsOf(question).find((b) => b.action_id === 'forge_confirm')!.value);
    expect(ran).toEqual([input]);
    await outbox.drain();
    expect(threadOf(calls)[0]).toBe('<@U1> pressed *Roll back staging* → asked them to approve');
  });

  it("a rollback's premise is the environment's current deployment, pinned in its call: the branch is not read for it", async () => {
    const read: string[] = [];
    const premises = new PremiseCheck(() =>
      operations.map(
        (op) =>
          ({
            ...op,
            run: async () => {
              read.push(op.name);
              return { data: [], status: 200 };
            },
          }) as Operation,
      ),
    );
    expect(
      await premises.check({ kind: 'rollback', project: 'acme/web', ref: 'main' }, { client: {} as ApiTransport }),
    ).toEqual({
      holds: true,
    });
    expect(read).toEqual([]);
    await premises.check({ kind: 'incident', project: 'acme/web', ref: 'main' }, { client: {} as ApiTransport });
    expect(read).toEqual(['list_pipelines']);
  });

  it("a rollback drawn on a deployment stands while none came after it (a manual job's unplayed one aside)", async () => {
    let deployments: Array<Record<string, unknown>> = [
      { id: 14, status: 'created' },
      { id: 12, status: 'success' },
    ];
    const premises = new PremiseCheck(() =>
      operations.map(
        (op) =>
          ({
            ...op,
            run: async () => ({
              data: op.name === 'list_deployments' ? deployments : { id: 12, status: 'success' },
              status: 200,
            }),
          }) as Operation,
      ),
    );
    const pressed = () =>
      premises.check(
        { kind: 'rollback', project: 'acme/web', ref: 'main', deployment_id: 12, environment: 'production' },
        { client: {} as ApiTransport },
      );
    expect(await pressed()).toEqual({ holds: true });
    deployments = [{ id: 15, status: 'blocked' }, ...deployments];
    expect(await pressed()).toEqual({
      holds: false,
      changed: 'deployment #15 to production came after #12 (it is blocked); nothing was rolled back.',
    });
  });

  it('says in the thread that the presser declined, and nothing ran', async () => {
    const { incidents, outbox, calls, bot, ephemeral, ran } = setup();
    await postRedIncident({ incidents, outbox });
    await bot.followUp(turn('U1'), buttonLabelled(calls[0], 'Retry failed jobs').value);
    const cancel = buttonsOf(ephemeral.at(-1)!).find((b) => b.action_id === 'forge_cancel')!;
    await bot.cancel(turn('U1'), cancel.value);
    await outbox.drain();
    expect(ran).toEqual([]);
    expect(threadOf(calls)).toEqual([
      '<@U1> pressed *Retry failed jobs* → asked them to approve',
      '<@U1> declined *Retry failed jobs*: nothing was run',
    ]);
  });

  it('refuses a button pressed in another channel, and mutes through its own button', async () => {
    const { incidents, outbox, calls, bot, ephemeral, ran } = setup();
    await postRedIncident({ incidents, outbox });
    const retry = buttonLabelled(calls[0], 'Retry failed jobs');
    await bot.followUp({ ...turn('U1'), channelId: 'C2' }, retry.value);
    expect(JSON.stringify(ephemeral.at(-1)!.blocks)).toContain('no longer works');
    expect(ran).toEqual([]);
    await bot.mute(turn('U2'), buttonsOf(calls[0]).find((b) => b.action_id === 'forge_mute')!.value);
    expect(JSON.stringify(ephemeral.at(-1)!.blocks)).toContain(
      'Muted: no new incident or deployment message for acme/web in this channel for an hour',
    );
    await outbox.drain();
    expect(threadOf(calls)).toEqual([expect.stringContaining('<@U2> pressed Mute for an hour')]);
  });
});
