// Registry-wide rules every operation must follow: names, chat words, docs, routes, safety flags, pagination, JSON Schema.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation } from '../../../src/operations/engine/define.js';
import { operations } from '../../../src/operations/index.js';

interface Endpoint {
  area: string;
}

/** endpoints.tsv as "METHOD /path" → its line, so a route must be written exactly as listed. */
function readEndpoints(): Map<string, Endpoint> {
  const text = readFileSync(new URL('../../data/endpoints.tsv', import.meta.url), 'utf8');
  const [, ...lines] = text.trim().split('\n');
  return new Map(
    lines.map((line) => {
      const [method, path, area] = line.split('\t');
      return [`${method} ${path}`, { area }];
    }),
  );
}

type JsonSchema = Record<string, unknown>;

/** Lower-case words of a text or a snake_case / camelCase name. */
function words(text: string): string[] {
  return text
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/**
 * "path: description" of every property (nested objects, array items, unions) whose description only restates its
 * name ("Commit message." on commit_message, "User ID." on user_id): such a text costs every assistant bytes and
 * says nothing the name does not. A description is empty, or says something more.
 */
function restatedDescriptions(schema: JsonSchema, prefix = ''): string[] {
  const found: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  for (const [key, property] of Object.entries(properties)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const description = property.description;
    if (typeof description === 'string') {
      const nameWords = new Set(words(key));
      if (description.trim() === '' || words(description).every((word) => nameWords.has(word)))
        found.push(`${path}: ${description}`);
    }
    found.push(...restatedDescriptions(property, path));
  }
  if (schema.items && typeof schema.items === 'object')
    found.push(...restatedDescriptions(schema.items as JsonSchema, `${prefix}[]`));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const branch of (schema[key] ?? []) as JsonSchema[]) found.push(...restatedDescriptions(branch, prefix));
  }
  return found;
}

const endpoints = readEndpoints();

describe('operation registry', () => {
  it('has operations, with unique snake_case verb_noun names', () => {
    expect(operations.length).toBeGreaterThan(0);
    const names = operations.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/);
  });

  it('has unique, normalised chat words', () => {
    const chats = operations.map((op) => op.chat);
    expect(new Set(chats).size).toBe(chats.length);
    for (const chat of chats) expect(chat).toMatch(/^[a-z][a-z0-9-]*( [a-z][a-z0-9-]*)*$/);
  });

  it.each(operations.map((op) => [op.name, op] as const))(
    '%s has a title, a description and an effect',
    (_name, op) => {
      expect(op.title.trim().length).toBeGreaterThan(2);
      expect(op.description.trim().length).toBeGreaterThan(30);
      expect(['read', 'write', 'destructive']).toContain(op.effect);
    },
  );

  it.each(operations.map((op) => [op.name, op] as const))(
    '%s routes to a line of endpoints.tsv, in its area, or says it is outside the spec',
    (_name, op) => {
      const endpoint = endpoints.get(`${op.method} ${op.path}`);
      if (op.outsideSpec !== undefined) {
        // Beyond the spec: it names the docs it follows, and is not on a route the spec has (that one follows the spec).
        expect(op.outsideSpec.trim().length, 'the docs it follows').toBeGreaterThan(5);
        // A composed operation repeats the route of one of its parts, which may be the spec's.
        if (!op.composedOf)
          expect(endpoint, `${op.route} is in the spec: declare it without outsideSpec`).toBeUndefined();
        return;
      }
      expect(endpoint, `${op.route} is not in endpoints.tsv`).toBeDefined();
      expect(op.area).toBe(endpoint?.area);
    },
  );

  // A composed operation (wait_for_pipeline) has no endpoint of its own: it sends one of its parts' routes.
  it('routes no endpoint twice, composed operations aside', () => {
    const routes = operations.filter((op) => !op.composedOf).map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  const composed = operations.filter((op) => op.composedOf);
  it('has composed operations, and each is made of registered operations whose route it sends', () => {
    expect(composed.map((op) => op.name)).toContain('wait_for_pipeline');
    for (const op of composed) {
      const parts = op.composedOf!.map((name) => operations.find((o) => o.name === name));
      expect(
        parts.every((part) => part && !part.composedOf),
        `${op.name} is made of ${op.composedOf!.join(', ')}`,
      ).toBe(true);
      expect(
        parts.map((part) => part!.route),
        op.name,
      ).toContain(op.route);
      expect(op.run, op.name).toBeDefined();
    }
  });

  it('refuses a composed operation without a run, and a long-running change (no human can approve a background task)', () => {
    const wait = operations.find((op) => op.name === 'wait_for_pipeline')!;
    expect(wait.longRunning).toBe(true);
    const spec = { ...wait, run: undefined, longRunning: undefined };
    expect(() => defineOperation(spec)).toThrow(/a composed operation needs a run/);
    expect(() => defineOperation({ ...wait, effect: 'write', undo: 'Nothing.' })).toThrow(
      /only a read may be long-running/,
    );
  });

  // defineOperation already refuses a route whose parameters the input lacks; what it does not check is that a
  // path segment is required: an optional one would pass validation and fail later, while building the URL.
  const withSegments = operations.filter((op) => op.path.includes('/:'));
  it.each(withSegments.map((op) => [op.name, op] as const))('%s requires every path segment parameter', (_name, op) => {
    const segments = [...op.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]);
    const schema = z.toJSONSchema(op.input, { io: 'input' }) as JsonSchema;
    expect(schema.required).toEqual(expect.arrayContaining(segments));
  });

  it('lets only the optional [.suffix] of a route be left out', () => {
    const suffixed = operations.filter((op) => /\[\.[a-z_]+\]$/.test(op.path));
    expect(suffixed.map((op) => op.name)).toEqual(['download_archive']);
    const archive = suffixed[0];
    expect(archive.input.safeParse({ id: 1 }).success).toBe(true);
    expect(archive.input.safeParse({}).success).toBe(false);
  });

  it.each(operations.map((op) => [op.name, op] as const))(
    '%s has a JSON Schema whose field texts say more than the names',
    (_name, op) => {
      const schema = z.toJSONSchema(op.input, { io: 'input' }) as JsonSchema;
      expect(schema.type).toBe('object');
      expect(restatedDescriptions(schema)).toEqual([]);
    },
  );

  it('marks every delete destructive and every GET or HEAD a read', () => {
    for (const op of operations.filter((o) => o.method === 'DELETE')) expect(op.effect, op.name).toBe('destructive');
    // A composed change's route is the first request it sends, which may be the read that finds what it changes
    // (rollback_environment looks the environment up before it retries a deploy job): its effect is its own.
    for (const op of operations.filter((o) => (o.method === 'GET' || o.method === 'HEAD') && !o.composedOf))
      expect(op.effect, op.name).toBe('read');
  });

  it('reads HEAD answers as headers', () => {
    const heads = operations.filter((o) => o.method === 'HEAD');
    expect(heads.length).toBeGreaterThan(0);
    for (const op of heads) expect(op.response, op.name).toBe('headers');
  });

  it('marks no POST, PUT or PATCH a read, and every read idempotent but those a human may have to approve', () => {
    const writes = operations.filter((o) => ['POST', 'PUT', 'PATCH'].includes(o.method));
    expect(writes.length).toBeGreaterThan(0);
    for (const op of writes) expect(op.effect, op.name).not.toBe('read');
    // A read that reveals credentials asks first; what the human approved runs once, so it is never retried.
    for (const op of operations.filter((o) => o.effect === 'read'))
      expect(op.idempotent, op.name).toBe(!op.needsApproval);
  });

  // The service pages every list endpoint (20 by default); a list read without pagination silently stops at
  // the first page. Lists the service answers whole are named here, each with the reason.
  const UNPAGED_LISTS: Record<string, string> = {
    list_pipeline_variables: "a pipeline's variables come whole; the service takes no page parameters there",
    list_integrations: "a project's active integrations come whole; the spec lists no page parameters there",
    list_scim_users: "SCIM pages with its own startIndex and count (RFC 7644), which are the operation's inputs",
  };

  it('paginates every list_* operation except the lists answered whole, and nothing that is not a GET', () => {
    const lists = operations.filter((o) => o.name.startsWith('list_'));
    expect(lists.length).toBeGreaterThan(5);
    for (const op of lists) {
      if (op.name in UNPAGED_LISTS) expect(op.pagination, op.name).toBeUndefined();
      else expect(op.pagination, op.name).toBeDefined();
    }
    for (const op of operations.filter((o) => o.pagination)) expect(op.method, op.name).toBe('GET');
    for (const name of Object.keys(UNPAGED_LISTS)) expect(operations.map((o) => o.name)).toContain(name);
  });

  // Answers that are content rather than JSON, each with the reason.
  const RAW_RESPONSES: Record<string, string> = {
    download_archive: 'an archive (tar, zip) is bytes',
    download_group_export: 'a group export is a compressed archive',
    get_file_raw: 'a file as stored, binary or not',
    get_raw_blob: 'a blob as stored, binary or not',
    get_snippet_raw: 'a snippet is one file of plain text, served as text/plain',
  };

  it('reads raw bytes only from GET operations, and gives bytes operations no pagination', () => {
    const raw = operations.filter((o) => o.response === 'bytes' || o.response === 'text');
    expect(raw.map((o) => o.name).sort()).toEqual(Object.keys(RAW_RESPONSES).sort());
    for (const op of raw) expect([op.method, op.pagination]).toEqual(['GET', undefined]);
  });

  // Response fields whose names happen to start like a tool name.
  const FIELDS_LIKE_TOOLS = new Set(['compare_timeout', 'compare_same_ref']);

  it('names only tools that exist when a description points to another tool', () => {
    const names = new Set(operations.map((op) => op.name));
    const verbs = new Set(operations.map((op) => op.name.split('_')[0]));
    const mentioned = operations.flatMap((op) =>
      [...op.description.matchAll(/\b[a-z]+(?:_[a-z0-9]+)+\b/g)]
        .map((m) => m[0])
        .filter((token) => verbs.has(token.split('_')[0]) && !FIELDS_LIKE_TOOLS.has(token))
        .map((token) => [op.name, token] as const),
    );
    expect(mentioned.length).toBeGreaterThan(5);
    expect(mentioned.filter(([, token]) => !names.has(token))).toEqual([]);
  });

  it('finds descriptions that restate the name, in nested fields too', () => {
    const schema = z.toJSONSchema(
      z.object({
        commit_message: z.string().describe('Commit message.'),
        user_id: z.number().describe('User ID.'),
        id: z.number().describe('User ID.'),
        bare: z.string(),
        list: z.array(
          z.object({ externalId: z.string().describe('External ID'), note: z.string().describe('Markdown.') }),
        ),
      }),
      { io: 'input' },
    ) as JsonSchema;
    expect(restatedDescriptions(schema)).toEqual([
      'commit_message: Commit message.',
      'user_id: User ID.',
      'list[].externalId: External ID',
    ]);
  });
});
