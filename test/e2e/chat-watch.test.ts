// `watch acme/web` in the built CLI's terminal chat on a real pseudo-terminal: red at once (broken, with the first
// red commit), then — after the culprit is reverted as a merge request and merged by someone else — running and
// green again with how long it was red and which merge request fixed it, and Ctrl+C brings the prompt back. The
// sandbox runs in this process with its jobs sped up; the chat reaches it as a configured service and checks every
// second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../src/http/client.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TerminalSession, bareEnv } from '../helpers/terminal-session.js';
import { callAnsweringYes } from '../helpers/call-as-yes.js';

const CULPRIT_TITLE = "Show order dates in the store's time zone";

let sandbox: Sandbox;
let client: HttpClient;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, jobTimeScale: 0.25 });
  client = new HttpClient({ baseUrl: sandbox.url, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await client?.close();
  await sandbox?.close();
});

/** Runs an operation as a person who answers yes to any approval request. */
const call = <T = Record<string, unknown>>(name: string, input: Record<string, unknown>): Promise<T> =>
  callAnsweringYes<T>(client, name, input);

describe('watch in a real terminal', () => {
  it('prints red, then green once the revert is merged, and Ctrl+C returns to the prompt', async () => {
    const term = new TerminalSession({
      CODEHOST_URL: sandbox.url,
      CODEHOST_TOKEN: sandbox.tokens.developer,
      FORGEOPS_WATCH_INTERVAL_MS: '1000',
    });
    try {
      let at = await term.waitFor(/forgeops> $/);
      at = await term.typeAndWaitFor(
        'watch acme/web\r',
        /acme\/web main is RED\n[\s\S]*first red: #\d+ at [0-9a-f]{8} Show order dates/,
        at,
      );
      expect(term.shown()).toMatch(/broken/i);

      const commits = await call<Array<{ id: string; title: string }>>('list_commits', {
        id: 'acme/web',
        ref_name: 'main',
        per_page: 50,
      });
      const culprit = commits.find((c) => c.title === CULPRIT_TITLE);
      expect(culprit).toBeDefined();
      const reverted = await call<{ merge_request: { iid: number } }>('revert_as_merge_request', {
        id: 'acme/web',
        sha: culprit!.id,
      });
      await call('merge_merge_request', { id: 'acme/web', merge_request_iid: reverted.merge_request.iid });

      at = await term.waitFor(/acme\/web main: pipeline #\d+ is (pending|running) on [0-9a-f]{8}/, at, 30_000);
      at = await term.waitFor(
        // Named as Slack names it: the merge request and what it reverts, not the merge commit's title.
        new RegExp(
          `acme/web main is green again after [^:]+: fixed by !${reverted.merge_request.iid} \\(revert of ${culprit!.id.slice(0, 8)}\\)\n`,
        ),
        at,
        30_000,
      );
      at = await term.typeAndWaitFor('\x03', /Stopped watching \(Ctrl\+C\)\.\n[\s\S]*forgeops> $/, at);
      // The session goes on: the prompt answers the next command.
      term.type('pipeline list acme/web per_page=1\r');
      await term.waitFor(/1 pipelines?\n[\s\S]*success[\s\S]*forgeops> $/, at);
    } finally {
      term.kill();
    }
  }, 90_000);

  it('follows as a one-shot command too, until SIGINT, and exits 0', async () => {
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'chat', 'watch acme/web'], {
      cwd: '/',
      env: {
        ...bareEnv,
        CODEHOST_URL: sandbox.url,
        CODEHOST_TOKEN: sandbox.tokens.developer,
        FORGEOPS_WATCH_INTERVAL_MS: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 300 && !/is (RED|green)/.test(out); i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(out).toMatch(/^Watching acme\/web; Ctrl\+C stops\.\n\[[^\]]+\] acme\/web main is (RED|green)/);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(out).toMatch(/Stopped watching \(Ctrl\+C\)\.\n$/);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 30_000);
});
