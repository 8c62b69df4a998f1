// `npm test`: what the tests need installed, the build and Biome first; then vitest (its arguments are this script's)
// with the type check beside it at low priority, so tsc takes the CPU the tests leave idle (they wait on sockets and
// child processes a good part of the time) instead of adding its 20 s in front. Fails when any part fails.
import { spawn } from 'node:child_process';

/** Runs a command with its output passed through; resolves with its exit status. */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.on('error', (error) => {
      console.error(`${command}: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

/** Runs a command with its output kept until the end, so it does not cut into vitest's report. */
function runQuietly(command, args) {
  return new Promise((resolve) => {
    const output = [];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('error', (error) => resolve({ status: 1, output: `${command}: ${error.message}\n` }));
    child.on('close', (code) => resolve({ status: code ?? 1, output: Buffer.concat(output).toString('utf8') }));
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const [command, args] of [
  [process.execPath, ['tools/test-deps.mjs']],
  [npm, ['run', 'build']],
  [npm, ['run', 'lint']],
]) {
  const status = await run(command, args);
  if (status !== 0) process.exit(status);
}

// nice(1) lowers the type check's priority; where there is none, it runs at the same priority.
const typecheck = runQuietly('nice', ['-n', '15', npm, 'run', '--silent', 'typecheck']).then((result) =>
  result.status === 127 || /ENOENT/.test(result.output) ? runQuietly(npm, ['run', '--silent', 'typecheck']) : result,
);
const vitest = await run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)]);
const checked = await typecheck;
process.stdout.write(checked.output);
console.log(checked.status === 0 ? 'typecheck: no errors' : `typecheck: failed (exit ${checked.status})`);
process.exit(vitest !== 0 ? vitest : checked.status);
