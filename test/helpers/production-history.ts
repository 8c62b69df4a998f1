// acme/web's production history made through the sandbox's API on a manual clock: main made green, commits pushed and
// deployed to the protected production environment with an approval, so a deployments test starts from what it made.
import { expect } from 'vitest';
import type { ManualClock } from '../../src/sandbox/core/clock.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { api, type Role } from '../unit/sandbox/sandbox-client.js';

export const WEB = 'acme/web';
const WEB_PATH = `/projects/${encodeURIComponent(WEB)}`;
/** The commit on acme/web's main that breaks its `test` job (see src/sandbox/areas/jobs/scenarios.ts). */
const CULPRIT_TITLE = "Show order dates in the store's time zone";
/** Seconds of sandbox time a pipeline gets to reach its deploy stage or a deploy job to end; far more than either takes. */
const MAX_SECONDS = 300;

export interface Deployment {
  id: number;
  sha: string;
  ref: string;
  status: string;
  user: { username: string };
  deployable: { id: number; name: string; status: string; failure_reason?: string | null };
  environment: { name: string };
}

export interface Environment {
  id: number;
  name: string;
  last_deployment: Deployment | null;
}

/** The sandbox's API as the demo users, and its clock moved on for them. */
export class ProductionHistory {
  constructor(private readonly sandbox: () => Sandbox) {}

  private async read<T>(path: string, as: Role = 'maintainer'): Promise<T> {
    const answer = await api(this.sandbox(), 'GET', `${WEB_PATH}${path}`, { as });
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.text}`);
    return answer.data as T;
  }

  private async write<T>(path: string, json: unknown, as: Role): Promise<T> {
    const answer = await api(this.sandbox(), 'POST', `${WEB_PATH}${path}`, { as, json });
    if (answer.status !== 201) throw new Error(`POST ${path}: ${answer.status} ${answer.text}`);
    return answer.data as T;
  }

  /**
   * Moves the sandbox's clock a second at a time, reading between moves so the runner catches up, until `check` gives
   * something; fails after MAX_SECONDS of sandbox time.
   */
  async runUntil<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    const clock = this.sandbox().store.clock as ManualClock;
    for (let second = 0; second < MAX_SECONDS; second++) {
      const found = await check();
      if (found !== undefined) return found;
      clock.advance(1000);
    }
    throw new Error(`${what}: not after ${MAX_SECONDS} seconds of sandbox time`);
  }

  /** Reverts the commit that fails acme/web's tests, so main's pipelines reach their deploy stage again. */
  async greenMain(): Promise<string> {
    const commits = await this.read<Array<{ id: string; title: string }>>(
      '/repository/commits?ref_name=main&per_page=100',
    );
    const culprit = commits.find((c) => c.title === CULPRIT_TITLE);
    if (!culprit) throw new Error('the culprit is not on main');
    return (
      await this.write<{ id: string }>(`/repository/commits/${culprit.id}/revert`, { branch: 'main' }, 'maintainer')
    ).id;
  }

  /** Pushes a commit to main as `as`: its pipeline runs as that person, who is then who triggered its deployments. */
  async commit(title: string, as: Role = 'maintainer'): Promise<string> {
    const file = `notes/${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.md`;
    const made = await this.write<{ id: string }>(
      '/repository/commits',
      {
        branch: 'main',
        commit_message: title,
        actions: [{ action: 'create', file_path: file, content: `${title}\n` }],
      },
      as,
    );
    return made.id;
  }

  /** The paths of every POST the sandbox has answered so far: what a declined or refused call must not add to. */
  posts(): string[] {
    return this.sandbox()
      .requests.filter({ method: 'POST' })
      .map((r) => r.path);
  }

  async deployments(query = 'environment=production&sort=desc&per_page=100'): Promise<Deployment[]> {
    return this.read<Deployment[]>(`/deployments?${query}`);
  }

  async deployment(id: number): Promise<Deployment> {
    return this.read<Deployment>(`/deployments/${id}`);
  }

  async job(id: number): Promise<{ id: number; status: string; started_at: string | null; failure_reason?: string }> {
    return this.read(`/jobs/${id}`);
  }

  async production(): Promise<Environment> {
    const [found] = await this.read<Array<{ id: number }>>('/environments?name=production');
    return this.read<Environment>(`/environments/${found.id}`);
  }

  /** Waits for the production deployment of `sha` (the newest one) to wait for its approval. */
  async blocked(sha: string): Promise<Deployment> {
    return this.runUntil(`a blocked production deployment of ${sha.slice(0, 8)}`, async () =>
      (await this.deployments()).find((d) => d.sha === sha && d.status === 'blocked'),
    );
  }

  /** Waits for a deployment to end; gives it as it ended. */
  async finished(id: number): Promise<Deployment> {
    return this.runUntil(`deployment #${id} to end`, async () => {
      const deployment = await this.deployment(id);
      return ['success', 'failed', 'canceled'].includes(deployment.status) ? deployment : undefined;
    });
  }

  async approve(id: number, as: Role, status: 'approved' | 'rejected' = 'approved'): Promise<void> {
    await this.write(`/deployments/${id}/approval`, { status }, as);
  }

  /** Deploys `sha` to production: its blocked deployment approved by `approver`, run to success. */
  async deploy(sha: string, approver: Role = 'admin'): Promise<Deployment> {
    const blocked = await this.blocked(sha);
    await this.approve(blocked.id, approver);
    const done = await this.finished(blocked.id);
    if (done.status !== 'success') throw new Error(`deployment #${done.id} of ${sha}: ${done.status}`);
    return done;
  }

  /** main made green, then releases A and B committed and deployed to production in turn (B is live, A before it). */
  async releasesAThenB(): Promise<{ a: Deployment; b: Deployment }> {
    await this.greenMain();
    const a = await this.deploy(await this.commit('Release A'));
    const b = await this.deploy(await this.commit('Release B'));
    return { a, b };
  }

  /** A rejected deployment's job failed as rejected without starting, and production still runs `running`. */
  async expectRejectedKeeping(rejected: Deployment, running: Deployment): Promise<void> {
    expect(await this.job(rejected.deployable.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'deployment_rejected',
      started_at: null,
    });
    expect((await this.production()).last_deployment?.id).toBe(running.id);
  }
}
