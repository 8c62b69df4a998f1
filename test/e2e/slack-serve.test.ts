// forgeops serve with Slack configured (the built CLI, embedded sandbox): /slack/events is mounted beside /mcp,
// answers a signed command whatever Host it came by, refuses an unsigned one; /mcp still refuses a foreign Host.
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandBody, messageText, signedHeaders, startFakeSlack, waitFor, type FakeSlack } from '../helpers/slack.js';

const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const secret = 'serve-signing-secret';
let slack: FakeSlack;
let child: ChildProcess;
let stdout = '';
let port: number;

/** A POST to serve's port with the Host a reverse proxy would pass on. */
function post(
  path: string,
  host: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, host }, timeout: 5_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  slack = await startFakeSlack();
  child = spawn(process.execPath, [cli, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    cwd: '/',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TMPDIR: tmpdir(),
      SLACK_SIGNING_SECRET: secret,
      SLACK_BOT_TOKEN: 'xoxb-serve',
      SLACK_API_URL: slack.apiUrl,
      FORGEOPS_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr!.resume();
  const url = await waitFor(
    () => /Slack: requests go to (http:\/\/\S+)/.exec(stdout)?.[1],
    20_000,
    'serve to start with Slack',
  );
  expect(new URL(url).pathname).toBe('/slack/events');
  port = Number(new URL(url).port);
}, 30_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  }
  await slack?.close();
});

describe('forgeops serve with Slack configured', () => {
  it('acks a signed command that came by the public host name and answers it on the response_url', async () => {
    const responseUrl = slack.responseUrl();
    const body = commandBody('pipeline list acme/web per_page=2', { responseUrl });
    const acked = await post('/slack/events', 'forgeops.example.org', body, signedHeaders(body, { secret }));
    expect(acked).toEqual({ status: 200, text: '' });
    const answer = await waitFor(
      () => slack.responses.find((r) => r.path === new URL(responseUrl).pathname)?.body,
      20_000,
      'the answer',
    );
    expect(messageText(answer)).toContain('2 pipelines');
  }, 30_000);

  it('refuses an unsigned Slack request, and /mcp still refuses a foreign Host', async () => {
    const body = commandBody('pipeline list acme/web', { responseUrl: slack.responseUrl() });
    expect(
      (await post('/slack/events', 'forgeops.example.org', body, signedHeaders(body, { secret: 'wrong' }))).status,
    ).toBe(401);
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const mcp = await post('/mcp', `evil.example:${port}`, init, {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    });
    expect(mcp.status).toBe(403);
    expect(mcp.text).toMatch(/Host 'evil.example/);
  });
});
