// The built `forgeops serve` as two replicas sharing a real redis-server, with FORGEOPS_APPROVAL=page: a call waits on
// r1, its link is opened and answered on r2 (as plain round robin would send it), and the call runs once on r1. Then
// r1 stops, and r2 says so for its links instead of "no such approval".
import { tmpdir } from 'node:os';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerPage, deletesOf, newPipeline, openPage, PROJECT } from '../helpers/approval.js';
import { useSandbox } from '../helpers/mcp.js';
import { startRedis, type RedisServer } from '../helpers/redis.js';
import { connectClient } from '../safety/mcp-harness.js';
import { onOutput, servedReady } from '../helpers/child-output.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const env = useSandbox();
let redis: RedisServer;
const replicas: Array<{ base: string; child: ChildProcess; log: () => string; exited: Promise<number | null> }> = [];

/** Replica `name` on a port the system gives it as it binds, once ready. */
async function startReplica(name: string) {
  let log = '';
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0'], {
    env: {
      PATH: process.env.PATH ?? '',
      TMPDIR: tmpdir(),
      CODEHOST_URL: env.sandbox.url,
      CODEHOST_TOKEN: env.sandbox.tokens.maintainer,
      FORGEOPS_REDIS_URL: redis.url,
      FORGEOPS_REPLICA_ID: name,
      FORGEOPS_APPROVAL: 'page',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onOutput(child, (chunk) => {
    log += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const base = await servedReady(() => log, `replica ${name}`);
  return { base, child, log: () => log, exited };
}

/** The link a waiting call's approval wrote to the replica's log (the operator's channel), once it is there. */
async function linkIn(log: () => string, pipeline: number): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const link = /approval needed for delete_pipeline: open (\S+) /.exec(log())?.[1];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no approval link for pipeline ${pipeline} in the log:\n${log()}`);
}

beforeAll(async () => {
  redis = await startRedis();
  replicas.push(await startReplica('r1'), await startReplica('r2'));
});

afterAll(async () => {
  for (const { child } of replicas) if (child.exitCode === null) child.kill('SIGKILL');
  await redis?.stop();
});

describe('two replicas of forgeops serve with the approval page', () => {
  it('run a call waiting on r1 once when its page is opened and approved on r2', async () => {
    const [r1, r2] = replicas;
    const pipeline = await newPipeline(env.client);
    const { mcp } = await connectClient(`${r1.base}/mcp`);
    const call = mcp.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    const link = await linkIn(r1.log, pipeline);
    expect(link).toMatch(new RegExp(`^${r1.base}/approvals/r1\\.`));
    const onR2 = link.replace(r1.base, r2.base);

    const page = await openPage(onR2);
    expect(page.status).toBe(200);
    expect(page.html).toContain(`pipeline_id: ${pipeline}`);
    expect(await answerPage(onR2, { nonce: page.nonce!, decision: 'approve' })).toMatchObject({ status: 200 });
    expect((await call).isError).toBeFalsy();
    expect(deletesOf(env.sandbox, pipeline)).toHaveLength(1);
    expect((await answerPage(onR2, { nonce: page.nonce!, decision: 'approve' })).text).toMatch(/already approved/);
    expect(deletesOf(env.sandbox, pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it('say on r2 that r1 has stopped, for a link of a call that waited there', async () => {
    const [r1, r2] = replicas;
    const pipeline = await newPipeline(env.client);
    const { mcp } = await connectClient(`${r1.base}/mcp`);
    const before = r1.log().length;
    const call = mcp
      .callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } })
      .catch((error: Error) => error);
    const link = await linkIn(() => r1.log().slice(before), pipeline);
    r1.child.kill('SIGTERM');
    expect(await r1.exited).toBe(0);
    await call;
    const page = await openPage(link.replace(r1.base, r2.base));
    expect(page.status).toBe(410);
    expect(page.html).toContain('This approval waited on replica r1, which has stopped');
    expect(deletesOf(env.sandbox, pipeline)).toHaveLength(0);
  });
});
