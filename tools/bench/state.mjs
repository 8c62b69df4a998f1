// Benchmark: what the shared state store adds to an approved call — one approval issued and redeemed (DurableApprovals)
// in memory (the baseline) and in a real redis-server on loopback (FORGEOPS_REDIS_URL), p50 and p99 in one run.
// Other keys (seen Slack requests, links) must not make the caps' counts slower: [other keys] puts that many
// in both stores first. Needs redis-server (Debian's package). Run by hand after `npm run build`:
// node tools/bench/state.mjs [rounds] [other keys]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { numbers, smoke } from './args.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const rounds = smoke ? 20 : (numbers[0] ?? 2000);
// The smoke run puts a few other keys in, so that the path that counts past them runs too.
const others = smoke ? 50 : (numbers[1] ?? 0);
const WARM_UP = smoke ? 5 : 100;
const { DurableApprovals } = await import(`${root}dist/approval/binding.js`);
const { MemoryStore } = await import(`${root}dist/state/store.js`);
const { RedisStore } = await import(`${root}dist/state/redis-store.js`);

const free = await new Promise((resolve) => {
  const server = createServer();
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    server.close(() => resolve(port));
  });
});
const redis = spawn(
  'redis-server',
  ['--port', String(free), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { stdio: 'ignore' },
);
const exited = new Promise((resolve) => redis.once('exit', resolve));
// Without redis-server installed, spawn fails here: say so rather than throwing an unhandled 'error' event.
const missing = new Promise((resolve) => redis.once('error', resolve));
/** Stops the redis-server this bench started, by its PID, and waits for it to exit. */
async function stopRedis() {
  if (redis.exitCode === null && redis.signalCode === null && redis.pid !== undefined) redis.kill('SIGTERM');
  if (redis.pid !== undefined) await exited;
}

const call = {
  operation: 'delete_pipeline',
  input: { id: 'acme/web', pipeline_id: 7 },
  requester: 'T1:U1',
  place: 'C1',
};
async function measure(store) {
  for (let i = 0; i < others; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, others - i) }, (_, k) => store.set(`seen:${i + k}`, 1, { ttlMs: 600_000 })),
    );
  }
  const tickets = new DurableApprovals(store, { maxPending: rounds + 10, maxPerRequester: rounds + 10 });
  const once = async () => {
    const started = process.hrtime.bigint();
    const issued = await tickets.issue(call);
    const redeemed = await tickets.redeem(issued.id, { person: 'T1:U1', place: 'C1' });
    if (!redeemed.ok) throw new Error(redeemed.reason);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let i = 0; i < WARM_UP; i++) await once();
  const times = [];
  for (let i = 0; i < rounds; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

let memory;
let inRedis;
try {
  let up = false;
  for (let i = 0; i < 200 && !up; i++) {
    const failed = await Promise.race([missing, new Promise((resolve) => setTimeout(resolve, 25, undefined))]);
    if (failed)
      throw new Error(`redis-server could not be started (${failed.message}); Debian: apt-get install redis-server`);
    try {
      const probe = await RedisStore.open(`redis://127.0.0.1:${free}`);
      up = await probe.ping();
      await probe.close();
    } catch {
      /* not yet */
    }
  }
  if (!up) throw new Error(`redis-server on 127.0.0.1:${free} did not answer within 5 s`);
  memory = await measure(new MemoryStore({ maxEntries: rounds * 2 + others + 1000 }));
  const shared = await RedisStore.open(`redis://127.0.0.1:${free}`);
  try {
    inRedis = await measure(shared);
  } finally {
    await shared.close();
  }
} finally {
  // On every path, so that a failing run leaves no redis-server behind (and this process can exit).
  await stopRedis();
}

console.log(
  `one approval issued and redeemed, ${rounds} rounds, ${others} other keys in the store (the counts of the caps included)`,
);
console.log(`  memory store   p50 ${memory.p50.toFixed(3)} ms   p99 ${memory.p99.toFixed(3)} ms   (1.00x)`);
console.log(
  `  Redis store    p50 ${inRedis.p50.toFixed(3)} ms   p99 ${inRedis.p99.toFixed(3)} ms   (${(inRedis.p50 / memory.p50).toFixed(1)}x; adds ${(inRedis.p50 - memory.p50).toFixed(3)} ms p50)`,
);
