// Compiles src/ to dist/ file by file for the tools and benches that import its modules (the CLI itself is bundled
// after, by tools/bundle.mjs). esbuild strips the types in half a second where tsc took about ten; the types are
// checked by `npm run typecheck` (tsc, isolatedModules on, so that every file compiles alone as it does here).
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const src = `${root}src`;

// The triage view is a browser page, bundled on its own by tools/bundle.mjs.
const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .map((path) => path.replaceAll('\\', '/'))
  .filter((path) => path.endsWith('.ts') && !path.startsWith('apps/triage-view/'))
  .map((path) => `${src}/${path}`);

// A fresh dist/: a module whose source was deleted must not linger there and keep an import working by mistake.
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: `${root}dist`,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
