// Bundles the CLI into dist/cli.js (+ dist/chunks/) after tsc: one file to load instead of hundreds starts MCP faster.
// Each mode's dynamic import() becomes its own chunk, so `forgeops mcp` never loads the sandbox or HTTP server code it
// does not use. More keeps `forgeops mcp`'s start small (each measured with tools/bench/mcp.mjs, see docs/mcp.md):
// the tool catalog is computed here, from the registry tsc just built, and embedded, so the server lists its tools
// without building a zod schema per operation; the SDK's ajv validator is left out (the server brings its own, see
// src/mcp/elicitation-validator.ts); zod's translations of its messages are left out (forgeops speaks English); and
// our `import { z } from 'zod'` is bundled as `import * as z from 'zod'`, which lets esbuild drop the zod it never calls.
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The catalog of the registry as tsc compiled it: toolDescriptor stays the one source of every published tool. */
async function toolCatalog() {
  const { operations } = await import(`${root}dist/operations/index.js`);
  const { catalogData } = await import(`${root}dist/mcp/catalog.js`);
  return catalogData(operations);
}

/** Replaces the module a path matches with other source; `resolveDir` is where that source's own imports resolve. */
function replaceModule(name, filter, contents, resolveDir) {
  return {
    name,
    setup(builder) {
      builder.onLoad({ filter }, (args) => ({
        contents: contents(),
        loader: 'js',
        resolveDir: resolveDir?.(args.path),
      }));
    },
  };
}

const catalog = await toolCatalog();
// A JSON string parsed at run time: V8 reads JSON faster than the same data as a JavaScript literal.
const prebuiltCatalog = replaceModule(
  'prebuilt-catalog',
  /[\\/]src[\\/]mcp[\\/]prebuilt-catalog\.ts$/,
  () => `export const PREBUILT_TOOLS = JSON.parse(${JSON.stringify(JSON.stringify(catalog))});`,
);
// Only reached when a Server is made without its own jsonSchemaValidator, which forgeops never does: fail loudly if so.
const noAjv = replaceModule(
  'no-ajv',
  /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]validation[\\/]ajv-provider\.js$/,
  () =>
    `export class AjvJsonSchemaValidator { constructor() { throw new Error('forgeops is bundled without ajv: pass a jsonSchemaValidator'); } }`,
);
// zod's own default (classic/schemas.js imports locales/en.js directly) stays; `z.locales` keeps English only.
const englishOnly = replaceModule(
  'zod-english-only',
  /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/,
  () => `export { default as en } from './en.js';`,
  (path) => path.replace(/[\\/]index\.js$/, ''),
);

/**
 * `import { z }` binds zod's namespace object, so esbuild keeps every export of zod (about 100 KB more to load);
 * `import * as z` with `z.object(…)` lets it keep only what is called. The same module either way, so the same
 * behaviour. Written the second way in src/, this plugin would change nothing and could go.
 */
const ZOD_NAMED_IMPORT = "import { z } from 'zod';";
const zodNamespaceImport = {
  name: 'zod-namespace-import',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(ZOD_NAMED_IMPORT)) return undefined;
      return { contents: source.replace(ZOD_NAMED_IMPORT, "import * as z from 'zod';"), loader: 'ts' };
    });
  },
};

/**
 * undici loads node:http2 as it loads (about 12 ms of a stdio server's first call) for connections forgeops never
 * makes: its clients are never given allowH2, so every connection speaks HTTP/1.1. The require is made to fail, which
 * takes undici's own path for a Node built without http2 (an empty constants object; HTTP/2 unavailable).
 */
const H2_REQUIRE = "http2 = require('node:http2')";
const undiciWithoutHttp2 = {
  name: 'undici-without-http2',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(H2_REQUIRE)) throw new Error(`${args.path}: undici no longer loads http2 as expected`);
      const refused = "throw new Error('forgeops is bundled without HTTP/2 for undici')";
      return { contents: source.replace(H2_REQUIRE, refused), loader: 'js' };
    });
  },
};

/** What both builds share: everything bundled for Node 20, with the plugins above. */
const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  plugins: [prebuiltCatalog, noAjv, englishOnly, zodNamespaceImport, undiciWithoutHttp2],
};

// Chunk names carry content hashes: without this, every build would leave the last one's chunks behind.
rmSync(`${root}dist/chunks`, { recursive: true, force: true });
await build({
  ...shared,
  entryPoints: { cli: `${root}src/cli.ts` },
  outdir: `${root}dist`,
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  format: 'esm',
  // Bundled CommonJS dependencies call require(); ESM output has none unless we make one.
  banner: {
    js: "import { createRequire as __forgeopsCreateRequire } from 'node:module'; const require = __forgeopsCreateRequire(import.meta.url);",
  },
});

/**
 * The compiled copies (src/cli/compiled-copy.ts runs them): for each src/cli/<command>-main.ts, dist/<command>.cjs, one
 * CommonJS script, since Node 20 hands V8's compiled code back between processes only for scripts. Minified (names
 * kept: errors and classes say what they are), as the source stays in memory while the command runs. It must be plain
 * ASCII (it is read as latin1) and hold no import(): V8 loses the dynamic-import hook of a script made from compiled
 * code, so each lazy import is bundled as a lazy require.
 */
const copies = readdirSync(`${root}src/cli`)
  .filter((name) => name.endsWith('-main.ts'))
  .map((name) => name.slice(0, -'-main.ts'.length));
for (const command of copies) {
  const out = `${root}dist/${command}.cjs`;
  await build({
    ...shared,
    entryPoints: [`${root}src/cli/${command}-main.ts`],
    outfile: out,
    format: 'cjs',
    minify: true,
    keepNames: true,
    legalComments: 'none',
    define: { 'import.meta.url': '__forgeopsCopyUrl' },
    // Node's own CommonJS wrapper, written here: wrapping a copy read at start would hold its source twice a moment.
    banner: {
      js:
        '(function (exports, require, module, __filename, __dirname) { "use strict"; ' +
        'const __forgeopsCopyUrl = require("node:url").pathToFileURL(__filename).href;',
    },
    footer: { js: '})' },
  });
  const copy = readFileSync(out, 'latin1');
  const unfit = [/[^\x00-\x7f]/g, /\bimport\(/g].flatMap((pattern) =>
    [...copy.matchAll(pattern)].map((m) => JSON.stringify(copy.slice(Math.max(0, m.index - 40), m.index + 20))),
  );
  if (unfit.length > 0) throw new Error(`dist/${command}.cjs must be ASCII with no import(): ${unfit.join('\n')}`);
}

// The triage view (an MCP App page), built beside the CLI: the server reads it from dist/apps/ when a host asks.
const { buildView } = await import('./build-view.mjs');
console.log(`triage view: dist/apps/triage.html, ${((await buildView()) / 1024).toFixed(1)} KB`);
