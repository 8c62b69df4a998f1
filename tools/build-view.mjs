// Builds the triage view (src/apps/triage-view/) into one self-contained page, dist/apps/triage.html: the script
// bundled by esbuild and inlined, the page's policy allowing that script (by its hash) and nothing from elsewhere.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
export const VIEW_SOURCE = `${root}src/apps/triage-view/`;
export const VIEW_OUTPUT = `${root}dist/apps/triage.html`;

// The SDK's schemas (zod) carry every language's messages; the view speaks English, like the server (see bundle.mjs).
const englishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      loader: 'js',
      resolveDir: args.path.replace(/[\\/]index\.js$/, ''),
    }));
  },
};

/** The page's policy: its own inline script (by hash) and styles, nothing fetched, framed or submitted anywhere. */
export function viewPolicy(scriptHash) {
  return [
    "default-src 'none'",
    `script-src '${scriptHash}'`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    "connect-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** Builds the page and writes it; returns its size in bytes. */
export async function buildView(output = VIEW_OUTPUT) {
  const bundled = await build({
    entryPoints: [`${VIEW_SOURCE}main.ts`],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    write: false,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  // Inline, the script must not close its own element: esbuild escapes "</script" in strings; the check makes sure.
  const script = bundled.outputFiles[0].text.trim();
  if (/<\/script/i.test(script)) throw new Error('the view script contains "</script", which would end it early');
  const hash = `sha256-${createHash('sha256').update(script).digest('base64')}`;
  const template = readFileSync(`${VIEW_SOURCE}index.html`, 'utf8');
  // Replaced by function: the script's own "$&" or "$1" must stay as written.
  const page = template.replace('__CSP__', () => viewPolicy(hash)).replace('__SCRIPT__', () => script);
  mkdirSync(fileURLToPath(new URL('.', `file://${output}`)), { recursive: true });
  writeFileSync(output, page);
  return Buffer.byteLength(page);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const bytes = await buildView();
  console.log(`triage view: dist/apps/triage.html, ${(bytes / 1024).toFixed(1)} KB`);
}
