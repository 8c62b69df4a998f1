// Everything shown inside an approval request goes through one escaping rule: every kind of field (names the service
// gives, paths, refs, titles, keys, values, reasons) holding hostile text — line breaks, direction overrides,
// invisible and control characters, ANSI escapes, Slack and HTML markup — keeps the question's lines as they are
// (one line per argument, nothing forged) and shows the hostile characters spelled out, in every channel: the MCP
// form of both protocol revisions, the terminal chat, Slack's question and approver message, and the approval page.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { fetch } from 'undici';
import type { ChatReply } from '../../src/chat/dispatch.js';
import { HttpClient } from '../../src/http/client.js';
import { createLocalApprovalPage, type LocalApprovalPage } from '../../src/approval/page.js';
import type { McpHttpServer } from '../../src/mcp/http/server.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { findOperation, operations } from '../../src/operations/index.js';
import type { Operation } from '../../src/operations/engine/define.js';
import { inheritedRefusal } from '../../src/operations/areas/shared/member-source.js';
import { renderApprovalRequest } from '../../src/slack/approver.js';
import { CONTINUED, renderApproval, type Block } from '../../src/slack/blocks.js';
import { APPROVAL_QUESTION } from '../../src/terminal/approver.js';
import { renderMessage } from '../../src/terminal/render.js';
import { startHostileService, type HostileService } from '../helpers/hostile-service.js';
import { manualClient } from '../helpers/mcp-v2.js';
import { startHttp } from './mcp-harness.js';
import { testServerOptions } from '../helpers/mcp.js';
import { testDispatcher } from '../helpers/dispatcher.js';
import { statelessEndpoint } from '../safety/mcp-harness.js';

/** Each hostile piece, named; HOSTILE is all of them in one text, and every field below holds it. */
const PIECES = {
  'line feed that forges an argument': '\n  user_id: "Alice Admin" (@alice, id 2)',
  'carriage return': 'a\rb',
  'line and paragraph separators': 'c\u2028d\u2029e',
  'next line (C1)': 'f\u0085g',
  'right-to-left override': 'invoice\u202Egpj.exe',
  isolates: '\u2066x\u2069',
  'zero-width space and joiner, BOM': 'ma\u200Bi\u200Dn\uFEFF',
  'C0 and C1 controls': '\u0007\u0008\u009B',
  'ANSI colour escape': '\u001b[31mred\u001b[0m',
  'Slack mentions': '<!channel> <@U123>',
  'Slack mrkdwn': '*bold* _it_ ~gone~',
  HTML: '<script>alert(1)</script>',
} as const;
const HOSTILE = Object.values(PIECES).join(' ');

/** The characters a reader could not see for what they are, and how each must read: \u000a, \u202e, … */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
const hiddenIn = (text: string) => [...new Set(text.match(HIDDEN) ?? [])];
const spelled = (c: string) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;

/** Hostile characters a rendering carries raw; `layout` names the characters the channel itself lays text out with. */
function rawHidden(text: string, layout = '\n'): string[] {
  return hiddenIn(text)
    .filter((c) => !layout.includes(c))
    .map(spelled);
}

interface Kind {
  operation: string;
  args: Record<string, unknown>;
  /** The service's fields this kind shows ("{name}…" in its answers), each of which must be spelled out. */
  fields?: string[];
  /** Whether the hostile text itself is shown (spelled out); false where it is summarised or secret. */
  shown: boolean;
}

/**
 * Every kind of field an approval request shows. Names, paths, jobs and pipelines come from the hostile service (the ids
 * below are looked up there; user 66's lookup fails in the service's words); the rest is typed into the call, with
 * the project named by path so that the kind under test is the only hostile text in the question.
 */
const KINDS: Record<string, Kind> = {
  'person display name': {
    operation: 'remove_project_member',
    args: { id: 'acme/web', user_id: 6 },
    fields: ['name'],
    shown: true,
  },
  username: {
    operation: 'update_project_member',
    args: { id: 'acme/web', user_id: 6, access_level: 40 },
    fields: ['username'],
    shown: true,
  },
  'project path': {
    operation: 'delete_pipeline',
    args: { id: 5, pipeline_id: 3 },
    fields: ['path_with_namespace'],
    shown: true,
  },
  'group path': { operation: 'remove_group_member', args: { id: 7, user_id: 6 }, fields: ['full_path'], shown: true },
  "a failed lookup, in the service's words": {
    operation: 'remove_group_member',
    args: { id: 'acme', user_id: 66 },
    fields: ['message'],
    shown: true,
  },
  'job name, stage, ref and status': {
    operation: 'cancel_job',
    args: { id: 'acme/web', job_id: 32 },
    fields: ['name', 'stage', 'ref', 'status'],
    shown: true,
  },
  'pipeline ref and status': {
    operation: 'cancel_pipeline',
    args: { id: 'acme/web', pipeline_id: 9 },
    fields: ['ref', 'status'],
    shown: true,
  },
  branch: { operation: 'delete_branch', args: { id: 'acme/web', branch: HOSTILE }, shown: true },
  'tag (a ref)': { operation: 'delete_tag', args: { id: 'acme/web', tag_name: HOSTILE }, shown: true },
  'file path': {
    operation: 'delete_file',
    args: { id: 'acme/web', file_path: HOSTILE, branch: 'main', commit_message: 'x' },
    shown: true,
  },
  'issue title': { operation: 'update_issue', args: { id: 'acme/web', issue_iid: 1, title: HOSTILE }, shown: true },
  'merge request title': {
    operation: 'update_merge_request',
    args: { id: 'acme/web', merge_request_iid: 1, title: HOSTILE },
    shown: true,
  },
  label: {
    operation: 'update_issue',
    args: { id: 'acme/web', issue_iid: 1, title: 'x', labels: HOSTILE },
    shown: true,
  },
  'object key': { operation: 'update_application_settings', args: { settings: { [HOSTILE]: 'x' } }, shown: true },
  'object value': {
    operation: 'update_application_settings',
    args: { settings: { after_sign_up_text: HOSTILE } },
    shown: true,
  },
  'array item': {
    operation: 'create_commit',
    args: { id: 'acme/web', branch: 'main', commit_message: 'x', actions: [{ action: 'delete', file_path: HOSTILE }] },
    shown: true,
  },
  'nested object value': {
    operation: 'set_integration',
    args: { id: 'acme/web', slug: 'slack', settings: { channel: HOSTILE } },
    shown: true,
  },
  'reason text (quoting the input)': {
    operation: 'set_integration',
    args: { id: 'acme/web', slug: HOSTILE, settings: { channel: 'x' } },
    shown: true,
  },
  'secret summary URL': {
    operation: 'set_integration',
    args: {
      id: 'acme/web',
      slug: 'slack',
      settings: { webhook: `https://hooks.example/${encodeURIComponent(HOSTILE)}` },
    },
    shown: false,
  },
  'long free text (summarised)': {
    operation: 'update_issue',
    args: { id: 'acme/web', issue_iid: 1, description: HOSTILE.repeat(10) },
    shown: false,
  },
};

/**
 * The question's lines as the policy lays them out: the operation and reason, "The exact call:", then one line per
 * argument (an array of objects: its label, then one line per element). Anything else is a forged line.
 */
function expectStructure(prompt: string, op: Operation, input: Record<string, unknown>, where: string): void {
  const lines = prompt.split('\n');
  const args = Object.values(input).filter((v) => v !== undefined);
  const expected =
    2 +
    args.reduce<number>(
      (n, v) => n + 1 + (Array.isArray(v) && v.some((i) => i && typeof i === 'object') ? v.length : 0),
      0,
    );
  expect(lines, `${where}: one line per argument`).toHaveLength(expected);
  expect(lines[0].startsWith(`${op.title} (${op.name}): `), where).toBe(true);
  expect(lines[1], where).toBe('The exact call:');
  for (const line of lines.slice(2))
    expect(line, `${where}: an argument's line`).toMatch(/^ {2}[a-z_]+:( |$)|^ {4}\d+\. /);
  expect(rawHidden(prompt), `${where}: hidden characters shown raw`).toEqual([]);
}

/** The hostile characters of HOSTILE, each spelled out in the question. */
function expectSpelledOut(text: string, where: string): void {
  const missing = hiddenIn(HOSTILE)
    .filter((c) => !text.includes(spelled(c)))
    .map(spelled);
  expect(missing, `${where}: not spelled out`).toEqual([]);
}

const unescapeHtml = (html: string) =>
  html.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
const unescapeMrkdwn = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Every text a person sees in Block Kit: sections, fields, context, buttons and their dialogs. */
function blockTexts(blocks: Block[]): string[] {
  return JSON.stringify(blocks)
    .match(/"text":"(?:[^"\\]|\\.)*"/g)!
    .map((t) => JSON.parse(`{${t}}`).text as string);
}

/**
 * The question inside Slack's code blocks, as typed: the fences taken off and mrkdwn's escapes read back. A line too
 * long for one block goes on in the next, marked as going on (CONTINUED), never as a line of its own.
 */
function slackQuestion(blocks: Block[], where: string): string {
  const lines = blocks
    .flatMap((b) => {
      const text = (b as { text?: { text?: string } }).text?.text ?? '';
      return text.startsWith('```') ? [unescapeMrkdwn(text.slice(3, -3))] : [];
    })
    .join('\n')
    .split('\n');
  for (const line of lines.filter((l) => !l.startsWith(CONTINUED)))
    expect(line, `${where}: a line's start`).toMatch(/^\S.*\(\w+\): |^The exact call:$|^ {2}[a-z_]+:( |$)|^ {4}\d+\. /);
  return lines.join('\n').replaceAll(`\n${CONTINUED}`, '');
}

function expectSafeSlack(blocks: Block[], where: string): void {
  const texts = blockTexts(blocks);
  for (const text of texts) {
    expect(rawHidden(text), `${where}: hidden characters shown raw`).toEqual([]);
    // Slack reads <!channel>, <@U…> and <url|label> anywhere but in an escaped form; mrkdwn only outside code.
    expect(text, where).not.toMatch(/<[!@#]|<script|<https?:/);
    if (text.includes('*bold*'))
      expect(text.startsWith('```') && text.endsWith('```'), `${where}: markup outside code`).toBe(true);
  }
}

let service: HostileService;
let client: HttpClient;
let page: LocalApprovalPage;
let stateless: McpHttpServer;
const links: string[] = [];

beforeAll(async () => {
  service = await startHostileService({ text: HOSTILE, failingUsers: [66] });
  client = new HttpClient({ baseUrl: service.url, token: 'hostile-service-token', retry: { maxRetries: 0 } });
  page = createLocalApprovalPage({ port: 0, maxPending: 64 });
  page.store.onOpen((opened) => links.push(opened.url));
  const serverOptions = () => ({
    ...testServerOptions(client),
  });
  stateless = await startHttp(client, {
    stateless: () => statelessEndpoint(serverOptions),
  });
});

afterAll(async () => {
  await stateless?.close();
  await page?.close();
  await client?.close();
  await service?.close();
});

function chat() {
  return testDispatcher(() => client);
}

/** The 2025-11-25 form question a real MCP client is sent for this call (the client declines it). */
async function mcpQuestion(name: string, args: Record<string, unknown>) {
  const server = createMcpServer({
    ...testServerOptions(client),
    toolsets: ['all'],
  });
  const mcp = new Client({ name: 'field-kinds', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  const asked: Array<{ message: string; requestedSchema: unknown }> = [];
  mcp.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params as { message: string; requestedSchema: unknown });
    return { action: 'decline' };
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), mcp.connect(clientSide)]);
  try {
    await mcp.callTool({ name, arguments: args });
  } finally {
    await mcp.close();
    await server.close();
  }
  expect(asked, 'one question').toHaveLength(1);
  return asked[0];
}

/** The 2026-07-28 question: the form inside the input_required answer. */
async function statelessQuestion(name: string, args: Record<string, unknown>) {
  const { client: v2, call } = await manualClient(stateless.url);
  try {
    const result = (await call(name, args)) as {
      inputRequests?: Record<string, { params?: { message: string; requestedSchema: unknown } }>;
    };
    const params = result.inputRequests?.confirm?.params;
    expect(params, 'an input_required form').toBeDefined();
    return params!;
  } finally {
    await v2.close();
  }
}

async function approvalPage(reply: Extract<ChatReply, { kind: 'approve' }>): Promise<string> {
  const opened = await page.store.open({
    operation: reply.operation.name,
    input: reply.input,
    prompt: reply.prompt,
    answers: reply.answers,
  });
  expect(opened.ok).toBe(true);
  const html = await (await fetch(links.at(-1)!)).text();
  if (opened.ok) opened.approval.withdraw('test done');
  return html;
}

describe('every kind of field in an approval request, holding hostile text, in every channel', () => {
  it('holds every piece of hostile text the question must survive', () => {
    for (const [name, piece] of Object.entries(PIECES)) expect(HOSTILE, name).toContain(piece);
  });

  for (const [kind, { operation, args, fields, shown }] of Object.entries(KINDS)) {
    it(`${kind}: keeps one line per argument and spells the hostile characters out`, async () => {
      const op = findOperation(operation)!;
      const reply = await chat().call(operation, args);
      expect(reply.kind, JSON.stringify(reply.message)).toBe('approve');
      if (reply.kind !== 'approve') return;
      const { prompt } = reply;
      expectStructure(prompt, op, reply.input, 'the question');
      if (shown) expectSpelledOut(prompt, 'the question');
      else expect(prompt).not.toContain('invoice');
      // Each of the service's fields this kind shows is in the question, its hostile text spelled out right after it.
      for (const field of fields ?? [])
        expect(prompt, `the service's ${field}`).toContain(`{${field}}${spelled(HOSTILE[0])}`);

      // MCP, 2025-11-25: the form elicitation's message is the question, then the one thing asked.
      const form = await mcpQuestion(operation, args);
      expect(form.message, 'the MCP question').toBe(`${prompt}\n\nRun exactly this call?`);
      expect(rawHidden(form.message)).toEqual([]);
      expect(rawHidden(JSON.stringify(form.requestedSchema))).toEqual([]);

      // MCP, 2026-07-28: the input_required form says the same.
      const modern = await statelessQuestion(operation, args);
      expect(modern.message, 'the 2026-07-28 question').toBe(form.message);

      // The terminal chat: the question indented as a block, then y/N; no escape sequence reaches the terminal.
      const terminal = `${renderMessage(reply.message, { operations, color: false })}${APPROVAL_QUESTION}`;
      expect(terminal).toContain(
        prompt
          .split('\n')
          .map((line) => `    ${line}`)
          .join('\n'),
      );
      expect(terminal.split('\n')).toHaveLength(prompt.split('\n').length + 5);
      expect(rawHidden(terminal), 'the terminal').toEqual([]);

      // Slack: the question in code blocks, mrkdwn escaped on top (no mention, link or formatting from the data).
      const question = renderApproval(prompt, 'T1:U1:ticket', { operation, answers: reply.answers });
      expect(question).toBeDefined();
      expect(slackQuestion(question!.blocks, "Slack's question")).toBe(prompt);
      expectSafeSlack(question!.blocks, "Slack's question");
      const approver = renderApprovalRequest({
        id: 'a1',
        url: 'http://127.0.0.1/x',
        operation,
        prompt,
        answers: reply.answers,
        expiresAt: Date.now() + 60_000,
      });
      expect(slackQuestion(approver!.blocks, "the Slack approver's message")).toBe(prompt);
      expectSafeSlack(approver!.blocks, "the Slack approver's message");

      // The approval page: the question HTML-escaped on top, one numbered line per line of it (a line the browser
      // wraps goes on unnumbered), and no markup from the data.
      const html = await approvalPage(reply);
      const pre = [...html.matchAll(/<pre class="question">([\s\S]*?)<\/pre>/g)].map((m) => m[1]);
      expect(pre, 'the approval page').toHaveLength(1);
      const lines = [...pre[0].matchAll(/<span>([^<]*)<\/span>/g)].map((m) => unescapeHtml(m[1]));
      expect(pre[0], 'the approval page').toBe(
        lines.map((line) => `<span>${line.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</span>`).join(''),
      );
      expect(lines.join('\n'), 'the approval page').toBe(prompt);
      expect(html).toMatch(/\.question span::before\{counter-increment:line;content:counter\(line\)/);
      expect(html).not.toMatch(/<script|<!channel>/);
      expect(rawHidden(html), 'the approval page').toEqual([]);
    });
  }
});

describe("what is said instead of a question, with the service's names in it", () => {
  it('a change to access inherited from a group is refused naming the user, the place and the groups, each spelled out', () => {
    const text = (field: string) => `{${field}}${HOSTILE}`;
    for (const change of ['remove', 'update'] as const) {
      const refusal = inheritedRefusal(
        'project',
        { id: 5, user_id: 6, access_level: 50 },
        {
          direct: false,
          username: text('username'),
          place: text('place'),
          access: 30,
          sources: [
            { path: text('path'), access_level: 30 },
            { path: text('parent'), access_level: 40 },
          ],
        },
        change,
      )!;
      expect(refusal.split('\n'), `${change}: one paragraph`).toHaveLength(1);
      expect(rawHidden(refusal, ''), change).toEqual([]);
      for (const field of ['username', 'place', 'path', 'parent'])
        expect(refusal, `${change}: ${field}`).toContain(`{${field}}${spelled(HOSTILE[0])}`);
    }
  });
});
