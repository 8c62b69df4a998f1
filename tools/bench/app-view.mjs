// Benchmark of the triage view (the MCP App of triage_project): its size; the time from the tool result posted by a
// host (AppBridge in headless Chromium) to the verdict on screen, median of N, against a baseline view measured in the
// same run (the SDK's App alone, writing the verdict as text); and the bytes the extension adds to tools/list of the
// default preset, for a client without MCP Apps and for one with them, against FORGEOPS_APPS=off.
// Run by hand after `npm run build` (needs Debian's chromium): node tools/bench/app-view.mjs [runs, default 10]
// Smoke mode (the test suite runs it so the bench cannot rot; nothing timed is judged): --smoke
import { tmpdir } from 'node:os';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { numbers, smoke } from './args.mjs';
import { APPS_CLIENT_CAPABILITIES, launchChromium, startAppHost } from '../../test/helpers/browser-host.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runs = smoke ? 1 : Math.max(3, numbers[0] ?? 10);
const WARM_UP = smoke ? 0 : 2;
const WEB = 'acme/web';
const { startSandbox } = await import(`${root}dist/sandbox/server.js`);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

// The baseline view: the SDK's App and nothing else, writing the verdict where the triage view writes its state.
const baselineScript = (
  await build({
    stdin: {
      contents: `import { App } from '@modelcontextprotocol/ext-apps';
const app = new App({ name: 'baseline', version: '1.0.0' }, {});
app.ontoolresult = (result) => {
  const root = document.getElementById('app');
  root.textContent = String(result.structuredContent?.verdict);
  root.setAttribute('data-state', root.textContent);
};
void app.connect();`,
      resolveDir: root,
      loader: 'js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    minify: true,
    write: false,
    logLevel: 'silent',
  })
).outputFiles[0].text;
const baselineHtml = `<!doctype html><meta charset="utf-8"><main id="app"></main><script type="module">${baselineScript}</script>`;

const sandbox = await startSandbox({ port: 0 });
const env = {
  PATH: process.env.PATH ?? '',
  TMPDIR: tmpdir(),
  CODEHOST_URL: sandbox.url,
  CODEHOST_TOKEN: sandbox.tokens.maintainer,
};
let browser;
let host;
try {
  // ---- size ----
  const view = readFileSync(`${root}dist/apps/triage.html`);
  console.log(
    `view dist/apps/triage.html: ${view.length} bytes (${kib(view.length)}), gzip ${gzipSync(view).length} bytes`,
  );

  // ---- tools/list of the default preset ----
  async function toolsListBytes(extraEnv, capabilities) {
    const client = new Client({ name: 'bench', version: '1.0.0' }, { capabilities });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [`${root}dist/cli.js`, 'mcp'],
        env: { ...env, ...extraEnv },
        stderr: 'ignore',
      }),
    );
    try {
      const { tools } = await client.listTools();
      return { tools, bytes: Buffer.byteLength(JSON.stringify({ tools })), count: tools.length };
    } finally {
      await client.close();
    }
  }
  const off = await toolsListBytes({ FORGEOPS_APPS: 'off' }, {});
  const plain = await toolsListBytes({}, {});
  const apps = await toolsListBytes({}, APPS_CLIENT_CAPABILITIES);
  console.log('tools/list, default preset:');
  console.log(`  FORGEOPS_APPS=off (baseline):   ${off.count} tools ${off.bytes} bytes`);
  console.log(
    `  client without MCP Apps:        ${plain.count} tools ${plain.bytes} bytes (+${plain.bytes - off.bytes})`,
  );
  console.log(`  client with MCP Apps:           ${apps.count} tools ${apps.bytes} bytes (+${apps.bytes - off.bytes})`);
  // Of which: the tools listed for the view alone, and the _meta on the tools the model sees.
  const offNames = new Set(off.tools.map((tool) => tool.name));
  const viewOnly = apps.tools.filter((tool) => !offNames.has(tool.name));
  const viewOnlyBytes = viewOnly.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(tool)) + 1, 0);
  console.log(
    `    of which ${viewOnly.length} tools for the view alone (${viewOnly.map((tool) => tool.name).join(', ')}): ${viewOnlyBytes} bytes; _meta on the model's tools: ${apps.bytes - off.bytes - viewOnlyBytes} bytes`,
  );

  // ---- time from the tool result posted to the verdict rendered ----
  browser = await launchChromium();
  host = await startAppHost(browser, { env });
  const result = await host.callTool('triage_project', { id: WEB });
  /** One showing: a fresh frame, an observer in it, the result posted; ms from posting to `#app[data-state]`. */
  async function timeToVerdict(html) {
    const frame = await host.open({ tool: 'triage_project', input: { id: WEB }, html });
    await frame.evaluate(() => {
      globalThis.renderedAt = new Promise((resolve) => {
        const observer = new MutationObserver(() => {
          if (!document.querySelector('#app[data-state]')) return;
          observer.disconnect();
          resolve(performance.timeOrigin + performance.now());
        });
        observer.observe(document, { subtree: true, childList: true, attributes: true });
      });
    });
    const postedAt = await host.post(result);
    return (await frame.evaluate(() => globalThis.renderedAt)) - postedAt;
  }
  const samples = { baseline: [], view: [] };
  for (let i = 0; i < WARM_UP + runs; i++) {
    // Alternating, so a slower moment of the machine falls on both.
    const base = await timeToVerdict(baselineHtml);
    const real = await timeToVerdict(undefined);
    if (i >= WARM_UP) {
      samples.baseline.push(base);
      samples.view.push(real);
    }
  }
  const baseMs = median(samples.baseline);
  const viewMs = median(samples.view);
  console.log(
    `time from tool result posted to verdict rendered, headless Chromium ${browser.version()}, median of ${runs}:`,
  );
  console.log(`  baseline (App alone writes the verdict): ${baseMs.toFixed(2)} ms (1.00x)`);
  console.log(`  triage view:                             ${viewMs.toFixed(2)} ms (${(viewMs / baseMs).toFixed(2)}x)`);
} finally {
  await host?.close();
  await browser?.close();
  await sandbox.close();
}
