// FORGEOPS_MAX_RESULT_CHARS holds for every operation and every shape of answer: a scripted service answers every
// request with huge data of one shape at a time (a list of wide objects, an object with long strings and nested
// lists, a very wide object, nested arrays, a bare long string, a long text body with runner sections), and every
// operation of the registry, reads and writes (approved by the client), is called through the MCP server with a
// small cap. The whole result as it travels (content and structuredContent together) stays within the cap plus
// the JSON-RPC envelope, and a result cut from a larger answer says so. The same calls through the chat dispatcher
// give replies of bounded size in the terminal and in Slack.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGE_CHARS } from '../../src/chat/bounds.js';
import { createDispatcher } from '../../src/chat/dispatch.js';
import { HttpClient } from '../../src/http/client.js';
import { operations } from '../../src/operations/index.js';
import { LIMITS, renderMessage as renderSlack } from '../../src/slack/blocks.js';
import { renderMessage as renderTerminal } from '../../src/terminal/render.js';
import { HOSTILE_LOGS } from '../../tools/bench/hostile-logs.mjs';
import { connectInMemory } from '../helpers/mcp.js';
import { sampleInput } from '../helpers/sample-input.js';

const CAP = 3000;
/** What a result may exceed the cap by: the JSON-RPC envelope around it, not data. */
const ENVELOPE = 100;

const long = (n: number, seed = 'abc') => `${seed} `.repeat(Math.ceil(n / (seed.length + 1))).slice(0, n);
const record = (i: number) => ({
  id: i + 1,
  iid: i + 1,
  name: `item-${i}`,
  title: `Item ${i}`,
  status: 'success',
  state: 'opened',
  ref: 'main',
  description: long(1500, `description ${i}`),
  web_url: `https://code.example/acme/web/-/items/${i}`,
  author: { id: 7, username: 'erin', name: 'Erin' },
  labels: Array.from({ length: 30 }, (_, j) => `label-${j}`),
});

/** Each shape of answer, as the service would send it: JSON (or text) of several hundred kilobytes. */
const SHAPES: Record<string, { type: string; body: string }> = {
  'a list of wide objects': {
    type: 'application/json',
    body: JSON.stringify(Array.from({ length: 150 }, (_, i) => record(i))),
  },
  'an object with long strings and nested lists': {
    type: 'application/json',
    body: JSON.stringify({
      ...record(0),
      description: long(200_000),
      diff: long(100_000, '+line'),
      sections: Array.from({ length: 5000 }, (_, i) => ({ name: `section_${i}`, lines: i, collapsed: i % 2 === 0 })),
      commits: Array.from({ length: 300 }, (_, i) => record(i)),
    }),
  },
  'a very wide object': {
    type: 'application/json',
    body: JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`setting_${i}`, `value ${i}`]))),
  },
  'nested arrays': {
    type: 'application/json',
    body: JSON.stringify(
      Array.from({ length: 40 }, (_, i) =>
        Array.from({ length: 40 }, (_, j) => Array.from({ length: 20 }, (_, k) => `cell ${i}.${j}.${k}`)),
      ),
    ),
  },
  'a bare long string': { type: 'application/json', body: JSON.stringify(long(400_000)) },
  'a long text with runner sections': { type: 'text/plain', body: HOSTILE_LOGS['alternating start and end'](400_000) },
};

let shape = SHAPES['a list of wide objects'];
let service: Server;
let client: HttpClient;

beforeAll(async () => {
  service = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': shape.type, 'x-gitlab-file-name': 'f', 'x-gitlab-size': '1' }).end();
        return;
      }
      res.writeHead(200, { 'content-type': `${shape.type}; charset=utf-8` }).end(shape.body);
    });
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  client = new HttpClient({
    baseUrl: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
    token: 'scripted',
    scimToken: 'scripted',
    retry: { maxRetries: 0 },
  });
});

afterAll(async () => {
  await client?.close();
  await new Promise<void>((resolve) => service?.close(() => resolve()));
});

/** Inputs the plain values of sampleInput cannot make (rules beyond the schema). */
const INPUTS: Record<string, Record<string, unknown>> = {
  create_commit: { id: 1, branch: 'main', commit_message: 'm', actions: [{ action: 'delete', file_path: 'a.txt' }] },
  create_scim_user: {
    group_path: 'acme',
    externalId: 'x1',
    userName: 'erin',
    emails: [{ type: 'work', value: 'erin@example.com', primary: true }],
    name: { formatted: 'Erin E', givenName: 'Erin', familyName: 'E' },
  },
  wait_for_pipeline: { id: 1, pipeline_id: 1, timeout_seconds: 1 },
  wait_until_settled: { id: 1, ref: 'main', timeout_seconds: 1 },
};

/** Operations that report on what they read (a verdict, a status) instead of showing it: nothing of theirs is cut. */
const REPORTS = new Set(['triage_project', 'wait_for_pipeline', 'wait_until_settled', 'check_button_premise']);

/** What says a result was cut. */
const SAYS_CUT =
  /truncat|cut to fit|too large|left out|not shown|more were read|the log is longer|the last \d+ lines?/i;

describe.each(Object.keys(SHAPES))('every operation, the service answering with %s', (name) => {
  it('keeps the whole result within the cap and says when it cut it', { timeout: 120_000 }, async () => {
    shape = SHAPES[name];
    const mcp = await connectInMemory({
      client,
      maxResultChars: CAP,
      callTimeoutMs: 10_000,
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    const over: string[] = [];
    const silent: string[] = [];
    let succeeded = 0;
    try {
      for (const op of operations) {
        const input = INPUTS[op.name] ?? sampleInput(op);
        expect(input, `${op.name}: no input to call it with`).toBeDefined();
        const result = await mcp.client.callTool({ name: op.name, arguments: input });
        const size = JSON.stringify({
          content: result.content,
          structuredContent: result.structuredContent,
          isError: result.isError,
        }).length;
        if (size > CAP + ENVELOPE) over.push(`${op.name}: ${size}`);
        if (result.isError) continue;
        succeeded++;
        // The service sent far more than the cap: unless the operation only reports on it (or reads headers alone),
        // the result says it was cut.
        if (!SAYS_CUT.test(JSON.stringify(result)) && !REPORTS.has(op.name) && op.response !== 'headers')
          silent.push(op.name);
      }
    } finally {
      await mcp.close();
    }
    expect(over, `results over the cap of ${CAP} characters`).toEqual([]);
    expect(silent, 'results cut without saying so').toEqual([]);
    // The answers did reach the operations: most of them succeed with any data.
    expect(succeeded).toBeGreaterThan(operations.length / 3);
  });
});

/** A chat reply as printed and as posted: the message's bound, plus its notes, buttons and layout. */
const TERMINAL_CHARS = MESSAGE_CHARS * 1.5;
const SLACK_JSON_CHARS = MESSAGE_CHARS * 2;

describe.each(Object.keys(SHAPES))('every operation in chat and Slack, the service answering with %s', (name) => {
  it('gives a reply of bounded size in the terminal and in Slack', { timeout: 120_000 }, async () => {
    shape = SHAPES[name];
    const chat = createDispatcher({
      operations,
      policy: { readOnly: false },
      runContext: () => ({ client }),
      explain: { operations },
      defaultProject: { get: () => undefined, set: () => undefined },
    });
    const over: string[] = [];
    let answered = 0;
    for (const op of operations) {
      // As after a person's yes: every operation runs, writes included.
      const reply = await chat.approved(op, INPUTS[op.name] ?? sampleInput(op)!);
      if (reply.kind !== 'message') continue;
      answered += reply.ok ? 1 : 0;
      const terminal = renderTerminal(reply.message, { operations });
      const slack = renderSlack(reply.message, { actionValue: (i) => `ref-${i}` });
      if (terminal.length > TERMINAL_CHARS) over.push(`${op.name}: terminal ${terminal.length}`);
      const posted = JSON.stringify(slack).length;
      if (posted > SLACK_JSON_CHARS || slack.blocks.length > LIMITS.blocks)
        over.push(`${op.name}: Slack ${posted} characters, ${slack.blocks.length} blocks`);
    }
    expect(over, 'replies over their bound').toEqual([]);
    expect(answered).toBeGreaterThan(operations.length / 3);
  });
});
