// The triage view (MCP Apps) over MCP, through the SDK's own client against the sandbox: the tools name the view,
// the resource is the self-contained page with its policy, a client without the extension sees what it saw before,
// the view's own tools reach only a client that renders views, and FORGEOPS_APPS=off removes all of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer, type McpServerOptions } from '../../src/mcp/server.js';
import { parseConfig } from '../../src/config.js';
import { ManualClock } from '../../src/sandbox/core/clock.js';
import { TRIAGE_VIEW_URI, VIEW_MIME_TYPE } from '../../src/apps/triage-app.js';
import { buildView, VIEW_OUTPUT } from '../../tools/build-view.mjs';
import { resultText, useSandbox, testServerOptions } from '../helpers/mcp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { MODERN } from '../helpers/mcp-v2.js';
import { startHttp, statelessEndpoint } from '../safety/mcp-harness.js';

const env = useSandbox({ clock: new ManualClock() });
const WEB = 'acme/web';
/** The largest the page may be: the SDK's App and its schemas are most of it (see docs/mcp.md, Triage inside the assistant). */
const VIEW_MAX_BYTES = 300 * 1024;
const APPS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [VIEW_MIME_TYPE] } } };

type Tool = { name: string; _meta?: Record<string, unknown> };

beforeAll(async () => {
  // `npm test` builds first; a run of this file alone builds the page if it is not there yet.
  if (!existsSync(VIEW_OUTPUT)) await buildView();
});

const open: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of open) await close();
});

/** The SDK's client on our server: `views` declares the MCP Apps extension; `server` overrides the server's options. */
async function connect(views: boolean, server: Partial<McpServerOptions> = {}): Promise<Client> {
  const mcp = createMcpServer({
    ...testServerOptions(env.client),
    ...server,
  });
  const client = new Client({ name: 'apps-test', version: '1.0.0' }, { capabilities: views ? APPS_CAPABILITY : {} });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([mcp.connect(serverSide), client.connect(clientSide)]);
  open.push(async () => {
    await client.close();
    await mcp.close();
  });
  return client;
}

async function tools(client: Client): Promise<Tool[]> {
  return (await client.listTools()).tools as Tool[];
}

/** The tools a client that renders views sees and one that does not (with `server`'s options) does not: `views` has all. */
async function viewOnlyTools(server: Partial<McpServerOptions> = {}): Promise<{ views: Tool[]; viewOnly: Tool[] }> {
  const views = await tools(await connect(true, server));
  const plain = await tools(await connect(false, server));
  return { views, viewOnly: views.filter((tool) => !plain.some((p) => p.name === tool.name)) };
}

function named(list: Tool[], name: string): Tool {
  const tool = list.find((t) => t.name === name);
  if (!tool) throw new Error(`${name} is not listed`);
  return tool;
}

/** A triage report without the two fields that tell the time of the call. */
async function triage(client: Client) {
  const result = await client.callTool({ name: 'triage_project', arguments: { id: WEB } });
  const strip = (value: Record<string, unknown>) => {
    const { as_of: _asOf, ...rest } = value;
    const redSince = rest.red_since as { first_red?: Record<string, unknown> } | undefined;
    if (redSince?.first_red) delete redSince.first_red.red_for;
    return rest;
  };
  return {
    text: strip(JSON.parse(resultText(result))),
    structured: strip(result.structuredContent as Record<string, unknown>),
    isError: result.isError,
  };
}

function withoutMeta(list: Tool[]): Tool[] {
  return list.map(({ _meta: _ignored, ...tool }) => tool);
}

// Every test makes what it changes, so they run shuffled, in an order other than the written one (the seed is
// in vitest.config.ts): a test that leans on what another did fails on every run.
describe.shuffle('mcp-app, in any order', () => {
  describe('the triage view over MCP', () => {
    it('names the view on triage_project and get_pipeline, in the field and the key older hosts read', async () => {
      const list = await tools(await connect(true));
      for (const name of ['triage_project', 'get_pipeline']) {
        expect(named(list, name)._meta).toEqual({
          ui: { resourceUri: TRIAGE_VIEW_URI },
          'ui/resourceUri': TRIAGE_VIEW_URI,
        });
      }
      expect(named(list, 'list_pipelines')._meta).toBeUndefined();
    });

    it('serves the page as text/html;profile=mcp-app, small, with a policy that loads nothing from elsewhere', async () => {
      const client = await connect(true);
      const listed = (await client.listResources()).resources;
      expect(listed).toContainEqual(expect.objectContaining({ uri: TRIAGE_VIEW_URI, mimeType: VIEW_MIME_TYPE }));
      const [page] = (await client.readResource({ uri: TRIAGE_VIEW_URI })).contents as Array<{
        uri: string;
        mimeType: string;
        text: string;
        _meta: unknown;
      }>;
      expect(page.mimeType).toBe('text/html;profile=mcp-app');
      expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(VIEW_MAX_BYTES);
      expect(page._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(page.text)?.[1] ?? '';
      expect(policy).toMatch(/^default-src 'none';/);
      expect(policy).toContain("connect-src 'none'");
      expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*';/);
      // Nothing is fetched: no address in the policy, no src or href in the page's markup.
      expect(policy).not.toMatch(/https?:|\*/);
      expect(page.text.replace(/<script[\s\S]*<\/script>/, '')).not.toMatch(/\b(src|href)=/);
    });

    it('shows a client without the extension exactly the tools and the result it saw without the view, and no view', async () => {
      const plain = await connect(false);
      const off = await connect(false, { apps: false });
      expect(await tools(plain)).toEqual(await tools(off));
      // To a client with views, the same tools but for the _meta naming the view, and the view's own tools after them.
      const views = await tools(await connect(true));
      expect(withoutMeta(views.slice(0, (await tools(off)).length))).toEqual(await tools(off));
      expect(await triage(plain)).toEqual(await triage(off));
      expect((await plain.listResources()).resources).toEqual([]);
    });

    it("lists the view's own tools, marked for the view alone, only to a client that renders views", async () => {
      const { views, viewOnly } = await viewOnlyTools();
      expect(viewOnly.map((tool) => tool.name).sort()).toEqual([
        'check_button_premise',
        'list_pipeline_jobs',
        'merge_merge_request',
        'open_incident_issue',
        'revert_as_merge_request',
      ]);
      for (const tool of viewOnly) expect((tool._meta!.ui as { visibility?: string[] }).visibility).toEqual(['app']);
      // The model's own tools stay as they are: get_job_log, retry_pipeline and cancel_pipeline are in the default preset already.
      for (const name of ['get_job_log', 'retry_pipeline', 'cancel_pipeline'])
        expect(named(views, name)._meta).toBeUndefined();
    });

    it('lists every tool a button calls for the view when the preset leaves it out: Cancel pipeline too', async () => {
      const { viewOnly } = await viewOnlyTools({ toolsets: ['projects'] });
      expect(viewOnly.map((tool) => tool.name).sort()).toEqual([
        'cancel_pipeline',
        'check_button_premise',
        'get_job_log',
        'get_pipeline',
        'list_pipeline_jobs',
        'merge_merge_request',
        'open_incident_issue',
        'retry_pipeline',
        'revert_as_merge_request',
      ]);
      for (const tool of viewOnly) expect(tool._meta?.ui).toEqual({ visibility: ['app'] });
    });

    it('runs a view-only tool for a client that renders views and refuses it to one that does not', async () => {
      const report = await triage(await connect(false));
      const pipeline = (report.structured.head_pipeline as { id: number }).id;
      const call = { name: 'list_pipeline_jobs', arguments: { id: WEB, pipeline_id: pipeline } };
      // Without the meta tools, which reach every operation by name for any client.
      const pipelinesOnly = { toolsets: ['pipelines'] };
      const forView = await (await connect(true, pipelinesOnly)).callTool(call);
      expect(forView.isError).toBeFalsy();
      expect((forView.structuredContent as { items: unknown[] }).items.length).toBeGreaterThan(0);
      const forModel = await (await connect(false, pipelinesOnly)).callTool(call);
      expect(forModel.isError).toBe(true);
      expect(resultText(forModel)).toMatch(/not offered by this server/);
    });

    it('FORGEOPS_APPS=off removes it all, even for a client that renders views', async () => {
      expect(parseConfig({ CODEHOST_URL: 'http://127.0.0.1:9', FORGEOPS_APPS: 'off' }).policy.apps).toBe(false);
      expect(parseConfig({ CODEHOST_URL: 'http://127.0.0.1:9' }).policy.apps).toBe(true);
      const client = await connect(true, { apps: false });
      const list = await tools(client);
      expect(list.filter((tool) => tool._meta)).toEqual([]);
      expect(list.map((tool) => tool.name)).not.toContain('revert_as_merge_request');
      expect((await client.listResources()).resources).toEqual([]);
      await expect(client.readResource({ uri: TRIAGE_VIEW_URI })).rejects.toThrow();
    });

    it('costs tools/list nothing for a client without views', async () => {
      const bytes = async (views: boolean, apps: boolean) =>
        Buffer.byteLength(JSON.stringify({ tools: await tools(await connect(views, { apps })) }));
      const [off, plain, views] = [await bytes(false, false), await bytes(false, true), await bytes(true, true)];
      console.log(
        `tools/list of the default preset: ${off} bytes with FORGEOPS_APPS=off, ${plain} (+${plain - off}) to a client ` +
          `without MCP Apps, ${views} (+${views - off}) to one that renders views`,
      );
      expect(plain).toBe(off);
      expect(views - off).toBeGreaterThan(0);
    });

    it('keeps data out of the page: a hostile commit title reaches the tool result, never the resource', async () => {
      // On a project of its own: a commit on acme/web's main would leave the head pipeline the other tests triage.
      const INFRA = 'acme/platform/infra';
      const client = await connect(true);
      const title = '</script><img src=x onerror=alert(1)> fix';
      await env.client.request({
        method: 'POST',
        idempotent: false,
        path: `/projects/${encodeURIComponent(INFRA)}/repository/commits`,
        body: {
          branch: 'main',
          commit_message: title,
          actions: [{ action: 'create', file_path: 'hostile.txt', content: 'x' }],
        },
      });
      const result = await client.callTool({ name: 'triage_project', arguments: { id: INFRA } });
      expect(resultText(result)).toContain(title);
      const [page] = (await client.readResource({ uri: TRIAGE_VIEW_URI })).contents as Array<{ text: string }>;
      expect(page.text).not.toContain('onerror=alert');
      expect(page.text).not.toContain(INFRA);
    });
  });

  describe('the triage view over the stateless 2026-07-28 revision', () => {
    /** serve's /mcp with both revisions; `apps` as FORGEOPS_APPS sets it, `toolsets` as FORGEOPS_TOOLSETS. */
    async function serve(apps: boolean, toolsets: string[] = []) {
      const serverOptions = (token?: string): McpServerOptions => ({
        ...testServerOptions(env.client),
        token,
        toolsets,
        apps,
      });
      const http = await startHttp(env.client, {
        stateless: () => statelessEndpoint(serverOptions),
      });
      open.push(() => http.close());
      return http.url;
    }

    /** An SDK v2 client pinned to the revision, declaring the MCP Apps extension or not (each request carries it). */
    async function modern(url: string, views: boolean) {
      const client = new ClientV2(
        { name: 'apps-v2-test', version: '1.0.0' },
        {
          versionNegotiation: { mode: { pin: MODERN } },
          capabilities: views ? APPS_CAPABILITY : {},
        },
      );
      await client.connect(new TransportV2(new URL(url)));
      open.push(() => client.close());
      return client;
    }

    it('tells only a client that declares the extension, per request, and serves it the page', async () => {
      const url = await serve(true);
      const views = await modern(url, true);
      const viewTools = (await views.listTools()).tools as Tool[];
      expect(named(viewTools, 'triage_project')._meta).toMatchObject({ ui: { resourceUri: TRIAGE_VIEW_URI } });
      expect(named(viewTools, 'revert_as_merge_request')._meta).toEqual({ ui: { visibility: ['app'] } });
      const [page] = (await views.readResource({ uri: TRIAGE_VIEW_URI })).contents as Array<{
        mimeType: string;
        text: string;
      }>;
      expect(page.mimeType).toBe(VIEW_MIME_TYPE);
      expect(page.text).toMatch(/^<!doctype html>/);

      const plainTools = (await (await modern(url, false)).listTools()).tools;
      const offTools = (await (await modern(await serve(false), true)).listTools()).tools;
      expect(plainTools).toEqual(offTools);
      expect(offTools.some((tool) => tool._meta)).toBe(false);
    });

    it("lets only a request that declares the extension call the view's own tools", async () => {
      // Without the meta tools, which reach every operation by name for any client.
      const url = await serve(true, ['pipelines']);
      const call = { name: 'list_pipeline_jobs', arguments: { id: 'acme/web', pipeline_id: 1 } };
      const plain = (await (await modern(url, false)).callTool(call)) as { isError?: boolean; content: unknown };
      expect(plain.isError).toBe(true);
      expect(JSON.stringify(plain.content)).toMatch(/not offered/);
      const withViews = (await (await modern(url, true)).callTool(call)) as { isError?: boolean; content: unknown };
      expect(withViews.isError).toBeFalsy();
      expect(JSON.stringify(withViews.content)).not.toMatch(/not offered/);
    });
  });
});
