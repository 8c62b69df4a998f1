// Benchmark: spawn → initialize → tools/list of `forgeops mcp` (stdio), as a ratio of a bare `node -e ''` spawn.
// Run by hand after `npm run build`: node tools/bench/startup.mjs [runs]
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cliPath = process.env.FORGEOPS_BENCH_CLI ?? `${root}dist/cli.js`;
const runs = Number(process.argv[2] ?? 10);

function timeBare() {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
}

/** Speaks raw JSON-RPC lines so the client's own cost is not measured. */
function timeToolsList(env) {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'mcp'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('exit', (code) => { if (!tools) { clearTimeout(timer); reject(new Error(`forgeops mcp exited (${code}) before tools/list: ${stderr}`)); } });
    const timer = setTimeout(() => { child.kill(); reject(new Error('timed out after 30 s')); }, 30_000);
    let buffer = '';
    let tools = 0;
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        if (message.id === 1) {
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
          child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
        } else if (message.id === 2) {
          tools = message.result.tools.length;
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          clearTimeout(timer);
          // Wait for the child to be gone, so its shutdown does not compete with the next measurement.
          child.once('exit', () => resolve({ ms, tools }));
          child.stdin.end();
        }
      }
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })}\n`);
  });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const { startSandbox } = await import(`${root}dist/sandbox/server.js`);
const sandbox = await startSandbox({ port: 0 });
const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
const configured = { ...baseEnv, CODEHOST_URL: sandbox.url, CODEHOST_TOKEN: sandbox.tokens.maintainer };

const bare = [];
const withService = [];
const withSandbox = [];
let toolCount = 0;
for (let i = 0; i < runs; i++) {
  bare.push(await timeBare());
  const a = await timeToolsList(configured);
  withService.push(a.ms);
  toolCount = a.tools;
  withSandbox.push((await timeToolsList(baseEnv)).ms);
}
await sandbox.close();

const base = median(bare);
console.log(`runs: ${runs}, tools listed: ${toolCount}`);
console.log(`baseline node -e '':                         ${base.toFixed(0)} ms (1.00x)`);
console.log(`forgeops mcp, CODEHOST_URL set → tools/list:  ${median(withService).toFixed(0)} ms (${(median(withService) / base).toFixed(2)}x)`);
console.log(`forgeops mcp, in-process sandbox → tools/list: ${median(withSandbox).toFixed(0)} ms (${(median(withSandbox) / base).toFixed(2)}x)`);
