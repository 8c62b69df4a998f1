// Bundles the CLI into dist/cli.js (+ dist/chunks/) after tsc: one file to load instead of hundreds starts MCP faster.
// Each mode's dynamic import() becomes its own chunk, so `forgeops mcp` never loads the sandbox or HTTP server code it
// does not use. Measured with tools/bench/startup.mjs (see the README).
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
  entryPoints: { cli: `${root}src/cli.ts` },
  outdir: `${root}dist`,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Bundled CommonJS dependencies call require(); ESM output has none unless we make one.
  banner: { js: "import { createRequire as __forgeopsCreateRequire } from 'node:module'; const require = __forgeopsCreateRequire(import.meta.url);" },
});
