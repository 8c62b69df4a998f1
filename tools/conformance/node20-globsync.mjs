// Preload for Node 20: the MCP conformance suite imports fs.globSync (Node 22); its `fs` import gets one more export.
import fs from 'node:fs';
import { register } from 'node:module';

// fs as it is, plus a globSync good for the suite's one use: a file name at any depth under a directory.
const shim = `
import fs from 'node:fs';
import path from 'node:path';
export * from 'node:fs';
export default fs;
export function globSync(pattern, options = {}) {
  const cwd = options.cwd ?? process.cwd();
  const match = /^\\*\\*\\/([^*?\\[\\]{}/]+)$/.exec(pattern);
  if (!match) throw new Error('globSync shim supports only "**/<file name>", not ' + pattern);
  return fs.readdirSync(cwd, { recursive: true }).map(String)
    .filter((entry) => path.basename(entry) === match[1]);
}`;
const hooks = `
const shimUrl = ${JSON.stringify(`data:text/javascript,${encodeURIComponent(shim)}`)};
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: shimUrl, shortCircuit: true };
  }
  return next(specifier, context);
}`;
// Node 22 has its own: nothing to supply there.
if (typeof fs.globSync !== 'function') register(`data:text/javascript,${encodeURIComponent(hooks)}`);
