// Issue 33's acceptance in the built CLI's terminal chat, against a sandbox whose acme/web production (protected: one
// approval by a maintainer who did not trigger the deployment) has two deployments this file made, A then B: rolling
// production back from B to A (declined changes nothing; accepted runs exactly the call shown, and its new deployment
// waits for someone else's approval; asked again meanwhile, it names the one waiting), then approving and rejecting a
// blocked deployment as the people who would (and one no longer waiting is refused without a question).
import { beforeAll, describe, expect, it } from 'vitest';
import { shortSha } from '../../src/operations/engine/present.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { useSandbox } from '../helpers/mcp.js';
import { ProductionHistory, type Deployment } from '../helpers/production-history.js';
import { TerminalSession } from '../helpers/terminal-session.js';

const env = useSandbox({ clock: new ManualClock() });
const history = new ProductionHistory(() => env.sandbox);
/** A pattern that matches `text` as it is. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let a: Deployment;
let b: Deployment;
beforeAll(async () => {
  ({ a, b } = await history.releasesAThenB());
}, 60_000);

type Person = 'admin' | 'maintainer' | 'developer';

/** Runs `steps` in a terminal chat as one demo user (root, alice or bob) on this file's sandbox; the session ends after. */
async function chatAs(person: Person, steps: (term: TerminalSession, at: number) => Promise<void>): Promise<void> {
  const term = new TerminalSession({ CODEHOST_URL: env.sandbox.url, CODEHOST_TOKEN: env.sandbox.tokens[person] });
  try {
    await steps(term, await term.waitFor(/forgeops> $/));
  } finally {
    term.kill();
  }
}

const posts = () => history.posts();

describe('rolling production back in the chat', () => {
  it('declined: nothing is sent and production still runs B', async () => {
    const before = posts();
    await chatAs('admin', async (term, at) => {
      at = await term.typeAndWaitFor(
        'environment rollback acme/web production\r',
        /It rolls production back[\s\S]*Run exactly this call\? \[y\/N\] $/,
        at,
      );
      term.type('n\r');
      await term.waitFor(/Not run; nothing was changed\.\n[\s\S]*forgeops> $/, at);
    });
    expect(posts()).toEqual(before);
    expect((await history.production()).last_deployment?.id).toBe(b.id);
  }, 30_000);

  it('accepted: the question names production, B and A; exactly the call shown runs; its deployment of A waits for another maintainer', async () => {
    let screen = '';
    await chatAs('admin', async (term, at) => {
      const start = at;
      at = await term.typeAndWaitFor(
        'environment rollback acme/web production\r',
        /Run exactly this call\? \[y\/N\] $/,
        at,
      );
      term.type('y\r');
      await term.waitFor(/forgeops> $/, at);
      screen = term.shown(start);
    });
    // What the human saw: the environment, the commit it runs now (B) and the one it will run (A), with the call.
    const question = screen.match(
      /It rolls production back: it runs ([0-9a-f]{8}) \(main, deployment #(\d+)\) now, and will run ([0-9a-f]{8}) \(main, deployment #(\d+)\) again by retrying its deploy job deploy:production \(#(\d+)\)\./,
    );
    expect(question, screen).not.toBeNull();
    expect(question!.slice(1)).toEqual([shortSha(b.sha), `${b.id}`, shortSha(a.sha), `${a.id}`, `${a.deployable.id}`]);
    const call = screen.match(/to: (\d+)\n\s+job_id: (\d+)\n\s+current_deployment_id: (\d+)\n/);
    expect(call?.slice(1)).toEqual([`${a.id}`, `${a.deployable.id}`, `${b.id}`]);

    // What ran: a retry of exactly that job, once; its new deployment is of A's commit and waits for an approval.
    expect(posts().filter((path) => path.includes('/retry'))).toEqual([
      expect.stringMatching(new RegExp(`/jobs/${a.deployable.id}/retry$`)),
    ]);
    const [made] = await history.deployments();
    expect(made).toMatchObject({ sha: a.sha, status: 'blocked', user: { username: 'root' } });
    expect(screen).toContain(`Rolling production back to ${shortSha(a.sha)}`);
    expect(screen).toContain(`deployment #${made.id} waits for approval by someone else`);
    expect((await history.production()).last_deployment?.id).toBe(b.id);

    // Asked again while it waits, there is no second rollback: the one waiting is named, nothing asked or sent.
    const sent = posts();
    await chatAs('admin', async (term, at) => {
      term.type('environment rollback acme/web production\r');
      const said = `✗ Roll back environment: not run\n\n  deployment #${made.id} of ${shortSha(a.sha)} to production is already under way (blocked): approve or reject it (deployment approve); nothing was run\n`;
      await term.waitFor(new RegExp(`${literally(said)}[\\s\\S]*forgeops> $`), at);
    });
    expect(posts()).toEqual(sent);

    // Alice, a maintainer who did not trigger it, approves it in her chat; production then runs A.
    await chatAs('maintainer', async (term, at) => {
      at = await term.typeAndWaitFor(
        `deployment approve acme/web ${made.id} status=approved\r`,
        new RegExp(
          `It approves deployment #${made.id} of ${shortSha(a.sha)} \\(main\\) to production, blocked[\\s\\S]*\\[y/N\\] $`,
        ),
        at,
      );
      term.type('y\r');
      await term.waitFor(new RegExp(`Deployment #${made.id} approved by alice[\\s\\S]*forgeops> $`), at);
    });
    expect((await history.finished(made.id)).status).toBe('success');
    expect((await history.production()).last_deployment).toMatchObject({ id: made.id, sha: a.sha });
  }, 60_000);
});

describe('approving a blocked production deployment in the chat', () => {
  it("refuses alice her own deployment (400) and bob as a developer (403), clearly and changing nothing; root's approval runs it", async () => {
    const blocked = await history.blocked(await history.commit('Release C'));
    expect(blocked.user.username).toBe('alice');
    const approve = `deployment approve acme/web ${blocked.id} status=approved\r`;
    await chatAs('maintainer', async (term, at) => {
      term.type(approve);
      at = await term.waitFor(/\[y\/N\] $/, at);
      term.type('y\r');
      await term.waitFor(
        /✗ Approve or reject deployment failed\n\n\s+400 You cannot approve your own deployment\.[\s\S]*forgeops> $/,
        at,
      );
    });
    await chatAs('developer', async (term, at) => {
      term.type(approve);
      at = await term.waitFor(/\[y\/N\] $/, at);
      term.type('y\r');
      await term.waitFor(
        /✗ Approve or reject deployment failed\n\n\s+403 You don't have permission to approve this deployment\.[\s\S]*forgeops> $/,
        at,
      );
    });
    expect(await history.deployment(blocked.id)).toMatchObject({ status: 'blocked', deployable: { status: 'manual' } });

    await chatAs('admin', async (term, at) => {
      at = await term.typeAndWaitFor(
        `deployment get acme/web ${blocked.id}\r`,
        /Deployment #\d+ to production: blocked[\s\S]*waiting for\s+1 approval[\s\S]*forgeops> $/,
        at,
      );
      term.type(approve);
      at = await term.waitFor(/\[y\/N\] $/, at);
      term.type('y\r');
      await term.waitFor(new RegExp(`Deployment #${blocked.id} approved by root[\\s\\S]*forgeops> $`), at);
    });
    expect((await history.finished(blocked.id)).status).toBe('success');
    expect((await history.production()).last_deployment?.id).toBe(blocked.id);

    // Deployed, it takes no more answers: alice is told so without a question.
    await chatAs('maintainer', async (term, at) => {
      term.type(approve);
      const said = `✗ Approve or reject deployment: not run\n\n  Deployment #${blocked.id} of ${shortSha(blocked.sha)} to production is not waiting for approvals (its status is success); nothing was sent.\n`;
      await term.waitFor(new RegExp(`${literally(said)}[\\s\\S]*forgeops> $`), at);
    });
  }, 60_000);

  it('rejects one: its deploy job fails as deployment_rejected without ever starting, and production stays as it was', async () => {
    const running = (await history.production()).last_deployment!;
    const blocked = await history.blocked(await history.commit('Release D'));
    await chatAs('admin', async (term, at) => {
      at = await term.typeAndWaitFor(
        `deployment approve acme/web ${blocked.id} status=rejected\r`,
        /It rejects deployment[\s\S]*\[y\/N\] $/,
        at,
      );
      term.type('y\r');
      await term.waitFor(new RegExp(`Deployment #${blocked.id} rejected by root[\\s\\S]*forgeops> $`), at);
    });
    expect(await history.deployment(blocked.id)).toMatchObject({ status: 'failed' });
    await history.expectRejectedKeeping(blocked, running);
  }, 60_000);
});
