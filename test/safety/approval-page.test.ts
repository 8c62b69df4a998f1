// The approval page for clients that cannot ask (Claude Desktop): approve, deny, expire, replay, forged answers, caps, URL elicitation, cancel.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../../src/mcp/server.js';
import {
  createLocalApprovalPage,
  type LocalApprovalPage,
  type LocalApprovalPageOptions,
} from '../../src/approval/page.js';
import { MAX_SECRET_ATTEMPTS } from '../../src/approval/page-store.js';
import type { ApprovalPolicy } from '../../src/defaults.js';
import type { Logger } from '../../src/log.js';
import { connectInMemory, resultText, useSandbox, testServerOptions } from '../helpers/mcp.js';
import {
  answerPage as answer,
  deletesOf as deletesOfPipeline,
  newPipeline as createPipeline,
  openPage,
  PROJECT,
} from '../helpers/approval.js';

const env = useSandbox();
const SECRET = 'correct horse battery staple';

/** The stderr log as the operator reads it: the page's links arrive here, and only here. */
function capturingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const push = (line: string) => {
    lines.push(line);
  };
  return { log: { error: push, warn: push, info: push, debug: push }, lines };
}

const pages: LocalApprovalPage[] = [];
afterEach(async () => {
  for (const page of pages.splice(0)) await page.close();
});

function startPage(options: Partial<LocalApprovalPageOptions> = {}) {
  const { log, lines } = capturingLog();
  const page = createLocalApprovalPage({ port: 0, log, ...options });
  pages.push(page);
  return { page, lines };
}

async function connect(
  page: LocalApprovalPage,
  approval: ApprovalPolicy = 'page',
  extra: Parameters<typeof connectInMemory>[0] extends infer O ? Partial<O> : never = {},
) {
  return connectInMemory({ client: env.client, approval, approvals: page.store, progressIntervalMs: 20, ...extra });
}

/**
 * A fresh pipeline, and a call to delete it through a session on a page started with `options`, waiting for approval:
 * the session, the pipeline, the pending call and the approval link the log showed.
 */
async function deleteAwaitingApproval(options: Partial<LocalApprovalPageOptions> = {}) {
  const { page, lines } = startPage(options);
  const mcp = await connect(page);
  const pipeline = await newPipeline();
  const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
  return { page, lines, mcp, pipeline, call, link: await linkInLog(lines) };
}

/** Waits (bounded) for the n-th link the log shows. */
async function linkInLog(lines: string[], n = 1): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const links = lines.flatMap((line) => /approval needed for \w+: open (\S+) /.exec(line)?.[1] ?? []);
    if (links.length >= n) return links[n - 1];
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no approval link in the log: ${lines.join(' | ')}`);
}

const deletesOf = (pipeline: number) => deletesOfPipeline(env.sandbox, pipeline);
const newPipeline = () => createPipeline(env.client);

describe('the approval page, for a client without elicitation', () => {
  it('runs the call once the human approves on the page; the link reaches the log, never the model', async () => {
    const { page, lines } = startPage();
    const mcp = await connect(page);
    const pipeline = await newPipeline();
    const progress: string[] = [];
    const call = mcp.client.callTool(
      { name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } },
      undefined,
      {
        onprogress: (p) => {
          progress.push(p.message ?? '');
        },
        resetTimeoutOnProgress: true,
      },
    );
    const link = await linkInLog(lines);
    const shown = await openPage(link);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(`pipeline_id: ${pipeline}`);
    expect(shown.html).toMatch(/expires at <time>\d{4}-\d\d-\d\dT/);
    expect(shown.html).not.toContain('name="secret"');
    expect(shown.headers.get('cache-control')).toMatch(/no-store/);
    expect(shown.headers.get('x-frame-options')).toBe('DENY');
    // The call keeps the client informed while it waits, without the link.
    for (let i = 0; i < 300 && progress.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(progress.some((m) => /approval page/.test(m))).toBe(true);
    expect(deletesOf(pipeline)).toHaveLength(0);

    const approved = await answer(link, { nonce: shown.nonce!, decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(approved.text).toMatch(/Approved/);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(deletesOf(pipeline)).toHaveLength(1);
    const id = new URL(link).pathname.split('/').pop()!;
    expect(JSON.stringify(result)).not.toContain(id);
    expect(progress.join('\n')).not.toContain(id);
    await mcp.close();
  });

  it('names the replica in the link when replicas share a balancer (FORGEOPS_REPLICA_ID), and works the same', async () => {
    const { mcp, pipeline, call, link } = await deleteAwaitingApproval({ replicaId: 'r2' });
    expect(new URL(link).pathname).toMatch(/^\/approvals\/r2\.[A-Za-z0-9_-]{16,64}$/);
    const shown = await openPage(link);
    expect(shown.status).toBe(200);
    expect((await answer(link, { nonce: shown.nonce!, decision: 'approve' })).status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(deletesOf(pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it('runs nothing when the human denies', async () => {
    const { mcp, pipeline, call, link } = await deleteAwaitingApproval();
    const denied = await answer(link, { nonce: (await openPage(link)).nonce!, decision: 'deny' });
    expect(denied.status).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/denied the call on the approval page; nothing was changed/);
    expect(deletesOf(pipeline)).toHaveLength(0);
    expect((await openPage(link)).status).toBe(410);
    await mcp.close();
  });

  it('refuses the call when no one answers before the approval expires, and a late approval does nothing', async () => {
    const { mcp, pipeline, call, link } = await deleteAwaitingApproval({ ttlMs: 150 });
    const { nonce } = await openPage(link);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/expired and nothing was changed/);
    const late = await answer(link, { nonce: nonce!, decision: 'approve' });
    expect(late.status).toBe(410);
    expect(late.text).toMatch(/expired/);
    expect(deletesOf(pipeline)).toHaveLength(0);
    await mcp.close();
  });

  it('refuses a replayed approval: the call runs exactly once', async () => {
    const { mcp, pipeline, call, link } = await deleteAwaitingApproval();
    const { nonce } = await openPage(link);
    const both = await Promise.all([
      answer(link, { nonce: nonce!, decision: 'approve' }),
      answer(link, { nonce: nonce!, decision: 'approve' }),
    ]);
    expect(both.map((b) => b.status).sort()).toEqual([200, 410]);
    expect((await call).isError).toBeFalsy();
    const replay = await answer(link, { nonce: nonce!, decision: 'approve' });
    expect(replay.status).toBe(410);
    expect(replay.text).toMatch(/already approved/);
    expect(deletesOf(pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it('shows the exact call HTML-escaped', async () => {
    const { page, lines } = startPage();
    const mcp = await connect(page);
    const path = '<img src=x onerror=alert(1)>.txt';
    const call = mcp.client.callTool({
      name: 'delete_file',
      arguments: { id: PROJECT, file_path: path, branch: 'main', commit_message: 'rm' },
    });
    const link = await linkInLog(lines);
    const shown = await openPage(link);
    expect(shown.html).not.toContain('<img');
    expect(shown.html).toContain('&#60;img src=x onerror=alert(1)&#62;.txt');
    await answer(link, { nonce: shown.nonce!, decision: 'deny' });
    expect((await call).isError).toBe(true);
    await mcp.close();
  });
});

describe('answers that do not come from the human on the page', () => {
  it('refuses a wrong or missing passphrase, a missing nonce, a foreign or missing Origin and a foreign Host, and the call still waits', async () => {
    const { page, lines, mcp, pipeline, call, link } = await deleteAwaitingApproval({ secret: SECRET });
    const shown = await openPage(link);
    expect(shown.html).toContain('name="secret"');
    const nonce = shown.nonce!;

    expect((await answer(link, { nonce, decision: 'approve', secret: 'not the passphrase' })).status).toBe(403);
    expect((await answer(link, { nonce, decision: 'approve' })).status).toBe(403);
    expect((await answer(link, { decision: 'approve', secret: SECRET })).status).toBe(403);
    expect((await answer(link, { nonce: 'guessed', decision: 'approve', secret: SECRET })).status).toBe(403);
    expect(
      (await answer(link, { nonce, decision: 'approve', secret: SECRET }, { origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect((await answer(link, { nonce, decision: 'approve', secret: SECRET }, {})).status).toBe(403);
    // DNS rebinding: evil.example resolved to 127.0.0.1 reaches the port but names itself in Host.
    const { port } = new URL(link);
    const rebound = await request(link, { method: 'GET', headers: { host: `evil.example:${port}` } });
    expect(rebound.statusCode).toBe(403);
    expect(await rebound.body.text()).not.toContain(nonce);
    expect(page.store.pending).toBe(1);
    expect(deletesOf(pipeline)).toHaveLength(0);
    expect(lines.join('\n')).not.toContain(SECRET);

    expect((await answer(link, { nonce, decision: 'approve', secret: SECRET })).status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(deletesOf(pipeline)).toHaveLength(1);
    await mcp.close();
  });

  it(`closes an approval after ${MAX_SECRET_ATTEMPTS} wrong passphrases, so the passphrase cannot be guessed through it`, async () => {
    const { page, lines } = startPage({ secret: SECRET });
    const mcp = await connect(page);
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: 999_001 } });
    const link = await linkInLog(lines);
    const { nonce } = await openPage(link);
    for (let i = 0; i < MAX_SECRET_ATTEMPTS; i++)
      await answer(link, { nonce: nonce!, decision: 'approve', secret: `guess ${i}` });
    expect((await answer(link, { nonce: nonce!, decision: 'approve', secret: SECRET })).status).toBe(410);
    expect(resultText(await call)).toMatch(/wrong passphrases/);
    expect(deletesOf(999_001)).toHaveLength(0);
    await mcp.close();
  });
});

describe('limits and the end of a wait', () => {
  it('caps the calls waiting on the page over all sessions, and runs none of the refused ones', async () => {
    const { page, lines } = startPage({ maxPending: 1 });
    const first = await connect(page);
    const second = await connect(page);
    const waiting = first.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: PROJECT, pipeline_id: 999_002 },
    });
    const link = await linkInLog(lines);
    const refused = await second.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: PROJECT, pipeline_id: 999_003 },
    });
    expect(refused.isError).toBe(true);
    expect(resultText(refused)).toMatch(/1 calls already wait for a human on the approval page; nothing was changed/);
    await answer(link, { nonce: (await openPage(link)).nonce!, decision: 'deny' });
    expect((await waiting).isError).toBe(true);
    expect(page.store.pending).toBe(0);
    await Promise.all([first.close(), second.close()]);
  });

  it('withdraws the approval when the client cancels the call', async () => {
    const { page, lines } = startPage();
    const mcp = await connect(page);
    const controller = new AbortController();
    const call = mcp.client.callTool(
      { name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: 999_004 } },
      undefined,
      { signal: controller.signal },
    );
    const link = await linkInLog(lines);
    const { nonce } = await openPage(link);
    controller.abort('the user pressed stop');
    await expect(call).rejects.toThrow();
    for (let i = 0; i < 300 && page.store.pending > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(page.store.pending).toBe(0);
    expect((await answer(link, { nonce: nonce!, decision: 'approve' })).status).toBe(410);
    expect(deletesOf(999_004)).toHaveLength(0);
    await mcp.close();
  });

  it('with the page policy, never asks through a form the client (or its model) might answer', async () => {
    const { page, lines } = startPage();
    const formQuestions: string[] = [];
    const mcp = await connect(page, 'page', {
      elicit: (message) => {
        formQuestions.push(message);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: 999_005 } });
    const link = await linkInLog(lines);
    await answer(link, { nonce: (await openPage(link)).nonce!, decision: 'deny' });
    expect((await call).isError).toBe(true);
    expect(formQuestions).toEqual([]);
    await mcp.close();
  });

  it('without a page, the elicit policy refuses a client that cannot ask', async () => {
    const mcp = await connectInMemory({ client: env.client, approval: 'elicit' });
    const result = await mcp.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: PROJECT, pipeline_id: 999_006 },
    });
    expect(resultText(result)).toMatch(/cannot ask \(it does not support elicitation\)/);
    await mcp.close();
  });
});

/** A client that declared URL-mode elicitation only (no form), answering the link with `answer`. */
async function connectUrlClient(page: LocalApprovalPage, answer: (url: string) => ElicitResult) {
  const server = createMcpServer({
    ...testServerOptions(env.client),
    approvals: page.store,
  });
  const client = new Client({ name: 'url-client', version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
  const asked: Array<{ url: string; elicitationId: string; message: string }> = [];
  const completed: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    const params = req.params as { mode?: string; url: string; elicitationId: string; message: string };
    expect(params.mode).toBe('url');
    asked.push(params);
    return answer(params.url);
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    completed.push(n.params.elicitationId);
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    asked,
    completed,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describe('a client with URL-mode elicitation', () => {
  it('is sent the page by URL elicitation (default policy), approves there, and hears the elicitation complete', async () => {
    const { page } = startPage();
    const mcp = await connectUrlClient(page, () => ({ action: 'accept' }));
    const pipeline = await newPipeline();
    const call = mcp.client.callTool({ name: 'delete_pipeline', arguments: { id: PROJECT, pipeline_id: pipeline } });
    for (let i = 0; i < 300 && mcp.asked.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const [{ url, elicitationId, message }] = mcp.asked;
    expect(message).toMatch(/delete_pipeline/);
    expect(url).not.toContain(elicitationId);
    const shown = await openPage(url);
    expect(shown.html).toContain(`pipeline_id: ${pipeline}`);
    expect((await answer(url, { nonce: shown.nonce!, decision: 'approve' })).status).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(deletesOf(pipeline)).toHaveLength(1);
    for (let i = 0; i < 300 && mcp.completed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(mcp.completed).toEqual([elicitationId]);
    await mcp.close();
  });

  it('runs nothing, and closes the page, when the user declines to open it', async () => {
    const { page } = startPage();
    const mcp = await connectUrlClient(page, () => ({ action: 'decline' }));
    const result = await mcp.client.callTool({
      name: 'delete_pipeline',
      arguments: { id: PROJECT, pipeline_id: 999_007 },
    });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/declined the approval; nothing was changed/);
    expect((await openPage(mcp.asked[0].url)).status).toBe(410);
    expect(page.store.pending).toBe(0);
    expect(deletesOf(999_007)).toHaveLength(0);
    await mcp.close();
  });
});
