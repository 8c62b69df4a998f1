// A person by username over MCP: every person field's published schema (tools/list) takes `erin` and `@erin` and
// says so, and an assistant gives erin developer access in one call, by username and level name.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { operations } from '../../../src/operations/index.js';
import { personKeys } from '../../../src/operations/engine/people.js';
import { connectInMemory, resultText, useSandbox } from '../../helpers/mcp.js';

const ajv = new Ajv2020({ strict: false });
const env = useSandbox();

describe('person fields in tools/list', () => {
  it('take a username, and say so, on every tool with one', async () => {
    const mcp = await connectInMemory({ client: env.client });
    try {
      const { tools } = await mcp.client.listTools();
      const fields = operations.flatMap((op) => personKeys(op).map((key) => ({ tool: op.name, key })));
      expect(fields.length).toBeGreaterThan(20);
      for (const { tool, key } of fields) {
        const schema = (
          tools.find((t) => t.name === tool)!.inputSchema.properties as Record<string, { description?: string }>
        )[key];
        const check = ajv.compile(schema);
        for (const value of ['erin', '@erin', 7])
          expect(check(value), `${tool}.${key} takes ${String(value)}`).toBe(true);
        expect(schema.description, `${tool}.${key} says a username is taken`).toMatch(/username/i);
      }
    } finally {
      await mcp.close();
    }
  });
});

describe('one call by username and level name', () => {
  it('gives erin developer access to a project', async () => {
    const mcp = await connectInMemory({ client: env.client });
    try {
      const before = env.sandbox.requests.all().length;
      const result = await mcp.client.callTool({
        name: 'add_project_member',
        arguments: { id: 'acme/handbook', user_id: 'erin', access_level: 'developer' },
      });
      expect(result.isError, resultText(result)).toBeFalsy();
      expect(resultText(result)).toMatch(/@erin .*developer/);
      // The name went out as the number the service reads.
      const added = env.sandbox.requests
        .all()
        .slice(before)
        .filter((r) => r.method === 'POST');
      expect(added.map((r) => r.path)).toEqual(['/projects/acme%2Fhandbook/members']);
      const members = await env.client.request<Array<{ username: string; access_level: number }>>({
        method: 'GET',
        path: '/projects/acme%2Fhandbook/members',
        idempotent: true,
      });
      expect(members.data.find((m) => m.username === 'erin')?.access_level).toBe(30);
    } finally {
      await mcp.close();
    }
  });
});
