// The incident loop on two `forgeops serve` replicas behind the documented haproxy, sharing one real redis-server:
// a channel watching red acme/web gets ONE message; the replica holding the watch's lease is killed (SIGKILL, as a
// crash), the other takes the watch over, and the retry's transitions and the green after the revert reach the
// same message — none lost, none told twice, still one post for the episode.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisStore } from '../../src/state/redis-store.js';
import { reservePort, startHaproxy, type Balancer } from '../helpers/balancers.js';
import { servedReady } from '../helpers/child-output.js';
import { useSandbox } from '../helpers/mcp.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import {
  buttonsOf,
  channelCalls,
  clickBody,
  commandBody,
  eventually,
  messageText,
  postSigned,
  startFakeSlack,
  waitFor,
  type FakeSlack,
} from '../helpers/slack.js';
import { linkPeople, TEST_SIGNING_SECRET } from '../helpers/slack-bot.js';

const secret = TEST_SIGNING_SECRET;
const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
// Jobs at 0.3 of their usual seconds: a retried test runs about 2 s, long enough for a 1 s watch to see it run.
const env = useSandbox({ jobTimeScale: 0.3 });
let redis: RedisServer;
let slack: FakeSlack;
let balancer: Balancer;
let store: RedisStore;
const replicas = new Map<string, ChildProcess>();
const logs = new Map<string, string>();
const dirs: string[] = [];

/**
 * `forgeops serve` as replica `id`, in the foreground, its output kept for the failure message; its port once ready,
 * one the system gave it as it bound (no other program can be given it first).
 */
async function startReplica(id: string, balancerPort: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), `forgeops-${id}-`));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    cwd: '/',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: dataDir,
      TMPDIR: tmpdir(),
      CODEHOST_URL: env.sandbox.url,
      CODEHOST_TOKEN: env.sandbox.tokens.reporter,
      CODEHOST_MAX_RETRIES: '0',
      SLACK_SIGNING_SECRET: secret,
      SLACK_BOT_TOKEN: 'xoxb-test',
      SLACK_API_URL: slack.apiUrl,
      FORGEOPS_SECRET: 'k'.repeat(40),
      FORGEOPS_REDIS_URL: redis.url,
      FORGEOPS_DATA_DIR: dataDir,
      FORGEOPS_REPLICA_ID: id,
      FORGEOPS_WATCH_INTERVAL_MS: '1000',
      FORGEOPS_ALLOWED_HOSTS: `127.0.0.1:${balancerPort}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  logs.set(id, '');
  const keep = (chunk: Buffer) => logs.set(id, logs.get(id)! + chunk.toString('utf8'));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  replicas.set(id, child);
  const base = await servedReady(() => logs.get(id) ?? '', `replica ${id}`);
  return Number(new URL(base).port);
}

beforeAll(async () => {
  redis = await startRedis();
  slack = await startFakeSlack();
  store = await RedisStore.open(redis.url);
  // The balancer's port is held until it starts: the replicas take seconds, and a free port may be given away meanwhile.
  const reserved = await reservePort();
  const { port } = reserved;
  // The replicas need not know their ports beforehand: the balancer's config is written once they listen.
  const ports = [await startReplica('r1', port), await startReplica('r2', port)];
  const config = readFileSync(new URL('../../deploy/haproxy.cfg', import.meta.url), 'utf8')
    .replace(/127\.0\.0\.1:8750/g, `127.0.0.1:${port}`)
    .replace(/127\.0\.0\.1:8751/g, `127.0.0.1:${ports[0]}`)
    .replace(/127\.0\.0\.1:8752/g, `127.0.0.1:${ports[1]}`);
  balancer = await startHaproxy(config, reserved);
  await linkPeople(
    `${balancer.url}/slack/events`,
    { U1: 'maintainer', U2: 'developer' },
    { sandbox: env.sandbox, secret },
  );
}, 60_000);

afterAll(async () => {
  await balancer?.stop();
  for (const child of replicas.values())
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await store?.close();
  await slack?.close();
  await redis?.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Body = Record<string, unknown>;
const { posts, updatesOf } = channelCalls(() => slack, 'C1');

/** Sends a signed request through the balancer; a try that met the dead replica before haproxy noticed is tried again. */
async function send(body: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const sent = await postSigned(`${balancer.url}/slack/events`, body, { secret }).catch(() => undefined);
    if (sent?.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('no replica took the request');
}

async function command(text: string, user = 'U1'): Promise<Body> {
  const responseUrl = slack.responseUrl();
  await send(commandBody(text, { responseUrl, user }));
  const path = new URL(responseUrl).pathname;
  return waitFor(() => slack.responses.find((r) => r.path === path)?.body, 15_000, `an answer to "${text}"`);
}

describe('the incident loop on two replicas sharing Redis', () => {
  it('posts once, and the replica taking over from a killed lease holder loses no transition and doubles none', async () => {
    const answer = await command('watch acme/web');
    expect(messageText(answer)).toContain('Watching acme/web main in this channel: it is red now');
    const incident = await waitFor(() => posts()[0], 15_000, 'the incident message');
    const ts = await waitFor(() => incident.answer?.ts, 5_000, "the message's ts");

    // Retry, pressed on whichever replica the balancer picks: the same message shows it running.
    const retry = buttonsOf(incident.args).find((b) => b.text.text === 'Retry failed jobs')!;
    await send(clickBody(retry.action_id, retry.value, { user: 'U1', responseUrl: slack.responseUrl() }));
    await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('retrying… pipeline #')),
      20_000,
      'the running update',
    );

    // While it runs, the replica holding the lease dies as a crash does: it gives nothing back. (Watches are kept by
    // the project's number.)
    const { id } = (
      await env.client.request<{ id: number }>({ method: 'GET', path: '/projects/acme%2Fweb', idempotent: true })
    ).data;
    const holder = await eventually(() => store.get<string>(`watch:lease:${id}`), 10_000, 'a lease holder');
    const dying = holder.split(':')[0];
    expect(['r1', 'r2']).toContain(dying);
    replicas.get(dying)!.kill('SIGKILL');
    const survivor = dying === 'r1' ? 'r2' : 'r1';

    // The other replica takes the watch over and tells the retry's end: still red.
    const stillRed = await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('still red after the retry')),
      40_000,
      'the still-red update',
    ).catch(async (error: Error) => {
      throw new Error(
        `${error.message}; state: ${JSON.stringify(await store.get(`watch:state:${id}:main`))}; survivor log: ${logs.get(survivor)}`,
      );
    });
    // The survivor holds the lease now. Read until it is there: on a loaded machine a check may outlast the lease's
    // 1.6 intervals, so the key can lapse for a moment between two of the survivor's checks.
    const taken = await eventually(
      async () => ((await store.get<string>(`watch:lease:${id}`))?.startsWith(`${survivor}:`) ? true : undefined),
      10_000,
      `${survivor} holding the lease`,
    );
    expect(taken).toBe(true);

    // The fix: revert the culprit as a merge request, set to merge when its pipeline passes.
    const revert = buttonsOf(stillRed.args).find((b) => b.text.text.startsWith('Revert '))!;
    const sha8 = /^Revert ([0-9a-f]{8})/.exec(revert.text.text)![1];
    const revertAnswers = slack.responseUrl();
    await send(clickBody(revert.action_id, revert.value, { user: 'U1', responseUrl: revertAnswers }));
    const first = await waitFor(
      () => slack.responses.find((r) => r.path === new URL(revertAnswers).pathname)?.body,
      15_000,
      "the revert's answer",
    );
    const confirm = buttonsOf(first).find((b) => b.action_id === 'forge_confirm');
    if (confirm)
      await send(clickBody(confirm.action_id, confirm.value, { user: 'U1', responseUrl: slack.responseUrl() }));
    const mr = await eventually(
      async () =>
        (
          await env.client.request<Array<{ iid: number }>>({
            method: 'GET',
            path: '/projects/acme%2Fweb/merge_requests',
            query: { source_branch: `revert-${sha8}`, state: 'opened' },
            idempotent: true,
          })
        ).data[0],
      15_000,
      'the revert merge request',
    );
    await env.client.request({
      method: 'PUT',
      path: `/projects/acme%2Fweb/merge_requests/${mr.iid}/merge`,
      body: { merge_when_pipeline_succeeds: true },
      idempotent: false,
    });
    await waitFor(
      () => updatesOf(ts).find((c) => messageText(c.args).includes('*Resolved:* green again after')),
      45_000,
      'the resolved update',
    );

    // Give a doubled transition the time to show (two intervals), then count: one post for the episode, and one for
    // the production deployment that main green again made wait for approval (told before green, in the same check).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const waiting = (c: { args: Record<string, unknown> }) => String(c.args.text).includes('waits for approval');
    expect(posts().filter((c) => !waiting(c))).toHaveLength(1);
    expect(posts().filter(waiting)).toHaveLength(1);
    const texts = updatesOf(ts).map((c) => messageText(c.args));
    // (The revert's press updates the message once more, naming the merge request: that is no transition told again.)
    expect(texts.filter((t) => t.includes('still red after the retry') && !t.includes('*Revert:*'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('*Resolved:*'))).toHaveLength(1);
    expect(await store.count('watch:told:')).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
