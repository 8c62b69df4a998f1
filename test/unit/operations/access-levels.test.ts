// Access levels by name everywhere one is taken: every access-level field of the registry (found by its schema) takes
// each level's name and turns it into the number the service reads, publishes the names in its MCP schema and pairs
// them with the numbers in its description; chat takes `access_level=developer`.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { toolDescriptor } from '../../../src/mcp/tools.js';
import { operations } from '../../../src/operations/index.js';
import { ACCESS_LEVEL_NAMES } from '../../../src/operations/engine/present.js';
import { useSandbox } from '../../helpers/mcp.js';
import { testDispatcher } from '../../helpers/dispatcher.js';

const ajv = new Ajv2020({ strict: false });
const LEVELS = new Set(Object.keys(ACCESS_LEVEL_NAMES).map(Number));

type Schema = { type?: unknown; enum?: unknown[]; const?: unknown; anyOf?: Schema[]; description?: string };

/** The numbers a field's schema takes, when it is a closed set. */
function numbersOf(schema: Schema): number[] {
  const branches = schema.anyOf ?? [schema];
  return branches
    .flatMap((b) => b.enum ?? (b.const !== undefined ? [b.const] : []))
    .filter((v): v is number => typeof v === 'number');
}

/**
 * Every field that takes an access level, found by schema rather than by a list: a name saying so (access_level,
 * push_access_level, group_access) or a closed set of numbers that are all the service's levels.
 */
const levelFields = operations.flatMap((op) => {
  const properties = (
    z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, Schema> }
  ).properties;
  return Object.entries(properties)
    .filter(([key, schema]) => {
      const numbers = numbersOf(schema);
      return /(^|_)access(_level)?$/.test(key) || (numbers.length >= 2 && numbers.every((n) => LEVELS.has(n)));
    })
    .map(([key, schema]) => ({ op, key, levels: numbersOf(schema) }));
});

describe('access levels by name', () => {
  it('finds the access-level fields of members, project and group lists, and protected branches', () => {
    const found = levelFields.map(({ op, key }) => `${op.name}.${key}`);
    for (const expected of [
      'add_project_member.access_level',
      'update_group_member.access_level',
      'list_projects.min_access_level',
      'list_groups.min_access_level',
      'protect_branch.push_access_level',
      'protect_branch.merge_access_level',
    ]) {
      expect(found).toContain(expected);
    }
  });

  it.each(levelFields.map((f) => [`${f.op.name}.${f.key}`, f] as const))(
    '%s takes every level by name and says the names',
    (_field, { op, key, levels }) => {
      expect(levels.length, 'a closed set of levels').toBeGreaterThan(1);
      const field = (op.input.shape as Record<string, z.ZodType>)[key];
      const published = (toolDescriptor(op).inputSchema.properties as Record<string, Schema>)[key];
      const check = ajv.compile(published);
      for (const level of levels) {
        const name = ACCESS_LEVEL_NAMES[level];
        expect(name, `level ${level} has a name`).toBeDefined();
        // The zod schema itself takes the name and gives the number, so every front end sends the number.
        expect(field.parse(name)).toBe(level);
        expect(field.parse(level)).toBe(level);
        expect(check(name), `the MCP schema takes ${name}`).toBe(true);
        expect(check(level), `the MCP schema takes ${level}`).toBe(true);
        expect(published.description, 'the description pairs number and name').toContain(`${level} ${name}`);
      }
      expect(field.safeParse('superuser').success).toBe(false);
      expect(check('superuser')).toBe(false);
    },
  );
});

describe('access levels by name in chat', () => {
  const env = useSandbox();

  it('gives @erin developer access with access_level=developer, sending 30', async () => {
    const dispatcher = testDispatcher(() => env.client);
    const reply = await dispatcher.dispatch('project member add acme/handbook user_id=@erin access_level=developer');
    expect(reply.kind).toBe('message');
    if (reply.kind !== 'message') return;
    expect(reply.ok, reply.message.title).toBe(true);
    const sent = env.sandbox.requests
      .all()
      .filter((r) => r.method === 'POST' && r.path === '/projects/acme%2Fhandbook/members');
    expect(sent).toHaveLength(1);
    const members = await env.client.request<Array<{ username: string; access_level: number }>>({
      method: 'GET',
      path: '/projects/acme%2Fhandbook/members',
      idempotent: true,
    });
    expect(members.data.find((m) => m.username === 'erin')?.access_level).toBe(30);
  });
});
