// A watch following acme/web's deployments on the sandbox's clock: still one request per quiet check; main made green
// brings production's deployment waiting for approval, told once across two watchers; approved, each of its moves is
// told once, to its end; the deployments are read only by checks that saw main's pipeline change.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/sandbox/core/clock.js';
import { MemoryStore } from '../../../src/state/store.js';
import type { BranchWatch, WatchEvent } from '../../../src/watch/branch-watch.js';
import { useSandbox } from '../../helpers/mcp.js';
import { api, revertDemoCulprit } from '../sandbox/sandbox-client.js';
import { operationsWithTriageAt } from '../../helpers/watch.js';
import { sandboxBranchWatch } from '../../helpers/watch-hub.js';

const clock = new ManualClock();
const env = useSandbox({ clock });
const PROJECT = 'acme/web';
const WEB = `/projects/${encodeURIComponent(PROJECT)}`;

/** The registry with triage reading the sandbox's clock. */
const ops = operationsWithTriageAt(() => clock.now());

type Deployed = Extract<WatchEvent, { kind: 'deployment' }>;
const deploymentsOf = (events: WatchEvent[]) => events.filter((e): e is Deployed => e.kind === 'deployment');

function watcher(store: MemoryStore, events: WatchEvent[], holder: string) {
  return sandboxBranchWatch(env, clock, events, {
    store,
    operations: () => ops,
    followDeployments: true,
    holder,
    random: () => 0,
  });
}

/** What each check asked of the service, by what it found. */
const checks: Array<{ result: string; paths: string[] }> = [];

async function checkAll(watches: BranchWatch[]): Promise<void> {
  for (const watch of watches) {
    const before = env.sandbox.requests.all().length;
    const result = await watch.check();
    checks.push({
      result,
      paths: env.sandbox.requests
        .all()
        .slice(before)
        .map((r) => r.path),
    });
  }
}

/** Checks once per second of the sandbox's clock until `done` holds. */
async function until(watches: BranchWatch[], done: () => boolean, what: string): Promise<void> {
  for (let second = 0; second < 300; second++) {
    await checkAll(watches);
    if (done()) return;
    clock.advance(1000);
  }
  throw new Error(`not ${what} within 300 s of the sandbox's clock`);
}

describe("a watch following acme/web's deployments", () => {
  it('tells a deployment waiting for approval once, then each of its moves once, reading deployments only on a change', async () => {
    const store = new MemoryStore({ now: () => clock.now() });
    const events: WatchEvent[] = [];
    const watches = [watcher(store, events, 'replica-1'), watcher(store, events, 'replica-2')];
    await checkAll(watches);
    expect(events.map((e) => e.kind)).toEqual(['red']);
    clock.advance(1000);
    await checkAll(watches);
    expect(checks.at(-2)).toEqual({ result: 'unchanged', paths: [`${WEB}/pipelines`] });

    // Root reverts bob's commit: main's pipeline passes and reaches production, which waits for approval.
    const revert = await revertDemoCulprit(env.sandbox);
    await until(watches, () => deploymentsOf(events).length > 0, 'a deployment told');
    const [waiting] = deploymentsOf(events);
    expect(waiting.deployment).toMatchObject({
      status: 'blocked',
      environment: 'production',
      ref: 'main',
      sha: revert,
      user: 'root',
      pending_approval_count: 1,
      job: { name: 'deploy:production' },
    });
    await until(watches, () => events.some((e) => e.kind === 'green'), 'green');

    // Alice approves: its moves are told, each once, to success.
    const approval = await api(env.sandbox, 'POST', `${WEB}/deployments/${waiting.deployment.id}/approval`, {
      as: 'maintainer',
      json: { status: 'approved' },
    });
    expect(approval.status).toBe(201);
    await until(watches, () => deploymentsOf(events).at(-1)?.deployment.status === 'success', 'deployed');
    const moves = deploymentsOf(events).filter((e) => e.deployment.id === waiting.deployment.id);
    expect(moves[0].deployment.status).toBe('blocked');
    expect(moves.at(-1)!.deployment.approvals).toEqual([{ user: 'alice', status: 'approved' }]);
    expect(new Set(moves.map((e) => e.id)).size).toBe(moves.length);
    // Only production's deployment is told (staging's neither waited nor failed).
    expect(deploymentsOf(events).every((e) => e.deployment.environment === 'production')).toBe(true);

    // Quiet again: one request a check; deployments were read only by checks that saw a change.
    clock.advance(30_000);
    await checkAll(watches);
    expect(checks.at(-2)).toEqual({ result: 'unchanged', paths: [`${WEB}/pipelines`] });
    const reading = checks.filter((c) => c.paths.some((p) => p.endsWith('/deployments')));
    expect(reading.length).toBeGreaterThan(0);
    expect(reading.every((c) => c.result === 'changed')).toBe(true);
    for (const watch of watches) await watch.stop();
  });
});
