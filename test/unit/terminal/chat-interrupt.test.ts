// Ctrl+C in the interactive terminal chat (here the interrupt a SIGINT or readline delivers): it stops the running
// command — its requests and waits end, nothing more is asked of the service — and the prompt comes back with the
// session; a change already sent is said to have perhaps run; at an empty prompt the first Ctrl+C only hints, the
// second leaves.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import type { Operation } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';
import { LEAVE_HINT, STOP_GRACE_MS } from '../../../src/terminal/chat.js';
import { useSandbox } from '../../helpers/mcp.js';
import { startPipeChat } from '../../helpers/pipe-chat.js';
import { testDispatcher } from '../../helpers/dispatcher.js';
import { runningWebPipeline } from '../../helpers/sandbox-pipeline.js';
import { testOperation } from '../../helpers/test-operation.js';

const env = useSandbox();

/** An interactive session on a pipe: lines typed, interrupts sent, everything printed. */
function session(client: () => HttpClient, ops: readonly Operation[] = operations, onCheck?: () => void) {
  const dispatcher = testDispatcher(client, {
    operations: ops,
    runContext: () => ({ client: client(), deadline: Date.now() + 120_000, onProgress: () => onCheck?.() }),
  });
  const chat = startPipeChat({ dispatcher, operations: ops });
  return {
    ended: chat.ended,
    type: (line: string) => chat.input.write(`${line}\n`),
    interrupt: chat.interrupt,
    get listening() {
      return chat.listening();
    },
    printed: (from = 0) => chat.printed().slice(from),
    get length() {
      return chat.printed().length;
    },
    async waitFor(pattern: RegExp, from = 0, timeoutMs = 10_000): Promise<number> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(chat.printed().slice(from));
        if (match) return from + match.index + match[0].length;
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${pattern}; printed so far:\n${chat.printed()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Ctrl+C while a command runs', () => {
  it('stops `pipeline wait`: no more checks, the prompt and the session come back, and the next command runs', async () => {
    const running = await runningWebPipeline(env.client);
    let checks = 0;
    const chat = session(
      () => env.client,
      operations,
      () => {
        checks += 1;
      },
    );
    let at = await chat.waitFor(/forgeops> $/);
    chat.type(`pipeline wait acme/web ${running.id} timeout_seconds=300`);
    for (let i = 0; i < 500 && checks === 0; i++) await sleep(10);
    expect(checks).toBe(1);
    const pipelinePath = `/projects/acme%2Fweb/pipelines/${running.id}`;
    const before = env.sandbox.requests.filter({ method: 'GET', path: pipelinePath }).length;
    const stoppedAt = Date.now();
    chat.interrupt();
    at = await chat.waitFor(/Stopped \(Ctrl\+C\); nothing was changed\.\n\nforgeops> $/, at);
    // Stopped by its signal, not given up on after the grace.
    expect(Date.now() - stoppedAt).toBeLessThan(STOP_GRACE_MS);
    expect(chat.printed()).not.toMatch(/without waiting/);
    await sleep(1_500);
    expect(env.sandbox.requests.filter({ method: 'GET', path: pipelinePath }).length).toBe(before);
    chat.type('pipeline get acme/web 1');
    at = await chat.waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);
    chat.type('exit');
    expect(await chat.ended).toBe(0);
  });

  it('says that a change already sent may have run, and names the read that checks it', async () => {
    // A service that takes a POST and never answers it: the change has been sent when Ctrl+C comes.
    const held: Array<() => void> = [];
    const server: Server = createServer((req, res) => {
      if (req.method === 'POST') {
        req.resume();
        held.push(() => res.destroy());
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"404 Not Found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new HttpClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 't',
      retry: { maxRetries: 0 },
    });
    try {
      const chat = session(() => client);
      let at = await chat.waitFor(/forgeops> $/);
      chat.type('pipeline create acme/web ref=main');
      for (let i = 0; i < 500 && held.length === 0; i++) await sleep(10);
      expect(held).toHaveLength(1);
      chat.interrupt();
      at = await chat.waitFor(/forgeops> $/, at);
      const said = chat.printed();
      expect(said).toMatch(/Stopped \(Ctrl\+C\)\. create_pipeline had already been sent, so it may have run:/);
      expect(said).toMatch(/may or may not have been applied[\s\S]*Check with list_pipelines/);
      expect(said).not.toMatch(/nothing was changed/);
      chat.type('exit');
      expect(await chat.ended).toBe(0);
    } finally {
      for (const drop of held) drop();
      await client.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('comes back to the prompt within the grace even when a command does not stop', async () => {
    // It ignores its signal.
    const stubborn = testOperation({
      name: 'never_ending',
      chat: 'never end',
      route: 'GET /never',
      input: z.object({}),
      effect: 'read',
      run: () => new Promise(() => undefined),
    });
    const ops = [...operations, stubborn];
    const chat = session(() => env.client, ops);
    let at = await chat.waitFor(/forgeops> $/);
    chat.type('never end');
    await sleep(100);
    const stoppedAt = Date.now();
    chat.interrupt();
    at = await chat.waitFor(
      /did not end within \d+ s\. A change it had sent may still be applied\.\n\nforgeops> $/,
      at,
      STOP_GRACE_MS + 5_000,
    );
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(STOP_GRACE_MS - 50);
    chat.type('pipeline get acme/web 1');
    await chat.waitFor(/✓ Pipeline #1: success[\s\S]*forgeops> $/, at);
    chat.type('exit');
    expect(await chat.ended).toBe(0);
  });
});

describe('Ctrl+C at the prompt', () => {
  it('the first hints how to leave, anything typed disarms it, and two in a row leave', async () => {
    const chat = session(() => env.client);
    let at = await chat.waitFor(/forgeops> $/);
    chat.interrupt();
    at = await chat.waitFor(new RegExp(`${LEAVE_HINT.replace(/[().+]/g, '\\$&')}\\nforgeops> $`), at);
    chat.type('use acme/web');
    at = await chat.waitFor(/Default project: acme\/web[\s\S]*forgeops> $/, at);
    // The line typed since disarmed it: this Ctrl+C hints again instead of leaving.
    chat.interrupt();
    at = await chat.waitFor(/\(To leave, press Ctrl\+C again[^\n]*\nforgeops> $/, at);
    expect(chat.listening).toBe(true);
    chat.interrupt();
    expect(await chat.ended).toBe(0);
    expect(chat.listening).toBe(false);
  });

  it('drops a ``` block being typed and comes back to the prompt', async () => {
    const chat = session(() => env.client);
    let at = await chat.waitFor(/forgeops> $/);
    chat.type('file create acme/web dropped.txt branch=main commit_message="Dropped" content=```');
    at = await chat.waitFor(/\.\.\. $/, at);
    chat.type('half of it');
    at = await chat.waitFor(/\.\.\. $/, at);
    chat.interrupt();
    at = await chat.waitFor(/forgeops> $/, at);
    // The closing fence now starts no block: nothing of the dropped command runs.
    chat.type('file get acme/web dropped.txt ref=main');
    at = await chat.waitFor(/404[\s\S]*forgeops> $/, at);
    chat.type('exit');
    expect(await chat.ended).toBe(0);
  });
});
