#!/usr/bin/env node
// Runs the official MCP conformance suite's server scenarios against `forgeops serve` on the embedded sandbox.
// By hand, not in CI (it installs the suite from npm): npm run build && node tools/conformance.mjs [--verbose]
// Exit 0 when every scenario passes except those listed, with the reason, in tools/conformance/expected-failures.yml.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const root = fileURLToPath(new URL('..', import.meta.url));
const here = join(root, 'tools', 'conformance');
/** Outside the repository: the suite and its dependencies are not ours to commit or bundle. */
const suiteDir = process.env.FORGEOPS_CONFORMANCE_DIR ?? join(tmpdir(), 'forgeops-conformance');
const suiteEntry = join(suiteDir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const READY_TRIES = 100;

function fail(message) {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

function installSuite() {
  if (existsSync(suiteEntry)) return;
  mkdirSync(suiteDir, { recursive: true });
  process.stderr.write(`conformance: installing ${SUITE} into ${suiteDir}\n`);
  const npm = spawnSync('npm', ['install', '--no-save', '--prefix', suiteDir, SUITE], { stdio: 'inherit' });
  if (npm.status !== 0 || !existsSync(suiteEntry)) fail(`could not install ${SUITE}`);
}

/**
 * serve on the sandbox: the configured service, an MCP bearer token or an env file would change what is tested. On a
 * port the system gives it as it binds, read from its banner: no other program can be given that port first.
 */
function startServe() {
  // The token mode: the suite connects without signing in.
  const env = { ...process.env, FORGEOPS_HOST: '127.0.0.1', FORGEOPS_MCP_AUTH: 'token' };
  for (const name of [
    'CODEHOST_URL',
    'CODEHOST_TOKEN',
    'FORGEOPS_MCP_TOKEN',
    'FORGEOPS_ENV_FILE',
    'SLACK_SIGNING_SECRET',
    'SLACK_APP_TOKEN',
  ])
    delete env[name];
  const child = spawn(process.execPath, [join(root, 'dist', 'cli.js'), 'serve', '--host', '127.0.0.1', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.once('exit', (code) => {
    if (code !== null && code !== 0) process.stderr.write(`conformance: serve exited with ${code}\n${stderr}`);
  });
  return { child, base: () => /forgeops MCP server: (http:\/\/\S+)\/mcp/.exec(stdout)?.[1] };
}

/** serve's address once it has said where it listens and answers there. */
async function waitUntilReady(serve) {
  for (let i = 0; i < READY_TRIES; i++) {
    const base = serve.base();
    try {
      if (base && (await fetch(`${base}/healthz`)).ok) return base;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  fail(serve.base() ? `serve did not answer at ${serve.base()}` : 'serve did not say where it listens');
}

if (!existsSync(join(root, 'dist', 'cli.js'))) fail('dist/cli.js is missing: run npm run build first');
installSuite();
const serve = startServe();
let status = 1;
try {
  const base = await waitUntilReady(serve);
  const args = [
    '--import',
    join(here, 'node20-globsync.mjs'),
    suiteEntry,
    'server',
    '--url',
    `${base}/mcp`,
    '--expected-failures',
    join(here, 'expected-failures.yml'),
    ...process.argv.slice(2),
  ];
  // The suite writes its results/ folder into its working directory: keep that out of the repository.
  const run = spawn(process.execPath, args, { cwd: suiteDir, stdio: 'inherit' });
  status = await new Promise((resolve) => run.once('exit', (code) => resolve(code ?? 1)));
} finally {
  serve.child.kill();
}
process.exit(status);
