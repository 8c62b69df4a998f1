// A test MCP Apps host in headless Chromium: the built forgeops over stdio, an MCP client that speaks for the host, and
// a page on 127.0.0.1 showing a tool's view in a sandboxed frame with the SDK's AppBridge, as a chat host would.
// Plain JavaScript (types in browser-host.d.mts), so the browser tests and tools/bench/app-view.mjs share it.
import { accessSync, constants, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { installCommand, TEST_DEPENDENCIES } from '../../tools/test-deps.mjs';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const HOST_DIR = fileURLToPath(new URL('../browser/host/', import.meta.url));

/** The capabilities of a client that renders MCP Apps: the extension, and forms to ask the human with. */
export const APPS_CLIENT_CAPABILITIES = { elicitation: { form: {} }, extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

/** The chromium program on PATH (Debian installs /usr/bin/chromium), or undefined. */
export function chromiumPath(path = process.env.PATH ?? '') {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(folder, 'chromium'), constants.X_OK);
      return join(folder, 'chromium');
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

/**
 * Starts headless Chromium. Without it, fails with the package and the command that installs it: the browser tests
 * are part of npm test and CI, so a machine without a browser must not pass them silently.
 */
export async function launchChromium(path = process.env.PATH ?? '') {
  const executablePath = chromiumPath(path);
  if (!executablePath) {
    const needed = TEST_DEPENDENCIES.filter((dep) => dep.debian === 'chromium');
    throw new Error(
      `The browser tests need Chromium: no program named chromium on PATH (${path}). Install Debian's ` +
        `package as root, then run the tests again:\n  ${installCommand(needed)}\n(npm test installs it by itself when run as root with apt-get.)`,
    );
  }
  // Chromium refuses to start its own sandbox as root (a container's CI); the pages it loads are the test's own.
  return chromium.launch({ executablePath, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

/** The Content-Security-Policy a host serves a view under: nothing from elsewhere unless the resource asks for it. */
export function viewCsp(csp = {}) {
  const resources = (csp.resourceDomains ?? []).join(' ');
  const listOr = (domains, none) => (domains?.length ? domains.join(' ') : none);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' data: ${resources}`,
    `media-src 'self' data: ${resources}`,
    `connect-src ${listOr(csp.connectDomains, "'none'")}`,
    `frame-src ${listOr(csp.frameDomains, "'none'")}`,
    `base-uri ${listOr(csp.baseUriDomains, "'self'")}`,
  ].map((directive) => directive.trim()).join('; ');
}

/** The host page's script: host.js and the SDK's host side, bundled for the browser in memory. */
async function bundleHostScript() {
  const bundled = await build({ entryPoints: [join(HOST_DIR, 'host.js')], bundle: true, format: 'iife', platform: 'browser', target: 'chrome120', write: false, logLevel: 'silent' });
  return bundled.outputFiles[0].text;
}

/** The page server: the host page, its script, and the view being shown (under the CSP its resource asks for). */
async function startPageServer(hostScript) {
  const hostPage = readFileSync(join(HOST_DIR, 'host.html'), 'utf8');
  const pages = { view: undefined };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://host').pathname;
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(hostPage);
    if (path === '/host.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(hostScript);
    if (path === '/view' && pages.view) {
      return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': pages.view.csp }).end(pages.view.html);
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, pages, origin: `http://127.0.0.1:${server.address().port}` };
}

/** Starts forgeops, the host's page server and a page on it. The caller closes it. */
export async function startAppHost(browser, options) {
  const defaultWidth = options.width ?? 640;
  const { server, pages, origin } = await startPageServer(await bundleHostScript());
  const client = new Client({ name: 'forgeops-test-host', version: '1.0.0' }, { capabilities: APPS_CLIENT_CAPABILITIES });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp'], env: options.env, stderr: 'ignore' });
  const page = await browser.newPage({ viewport: { width: defaultWidth + 32, height: 900 } });
  const requests = [];
  const dialogs = [];
  const errors = [];
  const viewCalls = [];
  const confirmations = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });

  // The human answers forgeops's questions on the host's page, outside the view's frame.
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    confirmations.push(request.params.message);
    const decision = await page.evaluate((message) => globalThis.host.askHuman(message), request.params.message);
    return decision === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
  });
  await client.connect(transport);

  /** Tools whose calls from the view wait until the test lets them go (hold), each with its gate. */
  const held = new Map();
  // Only the host's own page may call forgeops: a binding is visible in every frame, the view's too.
  await page.exposeBinding('forgeopsCallTool', async (source, params) => {
    if (source.frame !== page.mainFrame()) throw new Error('only the host page calls tools');
    // Forwarded whole, _meta too, as a host that passes the view's tools/call on does.
    const call = { name: params.name, arguments: params.arguments ?? {}, ...(params._meta ? { _meta: params._meta } : {}) };
    viewCalls.push(call);
    await held.get(params.name)?.opened;
    call.result = await client.callTool({ name: params.name, arguments: call.arguments, ...(call._meta ? { _meta: call._meta } : {}) });
    return call.result;
  });
  // The page's timers (the view's own refresh among them) then move when the test says, as page.clock.runFor.
  if (options.clock) await page.clock.install();
  await page.goto(`${origin}/`);

  let tools;
  async function tool(name) {
    tools ??= (await client.listTools()).tools;
    const found = tools.find((candidate) => candidate.name === name);
    if (!found) throw new Error(`forgeops offers no tool ${name}`);
    return found;
  }

  /** The view a tool names: its resource read from forgeops, served under the CSP the resource asks for. */
  async function viewOf(name) {
    const uri = getToolUiResourceUri(await tool(name));
    if (!uri) throw new Error(`${name} names no view (_meta.ui.resourceUri)`);
    const [content] = (await client.readResource({ uri })).contents;
    if (content?.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== 'string') throw new Error(`${uri} is no MCP App (${content?.mimeType})`);
    return { html: content.text, csp: viewCsp(content._meta?.ui?.csp) };
  }

  return {
    page, origin, client, requests, dialogs, errors, viewCalls, confirmations, tool,
    callTool: (name, args) => client.callTool({ name, arguments: args }),
    hold(name) {
      let release;
      const opened = new Promise((resolve) => { release = resolve; });
      held.set(name, { opened });
      return () => {
        if (held.get(name)?.opened === opened) held.delete(name);
        release();
      };
    },
    async open({ tool: name, input, theme = 'light', width = defaultWidth, html }) {
      pages.view = html === undefined ? await viewOf(name) : { html, csp: viewCsp() };
      await page.evaluate((opened) => globalThis.host.open(opened), { theme, width, toolInput: input });
      const frame = await (await page.$('#view'))?.contentFrame();
      if (!frame) throw new Error('the view\'s frame did not load');
      return frame;
    },
    post: (result) => page.evaluate((posted) => globalThis.host.sendResult(posted), result),
    setTheme: (theme, width = defaultWidth) => page.evaluate(([t, w]) => globalThis.host.setTheme(t, w), [theme, width]),
    async close() {
      await page.close().catch(() => {});
      await client.close().catch(() => {});
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
