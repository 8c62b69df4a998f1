// Rolling production back from the Slack incident message, end to end against the sandbox (jobs sped up) and a fake
// Slack: a channel watches acme/web (red, bob's culprit live in production); Roll back production pressed by bob
// (developer) is confirmed, then refused by the service to him alone and changes nothing; pressed by alice
// (maintainer) it is confirmed naming production, the commit it runs now and the one it will run, and runs just that;
// the new deployment waits in a deployment message, root (another maintainer) presses Approve, production runs
// v1.1.0's commit again and the incident's thread says so; Roll back pressed again then runs nothing.
import { describe, expect, it } from 'vitest';
import { shortSha } from '../../src/operations/engine/present.js';
import { buttonsOf, type MessageButton, messageText, type RecordedCall, waitFor } from '../helpers/slack.js';
import { type Body, useWatchedChannel } from '../helpers/slack-bot.js';
import { api } from '../unit/sandbox/sandbox-client.js';

const WEB = `/projects/${encodeURIComponent('acme/web')}`;
// U1 is alice (maintainer of acme), U2 bob (developer), U4 root (owner: the second maintainer who approves alice's).
const { env, bots, posts, updatesOf, threadOf } = useWatchedChannel('rollback', {
  U1: 'maintainer',
  U2: 'developer',
  U4: 'admin',
});
const plain = (call: RecordedCall) => String(call.args.text);
const writes = () => env.sandbox.requests.all().filter((r) => r.method !== 'GET');

/** Production as the service has it: its id and its last successful deployment. */
async function production(): Promise<{ id: number; last: { id: number; sha: string; ref: string } }> {
  const listed = (await api(env.sandbox, 'GET', `${WEB}/environments?name=production`, { as: 'admin' })).data;
  const id = Number((listed as Array<{ id: number }>)[0].id);
  const environment = (await api(env.sandbox, 'GET', `${WEB}/environments/${id}`, { as: 'admin' })).data as {
    last_deployment: { id: number; sha: string; ref: string };
  };
  return { id, last: environment.last_deployment };
}

/** The deployment `to` a rollback goes back to, as the service has it. */
async function deployment(id: number): Promise<{ sha: string; ref: string; deployable: { id: number; name: string } }> {
  return (await api(env.sandbox, 'GET', `${WEB}/deployments/${id}`, { as: 'admin' })).data as never;
}

/** The words of a message's sections, as a person reads them. */
const sectionsOf = (body: Body) =>
  (body.blocks as Array<{ text?: { text?: string } }>).map((block) => block.text?.text ?? '').join('\n');

/** Presses a button as `user`: the confirmation first, then the answer to its yes. */
async function pressAndConfirm(button: MessageButton, user: string): Promise<{ question: Body; answer: Body }> {
  const question = await bots.press(button, { user });
  const yes = buttonsOf(question).find((b) => b.action_id === 'forge_confirm');
  expect(yes, `a confirmation, not: ${messageText(question)}`).toBeDefined();
  return { question, answer: await bots.press(yes!, { user }) };
}

describe('rolling production back from the incident message', () => {
  it('refuses bob, runs what alice confirmed, deploys v1.1.0 once root approves, says so, and runs nothing again', async () => {
    await bots.command('watch acme/web', { user: 'U1' });
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    const ts = await waitFor(() => incident.answer?.ts as string | undefined, 5_000, "the message's ts");
    const rollBack = buttonsOf(incident.args).find((b) => b.text.text === 'Roll back production')!;
    expect(rollBack).toBeDefined();
    const before = await production();
    const culpritRuns = shortSha(before.last.sha);

    // bob (developer) is asked, says yes, and the service refuses him (production is deployed to by maintainers):
    // said to him alone, nothing changed, the button left for the next person.
    const writesBefore = writes().length;
    const bobs = await pressAndConfirm(rollBack, 'U2');
    expect(bobs.answer.response_type).not.toBe('in_channel');
    expect(messageText(bobs.answer)).toMatch(/Roll back environment failed[\s\S]*403 Forbidden/);
    expect(
      writes()
        .slice(writesBefore)
        .map((r) => `${r.method} ${r.path} ${r.status}`),
    ).toEqual([expect.stringMatching(/^POST \/projects\/1\/jobs\/\d+\/retry 403$/)]);
    expect((await production()).last.id).toBe(before.last.id);
    expect(threadOf(ts).filter((c) => /403|Forbidden|failed/.test(plain(c)))).toEqual([]);

    // alice (maintainer): the confirmation names production, the commit it runs now and the one it will run, and the
    // call it shows is what runs — the deploy job of the deployment before the culprit, retried once.
    const alices = await pressAndConfirm(rollBack, 'U1');
    const asked = sectionsOf(alices.question);
    const to = Number(/\n {2}to: (\d+)\n/.exec(asked)?.[1]);
    const target = await deployment(to);
    expect(target.ref).toBe('v1.1.0');
    expect(asked).toContain(
      `It rolls production back: it runs ${culpritRuns} (main, deployment #${before.last.id}) now, and will run ${shortSha(target.sha)} (v1.1.0, deployment #${to}) again by retrying its deploy job deploy:production (#${target.deployable.id}).`,
    );
    expect(asked).toContain(`  job_id: ${target.deployable.id}\n  current_deployment_id: ${before.last.id}`);
    const sent = writes().slice(writesBefore + 1);
    expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `POST /projects/1/jobs/${target.deployable.id}/retry 201`,
    ]);
    expect(messageText(alices.answer)).toMatch(/deployment #\d+ waits for approval by someone else/);

    // The new deployment (of v1.1.0's tag pipeline: main's pipeline does not move) waits in a message of its own.
    const waiting = await waitFor(
      () => posts().find((c) => /Deployment #\d+ .* to production waits for approval/.test(plain(c))),
      30_000,
      'the deployment message waiting for approval',
    );
    expect(plain(waiting)).toMatch(
      new RegExp(
        `Deployment #\\d+ of ${shortSha(target.sha)} \\(v1\\.1\\.0\\) to production waits for approval — deployed by @alice$`,
      ),
    );
    const approve = buttonsOf(waiting.args).find((b) => b.text.text === 'Approve')!;
    // root, another maintainer (alice triggered it, so she may not), approves: production runs v1.1.0's commit again.
    const approved = await pressAndConfirm(approve, 'U4');
    expect(messageText(approved.answer)).toMatch(/Deployment #\d+ approved by root/);
    const deploymentTs = await waitFor(() => waiting.answer?.ts as string | undefined, 5_000, "the message's ts");
    await waitFor(
      () =>
        updatesOf(deploymentTs).find((c) =>
          /to production deployed — deployed by @alice \(approved by @root\)$/.test(plain(c)),
        ),
      30_000,
      'the deployment message saying it deployed',
    );
    const after = await production();
    expect(after.last).toMatchObject({ sha: target.sha, ref: 'v1.1.0' });
    expect(after.last.id).toBeGreaterThan(before.last.id);

    // The incident's thread says so, naming who rolled it back.
    await waitFor(
      () =>
        threadOf(ts).find(
          (c) => plain(c) === `:rewind: production rolled back to v1.1.0 (${shortSha(target.sha)}) by @alice`,
        ),
      15_000,
      'the rollback in the incident thread',
    );

    // Roll back pressed again: production no longer runs what the button was drawn on; nothing is asked or sent.
    const writesNow = writes().length;
    const again = await bots.press(rollBack, { user: 'U1' });
    expect(again.response_type).toBe('ephemeral');
    expect(messageText(again)).toContain(
      `deployment #${after.last.id} to production came after #${before.last.id} (it is success); nothing was rolled back.`,
    );
    expect(buttonsOf(again).find((b) => b.action_id === 'forge_confirm')).toBeUndefined();
    expect(writes()).toHaveLength(writesNow);
  }, 90_000);
});
