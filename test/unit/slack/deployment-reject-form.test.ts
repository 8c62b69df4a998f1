// Reject on a deployment message asks why in a form first: the form and its bounded comment, the comment run (after
// the presser confirms exactly that call) as the rejection's, the premise checked when the form is sent, and a form's
// answer never added to a button that takes none.
import { describe, expect, it } from 'vitest';
import type { Operation } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';
import type { Turn } from '../../../src/slack/turn.js';
import { COMMENT_VIEW, MAX_COMMENT_CHARS, commentOf, commentOrigin } from '../../../src/slack/comment-modal.js';
import { MemoryStore } from '../../../src/state/store.js';
import { incidentBot } from '../../helpers/incident-bot.js';
import { buttonLabelled, buttonsOf } from '../../helpers/incident-buttons.js';
import { deploymentEvent } from '../../helpers/deployment-events.js';

/** The bot over the deployment's status as the service has it now (`now.status`), recording every approval sent. */
function setup() {
  const now = { status: 'blocked' };
  const ran: unknown[] = [];
  const ops: Operation[] = operations.map((op) =>
    op.name === 'get_deployment'
      ? ({
          ...op,
          run: async () => ({ data: { id: 31, status: now.status, approvals: [] }, status: 200 }),
        } as Operation)
      : op.name === 'approve_deployment'
        ? // No facts read from a service here: the question words the call from its input alone.
          ({
            ...op,
            facts: undefined,
            run: async (_ctx, input) => {
              ran.push(input);
              return { data: { status: input.status, user: { username: 'ana' } }, status: 201 };
            },
          } as Operation)
        : op,
  );
  return { now, ran, ...incidentBot(new MemoryStore(), ops) };
}

const turn: Turn = { user: { teamId: 'T1', userId: 'U1' }, userName: 'ana', channelId: 'C1' };
const waiting = deploymentEvent(31, 'blocked');

async function postWaiting(bot: ReturnType<typeof setup>) {
  await bot.incidents.deliver({ subscriber: 'slack:T1:C1', project: 'acme/web', since: 0 }, waiting);
  await bot.outbox.drain();
  return { approve: buttonLabelled(bot.calls[0], 'Approve'), reject: buttonLabelled(bot.calls[0], 'Reject') };
}

describe('Reject with a comment', () => {
  it('opens a form for Reject alone, and runs the comment sent with it as the exact call the presser confirms', async () => {
    const bot = setup();
    const { approve, reject } = await postWaiting(bot);
    expect(approve.action_id).toMatch(/^forge_followup:/);
    expect(reject.action_id).toMatch(/^forge_comment:/);
    const view = (await bot.bot.commentForm({ ...turn, responseUrl: 'https://hooks.slack.test/r/1' }, reject.value))!;
    expect(view).toMatchObject({ callback_id: COMMENT_VIEW, title: { text: 'Reject' } });
    expect(commentOrigin(view.private_metadata as string)).toEqual({
      ref: reject.value,
      channelId: 'C1',
      responseUrl: 'https://hooks.slack.test/r/1',
    });
    // Approve takes no comment: no form, and the presser is told so.
    expect(await bot.bot.commentForm(turn, approve.value)).toBeUndefined();
    expect(JSON.stringify(bot.ephemeral.at(-1)!.blocks)).toContain('no longer works');

    const comment = 'Freeze until Monday <!here>\nsee the plan';
    await bot.bot.followUp(turn, reject.value, { comment });
    expect(bot.ran).toEqual([]);
    const question = bot.ephemeral.at(-1)!;
    expect(JSON.stringify(question.blocks)).toContain(
      'comment: \\"Freeze until Monday &lt;!here&gt;\\\\u000asee the plan\\"',
    );
    await bot.bot.approve(turn, buttonsOf(question).find((b) => b.action_id === 'forge_confirm')!.value);
    expect(bot.ran).toEqual([{ id: 'acme/web', deployment_id: 31, status: 'rejected', comment }]);
  });

  it('checks when the form is sent that the deployment still waits, as the plain button does: decided, nothing runs', async () => {
    const bot = setup();
    const { reject } = await postWaiting(bot);
    expect(await bot.bot.commentForm(turn, reject.value)).toBeDefined();
    bot.now.status = 'running';
    await bot.bot.followUp(turn, reject.value, { comment: 'too late' });
    expect(JSON.stringify(bot.ephemeral.at(-1)!.blocks)).toContain(
      'deployment #31 no longer waits for approval: it is running now; nothing was sent.',
    );
    expect(bot.ephemeral.some((m) => JSON.stringify(m.blocks).includes('forge_confirm'))).toBe(false);
    expect(bot.ran).toEqual([]);
  });

  it("never adds a form's comment to a button that takes none: nothing runs", async () => {
    const bot = setup();
    const { approve } = await postWaiting(bot);
    await bot.bot.followUp(turn, approve.value, { comment: 'sneaked in' });
    expect(JSON.stringify(bot.ephemeral.at(-1)!.blocks)).toContain('no longer works');
    expect(bot.ephemeral.some((m) => JSON.stringify(m.blocks).includes('forge_confirm'))).toBe(false);
  });

  it('reads the comment as typed, blank edges trimmed, empty as none, and refuses one beyond the bound', () => {
    const values = (value: string) => ({ comment: { value: { value } } });
    expect(commentOf(values('\n  line one\n  line two  \n'))).toEqual({ comment: '  line one\n  line two' });
    expect(commentOf(values('   \n '))).toEqual({});
    expect(commentOf({})).toEqual({});
    expect(commentOf(values('x'.repeat(MAX_COMMENT_CHARS)))).toEqual({ comment: 'x'.repeat(MAX_COMMENT_CHARS) });
    expect(commentOf(values('x'.repeat(MAX_COMMENT_CHARS + 1)))).toEqual({
      error: `At most ${MAX_COMMENT_CHARS} characters (this is ${MAX_COMMENT_CHARS + 1}).`,
    });
    expect(commentOrigin('{"ref":1}')).toBeUndefined();
    expect(commentOrigin('not json')).toBeUndefined();
  });
});
