// Deployment approvals and failed deployments in a watching Slack channel, end to end against the sandbox (jobs sped
// up) and a fake Slack: main made green, its production deployment waits, and the channel gets ONE message for it
// with Approve and Reject; a developer's approval is refused by the service to them alone and spends nothing; alice
// (maintainer, not the deployer: root triggers every pipeline here) approves and the message follows the deploy to
// its end; a press after that runs nothing. Reject asks why in a form and ends a deployment in its message, the
// comment shown escaped; a deploy that fails is an alert.
import { describe, expect, it } from 'vitest';
import {
  buttonsOf,
  type MessageButton,
  messageText,
  type RecordedCall,
  viewSubmitBody,
  waitFor,
} from '../helpers/slack.js';
import { type Body, useWatchedChannel } from '../helpers/slack-bot.js';
import { api } from '../unit/sandbox/sandbox-client.js';

const CULPRIT = "Show order dates in the store's time zone";
const WEB = `/projects/${encodeURIComponent('acme/web')}`;
// U1 is alice (maintainer of acme), U2 bob (developer: he may read deployments, not approve them).
const { env, bots, posts, updatesOf, threadOf } = useWatchedChannel('deployments', {
  U1: 'maintainer',
  U2: 'developer',
});

const plain = (call: RecordedCall) => String(call.args.text);
const labels = (call: RecordedCall) => buttonsOf(call.args).map((b) => b.text.text);
const approvalsSent = () =>
  env.sandbox.requests.filter({ method: 'POST' }).filter((r) => /\/deployments\/\d+\/approval$/.test(r.path));

/** The message of the next deployment that waits for approval (one not in `seen`), and its deployment's id. */
async function waitingMessage(seen: number[]): Promise<{ message: RecordedCall; id: number; ts: string }> {
  const message = await waitFor(
    () =>
      posts().find((c) => {
        const id = /Deployment #(\d+) .* waits for approval/.exec(plain(c))?.[1];
        return id !== undefined && !seen.includes(Number(id));
      }),
    40_000,
    'a message about a deployment waiting for approval',
  );
  const id = Number(/Deployment #(\d+)/.exec(plain(message))![1]);
  const ts = await waitFor(() => message.answer?.ts as string | undefined, 5_000, "the message's ts");
  return { message, id, ts };
}

/** Presses a button as `user` and answers yes when the policy asks them first; the last answer. */
async function pressAndConfirm(button: MessageButton, user: string): Promise<Body> {
  const first = await bots.press(button, { user });
  const yes = buttonsOf(first).find((b) => b.action_id === 'forge_confirm');
  return yes ? bots.press(yes, { user }) : first;
}

/** Presses a button that asks for a comment as `user`: the form Slack was asked to open, and the press's answer path. */
async function openCommentForm(button: MessageButton, user: string) {
  const opened = bots.slack.calls.filter((c) => c.method === 'views.open').length;
  const path = await bots.click(button, { user });
  const call = await waitFor(
    () => bots.slack.calls.filter((c) => c.method === 'views.open')[opened],
    15_000,
    'the comment form',
  );
  const view = call.args.view as {
    callback_id: string;
    private_metadata: string;
    blocks: Array<Record<string, unknown>>;
  };
  return { view, path };
}

/** Sends the comment form as `user`: Slack's answer to the submission (undefined: it closed). */
async function submitComment(view: { private_metadata: string }, comment: string, user: string) {
  const sent = await bots.post(
    viewSubmitBody('forge_comment', { comment }, { user, privateMetadata: view.private_metadata }),
  );
  expect(sent.status).toBe(200);
  return sent.text ? (JSON.parse(sent.text) as Record<string, unknown>) : undefined;
}

/** The latest version of a message that says `text`. */
const updated = (ts: string, text: RegExp, what: string) =>
  waitFor(() => updatesOf(ts).find((c) => text.test(plain(c))), 30_000, what);

async function asRoot(method: string, path: string, json?: unknown): Promise<void> {
  const answer = await api(env.sandbox, method, path, { as: 'admin', ...(json === undefined ? {} : { json }) });
  expect(answer.status, answer.text).toBe(201);
}

const seen: number[] = [];

describe('deployments in a watching channel', () => {
  it("asks for approval in one message, refuses a developer's approval to him alone, and follows alice's to deployed", async () => {
    await bots.command('watch acme/web', { user: 'U1' });
    // main passes once bob's time-zone commit is reverted (by root): its pipeline reaches production, which waits.
    const commits = (await api(env.sandbox, 'GET', `${WEB}/repository/commits?ref_name=main&per_page=100`)).data;
    const culprit = (commits as Array<{ id: string; title: string }>).find((c) => c.title === CULPRIT)!.id;
    await asRoot('POST', `${WEB}/repository/commits/${culprit}/revert`, { branch: 'main' });

    const { message, id, ts } = await waitingMessage(seen);
    seen.push(id);
    expect(plain(message)).toMatch(
      new RegExp(
        `^acme/web: Deployment #${id} of [0-9a-f]{8} \\(main\\) to production waits for approval — deployed by @root$`,
      ),
    );
    expect(messageText(message.args)).toContain('1 approval needed');
    expect(labels(message)).toEqual(['Approve', 'Reject']);
    const [approve] = buttonsOf(message.args);

    // bob may not approve: the service says so (403), to him alone; the button stays for the next person.
    const refused = await pressAndConfirm(approve, 'U2');
    // It replaces bob's own ephemeral question: Slack shows it to him alone.
    expect(refused).toMatchObject({ replace_original: true });
    expect(refused.response_type).not.toBe('in_channel');
    expect(messageText(refused)).toContain("You don't have permission to approve this deployment");
    expect(approvalsSent().map((r) => r.status)).toEqual([403]);
    expect(threadOf(ts).filter((c) => /permission|403|failed/.test(plain(c)))).toEqual([]);

    // alice approves with the same button: the message says so, then follows the deploy to its end, buttons gone.
    const approved = await pressAndConfirm(approve, 'U1');
    expect(messageText(approved)).toMatch(/Deployment #\d+ approved by alice/);
    await updated(ts, /\(approved by @alice\)$/, 'the message saying alice approved');
    const deployed = await updated(
      ts,
      new RegExp(
        `Deployment #${id} of [0-9a-f]{8} \\(main\\) to production deployed — deployed by @root \\(approved by @alice\\)$`,
      ),
      'the message saying it deployed',
    );
    expect(labels(deployed)).toEqual([]);
    await waitFor(
      () => threadOf(ts).find((c) => plain(c).startsWith('<@U1> approved *Approve* → ')),
      15_000,
      "alice's approval in the thread",
    );

    // Approve pressed again on the first version: its premise no longer holds, nothing is sent, the presser hears why.
    const again = await bots.press(approve, { user: 'U1' });
    expect(again.response_type).toBe('ephemeral');
    expect(messageText(again)).toMatch(
      new RegExp(
        `deployment #${id} no longer waits for approval: it is success now, approved by alice; nothing was sent`,
      ),
    );
    expect(approvalsSent().map((r) => r.status)).toEqual([403, 201]);
    expect(posts().filter((c) => plain(c).includes(`Deployment #${id} `))).toHaveLength(1);
  }, 90_000);

  it("asks why in a form when Reject is pressed; cancelled it changes nothing, sent it rejects with alice's comment shown safely", async () => {
    await asRoot('POST', `${WEB}/pipeline`, { ref: 'main' });
    const { message, id, ts } = await waitingMessage(seen);
    seen.push(id);
    const reject = buttonsOf(message.args).find((b) => b.text.text === 'Reject')!;
    expect(reject.action_id).toMatch(/^forge_comment:\d+$/);

    // Pressed, Reject opens the form and runs nothing; closed with Cancel (Slack tells no one), nothing changed.
    const cancelled = await openCommentForm(reject, 'U1');
    expect(cancelled.view).toMatchObject({ callback_id: 'forge_comment', title: { text: 'Reject' } });
    expect(JSON.stringify(cancelled.view.blocks)).toContain(`It rejects deployment #${id}`);
    expect(cancelled.view.blocks[1]).toMatchObject({
      block_id: 'comment',
      optional: true,
      element: { multiline: true, max_length: 250 },
    });
    expect(bots.answersTo(cancelled.path)).toEqual([]);
    expect(approvalsSent()).toHaveLength(2);

    // A comment longer than the bound (a client that ignored max_length) stays in the form, and nothing is asked.
    const form = await openCommentForm(reject, 'U1');
    expect(await submitComment(form.view, 'x'.repeat(251), 'U1')).toMatchObject({
      response_action: 'errors',
      errors: { comment: 'At most 250 characters (this is 251).' },
    });
    // Sent with a reason that tries to mention, link and break the line: the question shows the exact call, and
    // the yes runs exactly that, as alice.
    const comment = 'Not during the <!channel> freeze <@U2>\nsee <https://evil.example|the plan>';
    expect(await submitComment(form.view, comment, 'U1')).toBeUndefined();
    const question = await bots.answer(form.path, 'the approval question');
    const shownCall = (question.blocks as Array<{ text?: { text: string } }>)[1].text!.text;
    expect(shownCall).toContain(`deployment_id: ${id}\n  status: "rejected"\n`);
    expect(shownCall).toContain(
      'comment: "Not during the &lt;!channel&gt; freeze &lt;@U2&gt;\\u000asee &lt;https://evil.example|the plan&gt;"',
    );
    const answer = await bots.press(buttonsOf(question).find((b) => b.action_id === 'forge_confirm')!, { user: 'U1' });
    expect(messageText(answer)).toMatch(/Deployment #\d+ rejected by alice/);
    const rejected = await updated(
      ts,
      /to production was rejected — deployed by @root \(rejected by @alice\)$/,
      'the rejection',
    );
    expect(labels(rejected)).toEqual([]);
    const shown = messageText(rejected.args);
    expect(shown).toContain('rejected by @alice: Not during the &lt;!channel&gt; freeze &lt;@U2&gt;');
    expect(shown).toContain('see &lt;https://evil.example|the plan&gt;');
    expect(shown).not.toMatch(/<!channel>|<@U2>|<https:/);
    const deployment = (await api(env.sandbox, 'GET', `${WEB}/deployments/${id}`)).data;
    expect(deployment).toMatchObject({ status: 'failed', deployable: { failure_reason: 'deployment_rejected' } });
    expect(deployment.approvals).toEqual([expect.objectContaining({ status: 'rejected', comment })]);
    expect(approvalsSent()).toHaveLength(3);
    expect(threadOf(ts).filter((c) => plain(c).includes('failed'))).toEqual([]);
  }, 60_000);

  it('raises an alert when an approved deploy fails: the job named, its log and a retry a button away', async () => {
    await asRoot('POST', `${WEB}/repository/commits`, {
      branch: 'main',
      commit_message: 'Scale production down for the migration',
      actions: [{ action: 'create', file_path: 'deploy/production.env', content: 'REPLICAS=0\n' }],
    });
    const { message, id, ts } = await waitingMessage(seen);
    await pressAndConfirm(buttonsOf(message.args).find((b) => b.text.text === 'Approve')!, 'U1');
    const failed = await updated(ts, new RegExp(`Deployment #${id} .* to production failed`), 'the failed deployment');
    expect(messageText(failed.args)).toMatch(/job deploy:production \(#\d+\)/);
    expect(labels(failed)).toEqual(['Show the log', 'Retry deploy:production']);
    const alert = await waitFor(
      () =>
        threadOf(ts).find((c) => plain(c).includes(`Deployment #${id} to production failed: job deploy:production`)),
      15_000,
      'the alert in the thread',
    );
    expect(plain(alert)).toContain(':rotating_light:');
    const [showLog, retry] = buttonsOf(failed.args);
    const log = await bots.press(showLog, { user: 'U2' });
    expect(log.response_type).toBe('ephemeral');
    expect(messageText(log)).toContain('health check failed');

    // Retry deploys the commit again: a new deployment, which waits for approval in a message of its own. Pressed
    // again, the old deployment is no longer production's newest: nothing is retried.
    seen.push(id);
    await pressAndConfirm(retry, 'U1');
    const next = await waitingMessage(seen);
    expect(next.id).toBeGreaterThan(id);
    const retries = () => env.sandbox.requests.filter({ method: 'POST' }).filter((r) => r.path.endsWith('/retry'));
    const before = retries().length;
    const stale = await bots.press(retry, { user: 'U1' });
    expect(messageText(stale)).toContain(
      `deployment #${next.id} to production came after #${id} (it is blocked); nothing was retried.`,
    );
    expect(retries()).toHaveLength(before);
  }, 60_000);
});
