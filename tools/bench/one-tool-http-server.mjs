// The first-call baseline of tools/bench/mcp.mjs: the SDK's McpServer with one zod tool over stdio, plain ESM, whose tool
// makes the request forgeops' list_pipelines makes (undici, PRIVATE-TOKEN) against BENCH_SERVICE_URL.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { request } from 'undici';
import { z } from 'zod';

const { BENCH_SERVICE_URL, BENCH_SERVICE_TOKEN } = process.env;
const server = new McpServer({ name: 'one-tool-http', version: '1.0.0' });
server.registerTool(
  'list_pipelines',
  {
    title: 'List pipelines',
    description: "List a project's pipelines.",
    inputSchema: {
      id: z.string().describe('The project, by path or number.'),
      per_page: z.number().int().min(1).max(100).optional().describe('Pipelines per page.'),
    },
  },
  async ({ id, per_page }) => {
    const url = `${BENCH_SERVICE_URL}/api/v4/projects/${encodeURIComponent(id)}/pipelines?per_page=${per_page ?? 20}`;
    const response = await request(url, { headers: { 'PRIVATE-TOKEN': BENCH_SERVICE_TOKEN } });
    const text = await response.body.text();
    return { content: [{ type: 'text', text }], isError: response.statusCode !== 200 };
  },
);
await server.connect(new StdioServerTransport());
