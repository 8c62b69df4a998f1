// Every read, run on the demo data through the chat dispatcher, reads as words in the terminal and in Slack: no JSON
// object or array (`{"`, `[{`, `":`, `[1,2]`, `[object Object]`) reaches a person, in any field, line or Block Kit text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher } from '../../src/chat/dispatch.js';
import { HttpClient } from '../../src/http/client.js';
import { operations } from '../../src/operations/index.js';
import { renderMessage as renderSlack } from '../../src/slack/blocks.js';
import { renderMessage as renderTerminal } from '../../src/terminal/render.js';
import { resolveDemoInput } from '../helpers/demo-input.js';
import { useSandbox } from '../helpers/mcp.js';

const env = useSandbox();

const GROUP = 'acme';
/** A project with members of its own: get_project_member's demo input reads it. */
const HANDBOOK = 'acme/handbook';

let adminClient: HttpClient | undefined;
afterAll(() => adminClient?.close());

// What the demo data lacks: a project member of its own, and a group export to download.
beforeAll(async () => {
  const erin = ((await read('/users', { username: 'erin' })) as Array<{ id: number }>)[0].id;
  await admin().request({
    method: 'POST',
    path: `/projects/${encodeURIComponent(HANDBOOK)}/members`,
    body: { user_id: erin, access_level: 20 },
    idempotent: false,
  });
  await admin().request({ method: 'POST', path: `/groups/${GROUP}/export`, idempotent: false });
});

/** The administrator's client: some reads are theirs alone. */
function admin(): HttpClient {
  adminClient ??= new HttpClient({
    baseUrl: env.sandbox.url,
    token: env.sandbox.tokens.admin,
    scimToken: env.sandbox.tokens.scim,
    retry: { maxRetries: 0 },
  });
  return adminClient;
}

/** A read for the values the operations' demo inputs look up (their demoLookup). */
async function read(path: string, query?: Record<string, string>): Promise<unknown> {
  return (await admin().request({ method: 'GET', path, query, idempotent: true })).data;
}

/** What JSON looks like when it reaches a person: an object or its keys, a list of values, a stringified object. */
const RAW_JSON: Array<[string, RegExp]> = [
  ['an object', /\{\s*"|\{\s*\}/],
  ['a JSON key', /"[^"\n]*"\s*:/],
  ['a list of objects or lists', /\[\s*[{[]/],
  [
    'a list of values',
    /\[\s*(?:-?\d[\d.]*|"[^"\n]*"|true|false|null)\s*(?:,\s*(?:-?\d[\d.]*|"[^"\n]*"|true|false|null)\s*)*\]|\[\s*\]/,
  ],
  ['a stringified object', /\[object \w+\]/],
];

function rawJsonIn(text: string): string | undefined {
  for (const [what, pattern] of RAW_JSON) {
    const match = pattern.exec(text);
    if (match) return `${what}: …${text.slice(Math.max(0, match.index - 30), match.index + 40)}…`;
  }
  return undefined;
}

/** Every text a Slack client shows: the fallback text and each `text` in the blocks, however deep. */
function slackTexts(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) slackTexts(item, out);
  else if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'text' && typeof inner === 'string') out.push(inner);
      else slackTexts(inner, out);
    }
  }
  return out;
}

/** Every text the service sent, file content decoded: what a code section may show as it came (a package.json is JSON). */
function sentTexts(data: unknown, out: string[] = []): string[] {
  if (Buffer.isBuffer(data)) out.push(data.toString('utf8'));
  else if (typeof data === 'string') out.push(data);
  else if (Array.isArray(data)) for (const item of data) sentTexts(item, out);
  else if (data !== null && typeof data === 'object') {
    const record = data as Record<string, unknown>;
    if (record.encoding === 'base64' && typeof record.content === 'string')
      out.push(Buffer.from(record.content, 'base64').toString('utf8'));
    for (const value of Object.values(record)) sentTexts(value, out);
  }
  return out;
}

/** JSON in a code section's line that is not the service's own text there (a file's, a diff's, a log's). */
function madeUpJsonIn(code: string, sent: string[]): string | undefined {
  for (const line of code.split('\n')) {
    const found = rawJsonIn(line);
    if (!found) continue;
    const from = Math.min(...RAW_JSON.map(([, pattern]) => pattern.exec(line)?.index ?? line.length));
    const rest = line.slice(from).trimEnd();
    if (!sent.some((text) => text.includes(rest))) return found;
  }
  return undefined;
}

describe.shuffle('readable-answers, in any order', () => {
  describe('every read reads as words, not JSON', () => {
    const reads = operations.filter((op) => op.effect === 'read');
    const dispatcher = createDispatcher({
      operations,
      policy: { readOnly: false },
      runContext: () => ({ client: admin() }),
      explain: { operations },
      defaultProject: { get: () => undefined, set: () => undefined },
    });

    it('has demo input for every read in the registry', () => {
      const without = reads
        .filter((op) => !op.examples?.length)
        .map((op) => `${op.name}: add \`examples: [{ input }]\``);
      expect(without).toEqual([]);
    });

    it.each(reads.map((op) => [op.name, op] as const))('%s', async (name, op) => {
      if (!op.examples?.length) throw new Error(`${name} declares no demo input: add \`examples: [{ input }]\` to it`);
      for (const example of op.examples) await readsAsWords(name, await resolveDemoInput(example.input, read));
    });

    async function readsAsWords(name: string, input: Record<string, unknown>): Promise<void> {
      let reply = await dispatcher.call(name, input);
      // The export is built in the background; its download answers 404 until it is there.
      for (
        let tries = 0;
        name === 'download_group_export' && reply.kind === 'message' && !reply.ok && tries < 50;
        tries++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        reply = await dispatcher.call(name, input);
      }
      if (reply.kind !== 'message') throw new Error(`${name} asked for an approval`);
      const { message, outcome } = reply;
      expect(
        reply.ok,
        `${name} failed on the demo data: ${message.title} ${message.sections.map((s) => s.text).join(' ')}`,
      ).toBe(true);
      // Code sections are checked on their own, against what the service sent; everything else is the presenter's words.
      const sent = sentTexts(outcome?.ok ? outcome.result.data : undefined);
      for (const section of message.sections.filter((s) => s.code))
        expect(madeUpJsonIn(section.text, sent), `code section:\n${section.text}`).toBeUndefined();
      const words = { ...message, sections: message.sections.filter((s) => !s.code) };
      const terminal = renderTerminal(words, { operations });
      expect(rawJsonIn(terminal), `terminal:\n${terminal}`).toBeUndefined();
      const slack = renderSlack(words, { actionValue: (i) => `ref-${i}` });
      for (const text of slackTexts(slack)) expect(rawJsonIn(text), `Slack: ${text}`).toBeUndefined();
    }
  });
});
