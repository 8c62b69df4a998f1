// The start-up baseline of tools/bench/mcp.mjs: the SDK's McpServer with one zod tool over stdio, plain ESM, as a tutorial writes it.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'one-tool', version: '1.0.0' });
server.registerTool(
  'echo',
  {
    title: 'Echo',
    description: 'Answer with the text it was given.',
    inputSchema: { text: z.string().describe('What to echo.') },
  },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
