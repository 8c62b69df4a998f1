// Test harness: a sandbox over HTTP, an HttpClient on it, and our MCP server driven by the SDK's own client.
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { operations } from '../../src/operations/index.js';
import { HttpClient } from '../../src/http/client.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';
import { startMcpHttpServer, type McpHttpOptions, type McpHttpServer } from '../../src/mcp/http/server.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';

/** The human's answer to an approval question; a test may change the world first (it answers when it resolves). */
export type ElicitAnswer = (message: string) => ElicitResult | Promise<ElicitResult>;

export interface ConnectOptions extends Partial<McpServerOptions> {
  client: McpServerOptions['client'];
  /** Declare elicitation and answer with this; omit to connect a client without elicitation. */
  elicit?: ElicitAnswer;
  /** More the client declares (e.g. the MCP Apps extension). */
  clientCapabilities?: Record<string, unknown>;
}

/**
 * The MCP server options every test starts from: the whole registry on `client`, writes allowed, the default toolsets,
 * the usual result cap and a call deadline no test reaches. A test spreads it and sets what it is about.
 */
export function testServerOptions(client: McpServerOptions['client']): McpServerOptions {
  return { operations, client, readOnly: false, toolsets: [], maxResultChars: 60_000, callTimeoutMs: 60_000 };
}

/**
 * Our Streamable HTTP MCP server on 127.0.0.1 (any free port, no browser origin allowed), each session's server made
 * from testServerOptions(client) and its caller's token; `session` adds to those options, `http` to the listener's.
 */
export function startMcpHttpOn(
  client: McpServerOptions['client'],
  o: { session?: Partial<McpServerOptions>; http?: Partial<McpHttpOptions> } = {},
): Promise<McpHttpServer> {
  return startMcpHttpServer({
    host: '127.0.0.1',
    port: 0,
    allowedOrigins: [],
    createSessionServer: ({ token }) => createMcpServer({ ...testServerOptions(client), token, ...o.session }),
    ...o.http,
  });
}

export async function connectInMemory(options: ConnectOptions) {
  const server = createMcpServer({ ...testServerOptions(options.client), toolsets: ['all'], ...options });
  const client = new Client(
    { name: 'forgeops-test', version: '1.0.0' },
    { capabilities: { ...options.clientCapabilities, ...(options.elicit ? { elicitation: { form: {} } } : {}) } },
  );
  const prompts: string[] = [];
  if (options.elicit) {
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      prompts.push(request.params.message);
      return answer(request.params.message);
    });
  }
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    prompts,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('\n');
}

/** One sandbox per test file and a maintainer's HttpClient on it (no retries: tests count requests). */
export function useSandbox(options: SandboxOptions = {}): { readonly sandbox: Sandbox; readonly client: HttpClient } {
  let sandbox: Sandbox | undefined;
  let client: HttpClient | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, ...options });
    client = new HttpClient({ baseUrl: sandbox.url, token: sandbox.tokens.maintainer, retry: { maxRetries: 0 } });
  });
  afterAll(async () => {
    await client?.close();
    await sandbox?.close();
  });
  return {
    get sandbox() {
      if (!sandbox) throw new Error('the sandbox is not running');
      return sandbox;
    },
    get client() {
      if (!client) throw new Error('the sandbox is not running');
      return client;
    },
  };
}
