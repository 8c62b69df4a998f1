// The layering DESIGN.md draws, checked on the imports: a generic HTTP client, a sandbox that shares nothing, the SDK kept in src/mcp.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]);
}

function offenders(folder: string, forbidden: RegExp): string[] {
  return files(join(src, folder)).flatMap((file) => imports(file).filter((spec) => forbidden.test(spec)).map((spec) => `${relative(src, file)} → ${spec}`));
}

describe('architecture', () => {
  it('keeps src/http a generic client that knows no operation and no front end', () => {
    expect(offenders('http', /^\.\.\/(operations|policy|mcp|chat|slack|sandbox)\//)).toEqual([]);
  });

  it('keeps the sandbox apart from the client side, so a misreading of the spec is not mirrored', () => {
    expect(offenders('sandbox', /\/(operations|http|policy|mcp|chat|slack)\//)).toEqual([]);
  });

  it('keeps every MCP SDK import inside src/mcp', () => {
    const outside = files(src).filter((f) => !relative(src, f).startsWith('mcp/'))
      .flatMap((file) => imports(file).filter((spec) => spec.startsWith('@modelcontextprotocol/')).map((spec) => `${relative(src, file)} → ${spec}`));
    expect(outside).toEqual([]);
  });

  it('finds imports when there are some (the check itself can fail)', () => {
    expect(offenders('mcp', /\.\.\/operations\//).length).toBeGreaterThan(0);
  });
});
