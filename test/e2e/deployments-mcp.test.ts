// Issue 33's acceptance over MCP, against a sandbox whose acme/web production (protected: one approval by a maintainer
// who did not trigger the deployment) has two deployments this file made, A then B: rollback_environment from B to A
// through elicitation (declined sends nothing; accepted runs the call shown; a production that moved between the
// question and the answer runs nothing and says what changed; asked again after a retry or a rejection, the newest run
// of the deploy job is retried), and approve_deployment as the people who would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpClient } from '../../src/http/client.js';
import { shortSha } from '../../src/operations/engine/present.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { connectInMemory, resultText, useSandbox, type ElicitAnswer } from '../helpers/mcp.js';
import { ProductionHistory, WEB, type Deployment } from '../helpers/production-history.js';

const env = useSandbox({ clock: new ManualClock() });
const history = new ProductionHistory(() => env.sandbox);
const ACCEPT: ElicitResult = { action: 'accept', content: { confirm: true } };
const DECLINE: ElicitResult = { action: 'decline' };

type Person = 'admin' | 'maintainer' | 'developer';
const clients: HttpClient[] = [];

let a: Deployment;
let b: Deployment;
/** The job the accepted rollback made: the newest run of A's deploy job. */
let rollbackJob: number;
beforeAll(async () => {
  ({ a, b } = await history.releasesAThenB());
}, 60_000);
afterAll(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** Calls one tool over MCP as one demo user (root, alice or bob), who answers its question with `answer`. */
async function callAs(person: Person, answer: ElicitAnswer, name: string, args: Record<string, unknown>) {
  const client = new HttpClient({
    baseUrl: env.sandbox.url,
    token: env.sandbox.tokens[person],
    retry: { maxRetries: 0 },
  });
  clients.push(client);
  const mcp = await connectInMemory({ client, elicit: answer });
  try {
    const result = await mcp.client.callTool({ name, arguments: args });
    return { result, text: resultText(result), prompts: mcp.prompts };
  } finally {
    await mcp.close();
  }
}

const posts = () => history.posts();

describe('rollback_environment over MCP', () => {
  it('declined: the question names production, B and A, and nothing is sent', async () => {
    const before = posts();
    const { result, prompts } = await callAs('admin', () => DECLINE, 'rollback_environment', {
      id: WEB,
      environment: 'production',
    });
    expect(result.isError).toBe(true);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain(
      `It rolls production back: it runs ${shortSha(b.sha)} (main, deployment #${b.id}) now, and will run ${shortSha(a.sha)} (main, deployment #${a.id}) again by retrying its deploy job deploy:production (#${a.deployable.id}).`,
    );
    expect(posts()).toEqual(before);
    expect((await history.production()).last_deployment?.id).toBe(b.id);
  });

  it('accepted: retries the job shown; its deployment of A waits for alice, whose approval puts A back in production', async () => {
    const { result, prompts } = await callAs('admin', () => ACCEPT, 'rollback_environment', {
      id: WEB,
      environment: 'production',
    });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(prompts[0]).toContain(`will run ${shortSha(a.sha)} (main, deployment #${a.id}) again`);
    expect(posts().filter((path) => path.includes('/retry'))).toEqual([
      expect.stringMatching(new RegExp(`/jobs/${a.deployable.id}/retry$`)),
    ]);
    const data = result.structuredContent as {
      from: { id: number; sha: string };
      to: { id: number; sha: string };
      job: { id: number };
      deployment: { id: number; status: string };
      waiting_for_approval?: boolean;
    };
    expect(data).toMatchObject({
      from: { id: b.id, sha: b.sha },
      to: { id: a.id, sha: a.sha },
      deployment: { status: 'blocked' },
      waiting_for_approval: true,
    });
    expect(await history.deployment(data.deployment.id)).toMatchObject({ sha: a.sha, user: { username: 'root' } });
    rollbackJob = data.job.id;

    const approved = await callAs('maintainer', () => ACCEPT, 'approve_deployment', {
      id: WEB,
      deployment_id: data.deployment.id,
      status: 'approved',
    });
    expect(approved.result.isError, approved.text).toBeFalsy();
    expect((await history.finished(data.deployment.id)).status).toBe('success');
    expect((await history.production()).last_deployment).toMatchObject({ id: data.deployment.id, sha: a.sha });
  }, 30_000);

  it('runs nothing when production moved between the question and the answer, and says what changed', async () => {
    const shown = (await history.production()).last_deployment!;
    const next = await history.blocked(await history.commit('Release C', 'admin'));
    const before = posts().filter((path) => path.includes('/retry'));
    // While the question waits, alice approves C and it deploys: production runs C, not what the question showed.
    const { result, prompts, text } = await callAs(
      'admin',
      async () => {
        await history.approve(next.id, 'maintainer');
        await history.finished(next.id);
        return ACCEPT;
      },
      'rollback_environment',
      { id: WEB, environment: 'production' },
    );
    expect(prompts[0]).toContain(`it runs ${shortSha(shown.sha)} (main, deployment #${shown.id}) now`);
    expect(result.isError).toBe(true);
    expect(text).toContain(
      `production no longer runs ${shortSha(shown.sha)} (main, deployment #${shown.id}) as shown: it runs ${shortSha(next.sha)} (main, deployment #${next.id}) now; nothing was run`,
    );
    expect(posts().filter((path) => path.includes('/retry'))).toEqual(before);
    expect((await history.production()).last_deployment?.id).toBe(next.id);
  }, 30_000);
  it("goes back to deployment A by its id after an earlier rollback retried A's job: it retries A's newest run", async () => {
    // The rollback above retried A's deploy job; the service retries a job once, so its newest run is what runs again.
    const { result, prompts, text } = await callAs('admin', () => ACCEPT, 'rollback_environment', {
      id: WEB,
      environment: 'production',
      to: a.id,
    });
    expect(result.isError, text).toBeFalsy();
    const data = result.structuredContent as { to: { sha: string }; deployment: { id: number } };
    expect(data.to.sha).toBe(a.sha);
    expect(prompts[0]).toContain(
      `will run ${shortSha(a.sha)} (main, deployment #${a.id}) again by retrying the newest run of its deploy job deploy:production (#${rollbackJob}, a retry of #${a.deployable.id}).`,
    );
    expect(await history.deployment(data.deployment.id)).toMatchObject({ sha: a.sha, status: 'blocked' });
    await history.approve(data.deployment.id, 'maintainer');
    expect((await history.finished(data.deployment.id)).status).toBe('success');
  }, 30_000);
});

describe('approve_deployment over MCP', () => {
  it("declined sends nothing; bob (developer, 403) and root's own (400) are refused in the service's words; alice's approval deploys", async () => {
    const blocked = await history.blocked(await history.commit('Release D', 'admin'));
    const approve = { id: WEB, deployment_id: blocked.id, status: 'approved' };
    const before = posts();
    const declined = await callAs('maintainer', () => DECLINE, 'approve_deployment', approve);
    expect(declined.result.isError).toBe(true);
    expect(declined.prompts[0]).toContain(
      `It approves deployment #${blocked.id} of ${shortSha(blocked.sha)} (main) to production, blocked`,
    );
    expect(posts()).toEqual(before);

    const developer = await callAs('developer', () => ACCEPT, 'approve_deployment', approve);
    expect(developer.result.isError).toBe(true);
    expect(developer.text).toContain("403 You don't have permission to approve this deployment.");
    const own = await callAs('admin', () => ACCEPT, 'approve_deployment', approve);
    expect(own.result.isError).toBe(true);
    expect(own.text).toContain('400 You cannot approve your own deployment.');
    expect(await history.deployment(blocked.id)).toMatchObject({ status: 'blocked', deployable: { status: 'manual' } });

    const alice = await callAs('maintainer', () => ACCEPT, 'approve_deployment', approve);
    expect(alice.result.isError, alice.text).toBeFalsy();
    expect(alice.result.structuredContent).toMatchObject({ status: 'approved', user: { username: 'alice' } });
    expect((await history.finished(blocked.id)).status).toBe('success');
    expect((await history.production()).last_deployment?.id).toBe(blocked.id);

    // Approved and deployed, it takes no more answers: said before anyone is asked, and nothing is sent.
    const sent = posts();
    const again = await callAs('maintainer', () => ACCEPT, 'approve_deployment', approve);
    expect(again.result.isError).toBe(true);
    expect(again.prompts).toEqual([]);
    expect(again.text).toContain(
      `Deployment #${blocked.id} of ${shortSha(blocked.sha)} to production is not waiting for approvals (its status is success); nothing was sent.`,
    );
    expect(posts()).toEqual(sent);
  }, 30_000);

  it('rejected: the deploy job fails as deployment_rejected without starting; production stays as it was', async () => {
    const running = (await history.production()).last_deployment!;
    const blocked = await history.blocked(await history.commit('Release E', 'admin'));
    const { result, prompts } = await callAs('maintainer', () => ACCEPT, 'approve_deployment', {
      id: WEB,
      deployment_id: blocked.id,
      status: 'rejected',
    });
    expect(result.isError, resultText(result)).toBeFalsy();
    expect(prompts[0]).toContain(`It rejects deployment #${blocked.id}`);
    await history.expectRejectedKeeping(blocked, running);
  }, 30_000);
});

describe('a rollback rejected, then asked for again', () => {
  it('retries the rejected run of the deploy job: the service retries each job once', async () => {
    const rollback = () =>
      callAs('admin', () => ACCEPT, 'rollback_environment', { id: WEB, environment: 'production' });
    const first = await rollback();
    expect(first.result.isError, first.text).toBeFalsy();
    const rejected = first.result.structuredContent as { job: { id: number }; deployment: { id: number } };
    await history.approve(rejected.deployment.id, 'maintainer', 'rejected');
    expect(await history.deployment(rejected.deployment.id)).toMatchObject({ status: 'failed' });

    const again = await rollback();
    expect(again.result.isError, again.text).toBeFalsy();
    expect(again.prompts[0]).toContain(`deploy:production (#${rejected.job.id}, a retry of #`);
    const made = again.result.structuredContent as { to: { sha: string }; deployment: { id: number } };
    expect(await history.deployment(made.deployment.id)).toMatchObject({ sha: made.to.sha, status: 'blocked' });
  }, 30_000);
});
