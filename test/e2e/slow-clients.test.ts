// Every HTTP listener forgeops starts (and the sandbox's) cuts off a client that drips its headers or its body: with
// small timeouts set for the test, the connection is closed (408) long before the client would have finished.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalApprovalPage } from '../../src/approval/page.js';
import { browserLogin } from '../../src/identity/terminal-login.js';
import { ReadinessProbe } from '../../src/health.js';
import { listenForPages } from '../../src/slack/main.js';
import { SlackHttpReceiver } from '../../src/slack/receiver.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { silentLogger } from '../../src/log.js';
import { useSandbox } from '../helpers/mcp.js';
import { startHttp } from '../safety/mcp-harness.js';

// Set before any listener below is made: each reads them when it is created.
const saved = {
  headers: process.env.FORGEOPS_HTTP_HEADERS_TIMEOUT_MS,
  request: process.env.FORGEOPS_HTTP_REQUEST_TIMEOUT_MS,
};
process.env.FORGEOPS_HTTP_HEADERS_TIMEOUT_MS = '300';
process.env.FORGEOPS_HTTP_REQUEST_TIMEOUT_MS = '600';
afterAll(() => {
  for (const [name, value] of [
    ['FORGEOPS_HTTP_HEADERS_TIMEOUT_MS', saved.headers],
    ['FORGEOPS_HTTP_REQUEST_TIMEOUT_MS', saved.request],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const env = useSandbox();

interface Started {
  port: number;
  close(): Promise<void>;
}

const portOf = (url: string) => Number(new URL(url).port);

/** How each file that makes a listener is started here; a new one must be added, or the listing test fails. */
const LISTENERS: Record<string, () => Promise<Started>> = {
  'src/sandbox/server.ts': async () => {
    const sandbox = await startSandbox({ port: 0 });
    return { port: portOf(sandbox.url), close: () => sandbox.close() };
  },
  'src/mcp/http/server.ts': async () => {
    const server = await startHttp(env.client);
    return { port: portOf(server.url), close: () => server.close() };
  },
  'src/slack/receiver.ts': async () => {
    const receiver = new SlackHttpReceiver({ signingSecret: 'a-signing-secret-for-the-test', log: silentLogger });
    const { url } = await receiver.start(0, '127.0.0.1');
    return { port: portOf(url), close: () => receiver.stop() };
  },
  'src/identity/terminal-login.ts': async () => {
    // The loopback listener lives while the sign-in waits: its port is in the redirect_uri shown to open.
    const abort = new AbortController();
    let opened: (url: string) => void = () => undefined;
    const shownUrl = new Promise<string>((resolve) => {
      opened = resolve;
    });
    const waiting = browserLogin(
      { host: 'http://127.0.0.1:9', clientId: 'forgeops-cli' },
      { scopes: ['api'], signal: abort.signal, open: (url) => opened(url) },
    ).catch(() => undefined);
    const shown = await shownUrl;
    const redirect = new URL(new URL(shown).searchParams.get('redirect_uri') as string);
    return {
      port: portOf(redirect.href),
      close: async () => {
        abort.abort();
        await waiting;
      },
    };
  },
  'src/slack/main.ts': async () => {
    const listener = await listenForPages({ handle: async () => false }, new ReadinessProbe([]), 0);
    return { port: portOf(listener.url), close: () => listener.close() };
  },
  'src/approval/page.ts': async () => {
    const page = createLocalApprovalPage({ port: 0, maxPending: 4 });
    return { port: portOf(await page.start()), close: () => page.close() };
  },
};

/** The files of src/ that make an HTTP listener: createServer's callers, and createListener's, but not its home. */
function listenerFiles(dir = 'src'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listenerFiles(path);
    if (!path.endsWith('.ts') || path === join('src', 'http', 'listener.ts')) return [];
    const text = readFileSync(path, 'utf8');
    return /\bcreate(Server|Listener)\(/.test(text) ? [path] : [];
  });
}

/**
 * Sends `head` then `drip` one character each 50 ms; resolves when the server closes the connection or the client has
 * sent everything (then it closes itself). Says whether the server closed first and what it answered.
 */
function drip(port: number, head: string, dripped: string): Promise<{ cutOff: boolean; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ cutOff: sent < dripped.length, answer });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.destroyed) return;
        if (sent === dripped.length) {
          clearInterval(timer);
          socket.end();
          return;
        }
        socket.write(dripped[sent++]!);
      }, 50);
    });
    socket.once('timeout', () => reject(new Error('no close')));
  });
}

describe('slow clients are cut off on every listener', () => {
  it('the listeners tested here are every listener of src/', () => {
    expect(listenerFiles().sort()).toEqual(Object.keys(LISTENERS).sort());
  });

  for (const [file, start] of Object.entries(LISTENERS)) {
    it(`${file}: headers dripped one byte at a time, and a body dripped one byte at a time, are cut off with 408`, async () => {
      const listener = await start();
      try {
        // 200 bytes at 50 ms each would take 10 s; the limits are 300 ms for headers and 600 ms for the request.
        const headers = await drip(
          listener.port,
          'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n',
          `X-Slow: ${'a'.repeat(200)}\r\n\r\n`,
        );
        expect(headers.cutOff).toBe(true);
        expect(headers.answer).toMatch(/^HTTP\/1\.1 408/);
        const body = await drip(
          listener.port,
          'POST /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n',
          'x'.repeat(200),
        );
        expect(body.cutOff).toBe(true);
      } finally {
        await listener.close();
      }
    });
  }
});
