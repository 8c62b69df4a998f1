// Parts, not long closures: no function in src or tools (route tables, arrows and methods included) runs over 120
// lines, so whoever reads one sees it whole; a longer one is split into named parts with explicit inputs. (A test
// file's describe block is a list of cases, not a closure to split: test/ is not held to it.)
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_FUNCTION_LINES = 120;
const root = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(tsx?|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Every function with a body in `text` that spans more than `max` lines: `name:line (lines)`. */
function longFunctions(name: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.end).line;
      const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
      const label = named ? named.getText(source) : '(anonymous)';
      if (last - first + 1 > max) found.push(`${name}:${first + 1} ${label} (${last - first + 1} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it(`keeps every function in src and tools within ${MAX_FUNCTION_LINES} lines`, () => {
    const long = ['src', 'tools']
      .flatMap((folder) => files(join(root, folder)))
      .flatMap((file) => longFunctions(relative(root, file), readFileSync(file, 'utf8'), MAX_FUNCTION_LINES));
    expect(long).toEqual([]);
  });

  it('finds a long function, an arrow and a method among short ones (the check can fail)', () => {
    const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `function short() {\n${body(3)}\n}`,
      `function long() {\n${body(119)}\n}`,
      `const arrow = () => {\n${body(119)}\n};`,
      `class C {\n  method() {\n${body(119)}\n  }\n}`,
      `function edge() {\n${body(118)}\n}`,
    ].join('\n');
    expect(longFunctions('sample.ts', text, MAX_FUNCTION_LINES)).toEqual([
      expect.stringMatching(/^sample\.ts:\d+ long \(121 lines\)$/),
      expect.stringMatching(/^sample\.ts:\d+ arrow \(121 lines\)$/),
      expect.stringMatching(/^sample\.ts:\d+ method \(121 lines\)$/),
    ]);
  });
});
