// Benchmark: sequential list_pipelines calls through forgeops' executor (undici pool) vs plain fetch, same sandbox.
// Run by hand after `npm run build`: node tools/bench/client.mjs [calls]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { fileURLToPath } from 'node:url';
import { numbers, smoke } from './args.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const calls = smoke ? 5 : (numbers[0] ?? 300);
const WARM_UP = smoke ? 2 : 20;
const { startSandbox } = await import(`${root}dist/sandbox/server.js`);
const { HttpClient } = await import(`${root}dist/http/client.js`);
const { executeOperation } = await import(`${root}dist/operations/engine/execute.js`);
const { validateInput } = await import(`${root}dist/operations/engine/validate.js`);
const { findOperation } = await import(`${root}dist/operations/index.js`);

const sandbox = await startSandbox({ port: 0 });
const token = sandbox.tokens.maintainer;
const url = `${sandbox.url}/api/v4/projects/acme%2Fweb/pipelines?per_page=20`;
const op = findOperation('list_pipelines');
// No proxy from the environment: the sandbox is on loopback, and the fetch baseline goes direct too.
const client = new HttpClient({ baseUrl: sandbox.url, token, proxy: {} });

async function timeIt(fn) {
  for (let i = 0; i < WARM_UP; i++) await fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) await fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

let viaFetch;
let viaExecutor;
try {
  viaFetch = await timeIt(async () => {
    const res = await fetch(url, { headers: { 'PRIVATE-TOKEN': token } });
    if (res.status !== 200) throw new Error(`fetch baseline answered ${res.status}`);
    await res.json();
  });
  viaExecutor = await timeIt(async () => {
    await executeOperation(op, validateInput(op, { id: 'acme/web', per_page: 20 }), { client });
  });
} finally {
  // Stopped on every path, so a failing run leaves no server behind.
  await client.close();
  await sandbox.close();
}
console.log(`calls: ${calls} sequential list_pipelines (20 items) against the sandbox on loopback`);
console.log(`baseline fetch:          ${viaFetch.toFixed(0)} ms, ${(viaFetch / calls).toFixed(2)} ms/call (1.00x)`);
console.log(
  `forgeops executor:       ${viaExecutor.toFixed(0)} ms, ${(viaExecutor / calls).toFixed(2)} ms/call (${(viaExecutor / viaFetch).toFixed(2)}x)`,
);
