// Which tools a server offers is worked out once per catalog and settings and then reused (a stateless request
// makes its server anew each time): servers with other settings, made in any order, must still each get their own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_MIME_TYPE } from '../../../src/apps/triage-app.js';
import { HttpClient } from '../../../src/http/client.js';
import type { McpServerOptions } from '../../../src/mcp/server.js';
import { connectInMemory } from '../../helpers/mcp.js';

const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } } };

// Nothing is called: a client on a closed port is enough to list tools.
let client: HttpClient;
beforeAll(() => {
  client = new HttpClient({ baseUrl: 'http://127.0.0.1:9', token: 'unused', retry: { maxRetries: 0 } });
});
afterAll(async () => {
  await client.close();
});

async function listedNames(settings: Partial<McpServerOptions>): Promise<string[]> {
  const mcp = await connectInMemory({ client, clientCapabilities: APPS_CAPABILITY, ...settings });
  try {
    return (await mcp.client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await mcp.close();
  }
}

describe('the tools a server offers', () => {
  it('follow each setting, whatever was offered before', async () => {
    const settings: Record<string, Partial<McpServerOptions>> = {
      every: { toolsets: ['all'] },
      readOnly: { toolsets: ['all'], readOnly: true },
      defaults: { toolsets: [] },
      withOneMore: { toolsets: ['default'], tools: ['delete_branch'] },
      noApps: { toolsets: [], apps: false },
    };
    const first: Record<string, string[]> = {};
    for (const [name, setting] of Object.entries(settings)) first[name] = await listedNames(setting);
    // Each setting changes the list: a key that left one out would hand one setting's list to another.
    expect(first.readOnly).not.toEqual(first.every);
    expect(first.every).toContain('delete_branch');
    expect(first.readOnly).not.toContain('delete_branch');
    expect(first.defaults).not.toContain('delete_branch');
    expect(first.withOneMore).toEqual([...first.defaults, 'delete_branch'].sort());
    expect(first.noApps).not.toEqual(first.defaults);
    // Asked again in another order, each gets the same list as the first time.
    for (const [name, setting] of Object.entries(settings).reverse()) {
      expect(await listedNames(setting), name).toEqual(first[name]);
    }
  });
});
