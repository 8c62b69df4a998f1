// The layering DESIGN.md draws, checked on the imports: a generic HTTP client, a sandbox that shares nothing and is
// split into a core and areas (no area in the core, no area in another's internals, no cycle), the SDK kept in src/mcp.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AREAS } from '../../src/sandbox/areas/index.js';
import { createContext } from '../../src/sandbox/core/context.js';
import { Router } from '../../src/sandbox/core/router.js';
import { Store } from '../../src/sandbox/core/store.js';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every module specifier a file imports or re-exports, statically or dynamically. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)'([^']+)'/g)].map((m) => m[1]);
}

function offenders(folder: string, forbidden: RegExp): string[] {
  return files(join(src, folder)).flatMap((file) =>
    imports(file)
      .filter((spec) => forbidden.test(spec))
      .map((spec) => `${relative(src, file)} → ${spec}`),
  );
}

/** A module graph: file (relative to src) → the files it imports (relative to src), type-only imports included. */
type Graph = Map<string, string[]>;

function moduleGraph(folder: string): Graph {
  const graph: Graph = new Map();
  for (const file of files(join(src, folder))) {
    const targets = imports(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => {
        const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        return relative(src, existsSync(target) ? target : join(target.replace(/\.ts$/, ''), 'index.ts'));
      });
    graph.set(relative(src, file), targets);
  }
  return graph;
}

/** Every import cycle, each as the files on it (one entry per strongly connected component of more than one file, or a self-import). */
function cycles(graph: Graph): string[][] {
  let index = 0;
  const stack: string[] = [];
  const state = new Map<string, { index: number; low: number; onStack: boolean }>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    const own = { index, low: index, onStack: true };
    index++;
    state.set(node, own);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (!seen) {
        visit(next);
        own.low = Math.min(own.low, state.get(next)!.low);
      } else if (seen.onStack) own.low = Math.min(own.low, seen.index);
    }
    if (own.low !== own.index) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      state.get(member)!.onStack = false;
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

/**
 * The part of src a file belongs to, for the layering: a folder at the top of src (mcp, slack, policy, …), a folder of
 * operations/ or sandbox/ (operations/engine, operations/areas, sandbox/core, …), or a file at the top (config.ts).
 */
function partOf(file: string): string {
  const [top, second, ...rest] = file.split('/');
  if (second === undefined) return top.replace(/\.ts$/, '');
  return (top === 'operations' || top === 'sandbox') && rest.length > 0 ? `${top}/${second}` : top;
}

/** The graph of the parts: an edge where some file of one imports some file of the other. */
function partGraph(graph: Graph): Graph {
  const parts: Graph = new Map();
  for (const [file, targets] of graph) {
    const from = partOf(file);
    const edges = parts.get(from) ?? [];
    for (const to of targets.map(partOf)) if (to !== from && !edges.includes(to)) edges.push(to);
    parts.set(from, edges);
  }
  return parts;
}

const areaOf = (file: string) => /^sandbox\/areas\/([^/]+)\//.exec(file)?.[1];

/**
 * The only imports from one area into another, each through the other area's index.ts (its public exports):
 *   users → scim: PUT /users/:id with group_id_for_saml needs the group's SAML provider;
 *   releases → repository: creating a release's tag runs a git write through gitCall;
 *   group-import-export → work-items: a group's labels travel in its export archive;
 *   pipelines → jobs: retrying, cancelling or deleting a pipeline does it to the pipeline's jobs;
 *   oauth → users: the OAuth provider's sign-in page checks the person's password.
 */
const ALLOWED_AREA_EDGES = [
  'users → scim',
  'releases → repository',
  'group-import-export → work-items',
  'pipelines → jobs',
  'branches → work-items',
  'work-items → jobs',
  'project-hooks → jobs',
  'oauth → users',
];

/** Imports that break the sandbox's layering: core → area, area → another area's internals or an unlisted area. */
function layeringOffenders(graph: Graph, allowed: readonly string[]): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      const from = areaOf(file);
      const to = areaOf(target);
      if (file.startsWith('sandbox/core/') && target.startsWith('sandbox/areas/'))
        return [`${file} → ${target} (the core imports an area)`];
      if (from === undefined || to === undefined || from === to) {
        if (
          from !== undefined &&
          target.startsWith('sandbox/') &&
          to === undefined &&
          !/^sandbox\/(core|git)\//.test(target)
        ) {
          return [`${file} → ${target} (an area imports only the core, git/ and its own folder)`];
        }
        return [];
      }
      if (target !== `sandbox/areas/${to}/index.ts`) return [`${file} → ${target} (another area's internals)`];
      return allowed.includes(`${from} → ${to}`) ? [] : [`${file} → ${target} (an edge not in ALLOWED_AREA_EDGES)`];
    }),
  );
}

/**
 * The registry's layers: engine/ (how any operation is declared, validated, judged and run) knows no API area;
 * an area file imports the engine and areas/shared/ (pieces several areas use), never another area or composed/;
 * composed/ (operations made of others) may use all of them.
 */
function operationsLayeringOffenders(graph: Graph): string[] {
  return [...graph].flatMap(([file, targets]) =>
    targets.flatMap((target) => {
      if (!target.startsWith('operations/')) return [];
      if (file.startsWith('operations/engine/') && !target.startsWith('operations/engine/'))
        return [`${file} → ${target} (the engine knows no API area)`];
      if (file.startsWith('operations/areas/') && !/^operations\/(engine|areas\/shared)\//.test(target))
        return [`${file} → ${target} (an area imports the engine and areas/shared/ only)`];
      return [];
    }),
  );
}

describe('architecture', () => {
  it('keeps src/http a generic client that knows no operation and no front end', () => {
    expect(offenders('http', /^\.\.\/(operations|policy|mcp|chat|slack|sandbox)\//)).toEqual([]);
  });

  it('keeps the sandbox apart from the client side, so a misreading of the spec is not mirrored', () => {
    expect(offenders('sandbox', /\/(operations|http|policy|mcp|chat|slack)\//)).toEqual([]);
  });

  it('keeps the sandbox core free of areas, and each area out of the others but through a listed public edge', () => {
    expect(layeringOffenders(moduleGraph('sandbox'), ALLOWED_AREA_EDGES)).toEqual([]);
  });

  it('uses every listed edge between areas (a stale allowance would hide a new dependency)', () => {
    const used = [...moduleGraph('sandbox')].flatMap(([file, targets]) =>
      targets.map((target) => `${areaOf(file)} → ${areaOf(target)}`),
    );
    expect(ALLOWED_AREA_EDGES.filter((edge) => !used.includes(edge))).toEqual([]);
  });

  it('has no import cycle in the sandbox, type-only imports included', () => {
    expect(cycles(moduleGraph('sandbox'))).toEqual([]);
  });

  it('has no import cycle anywhere in src, type-only and lazy imports included: each layer imports one way', () => {
    expect(cycles(moduleGraph('.'))).toEqual([]);
  });

  it('imports one way between the parts of src: no two folders import each other, directly or through others', () => {
    // The layers are derived, not listed: any order of the parts in which every import points down is one.
    expect(cycles(partGraph(moduleGraph('.')))).toEqual([]);
  });

  it('catches a part that imports back up (the check can fail)', () => {
    const graph: Graph = new Map([
      ['operations/engine/call.ts', ['policy/policy.ts', 'operations/engine/define.ts']],
      ['policy/policy.ts', ['operations/engine/define.ts', 'text/visible.ts']],
      ['operations/engine/define.ts', []],
      ['text/visible.ts', []],
      ['config.ts', ['mcp/limits.ts']],
      ['mcp/limits.ts', []],
      ['mcp/server.ts', ['config.ts']],
    ]);
    expect(cycles(partGraph(graph))).toEqual([
      ['operations/engine', 'policy'],
      ['config', 'mcp'],
    ]);
  });

  it('lists every area folder in AREAS once, under its folder name', () => {
    const folders = readdirSync(join(src, 'sandbox/areas'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(AREAS.map((area) => area.name).sort()).toEqual(folders.sort());
  });

  it('declares no two routes that tie (same method and shape), so the order of AREAS never decides a match', () => {
    const router = new Router();
    const context = createContext(new Store('/nonexistent'), () => {});
    for (const area of AREAS) area.routes(router, context);
    const shapes = router
      .list()
      .map(({ method, pattern }) => `${method} ${pattern.replace(/:\w+/g, ':').replace(/\[\.\w+\]/g, '[.]')}`);
    expect(shapes.length).toBeGreaterThan(100);
    expect(shapes.filter((shape, i) => shapes.indexOf(shape) !== i)).toEqual([]);
  });

  it('catches a core → area import, an area reaching into another, an unlisted edge and a cycle (the checks can fail)', () => {
    const graph: Graph = new Map([
      ['sandbox/core/store.ts', ['sandbox/areas/users/state.ts']],
      ['sandbox/areas/users/routes.ts', ['sandbox/areas/scim/state.ts', 'sandbox/core/store.ts']],
      ['sandbox/areas/packages/routes.ts', ['sandbox/areas/scim/index.ts', 'sandbox/server.ts']],
      ['sandbox/areas/users/state.ts', ['sandbox/core/store.ts']],
    ]);
    expect(layeringOffenders(graph, ALLOWED_AREA_EDGES)).toEqual([
      'sandbox/core/store.ts → sandbox/areas/users/state.ts (the core imports an area)',
      "sandbox/areas/users/routes.ts → sandbox/areas/scim/state.ts (another area's internals)",
      'sandbox/areas/packages/routes.ts → sandbox/areas/scim/index.ts (an edge not in ALLOWED_AREA_EDGES)',
      'sandbox/areas/packages/routes.ts → sandbox/server.ts (an area imports only the core, git/ and its own folder)',
    ]);
    expect(cycles(graph)).toEqual([['sandbox/areas/users/state.ts', 'sandbox/core/store.ts']]);
  });

  it('keeps the operations engine free of any API area, and each area to the engine and the shared pieces', () => {
    expect(operationsLayeringOffenders(moduleGraph('operations'))).toEqual([]);
  });

  it('catches an engine → area import and an area → another area import (the check can fail)', () => {
    const graph: Graph = new Map([
      ['operations/engine/call.ts', ['operations/areas/jobs.ts', 'operations/engine/define.ts']],
      ['operations/areas/groups.ts', ['operations/areas/projects.ts', 'operations/areas/shared/project-filters.ts']],
      ['operations/areas/jobs.ts', ['operations/composed/triage.ts']],
      ['operations/composed/triage.ts', ['operations/areas/shared/job-log.ts', 'operations/engine/define.ts']],
    ]);
    expect(operationsLayeringOffenders(graph)).toEqual([
      'operations/engine/call.ts → operations/areas/jobs.ts (the engine knows no API area)',
      'operations/areas/groups.ts → operations/areas/projects.ts (an area imports the engine and areas/shared/ only)',
      'operations/areas/jobs.ts → operations/composed/triage.ts (an area imports the engine and areas/shared/ only)',
    ]);
  });

  it('keeps the MCP transports and the policy apart: no file imports both', () => {
    const graph = moduleGraph('.');
    const sdkTransport = /^@modelcontextprotocol\/sdk\/server\/(stdio|streamableHttp)\.js$/;
    const isTransport = (target: string) => /^mcp\/(stdio\.ts|http\.ts|http\/)/.test(target);
    const transportUsers = files(src)
      .filter(
        (file) =>
          imports(file).some((spec) => sdkTransport.test(spec)) ||
          (graph.get(relative(src, file)) ?? []).some(isTransport),
      )
      .map((file) => relative(src, file));
    const policyUsers = [...graph].filter(([, targets]) => targets.includes('policy/policy.ts')).map(([file]) => file);
    expect(transportUsers.filter((file) => policyUsers.includes(file))).toEqual([]);
    // The check can fail: both are imported somewhere.
    expect(transportUsers.length).toBeGreaterThan(0);
    expect(policyUsers.length).toBeGreaterThan(0);
  });

  it('keeps every MCP SDK import inside src/mcp', () => {
    // The triage view is a page built for the browser on its own (tools/build-view.mjs): its SDK is the MCP Apps one.
    const outside = files(src)
      .filter((f) => !relative(src, f).startsWith('mcp/') && !relative(src, f).startsWith('apps/triage-view/'))
      .flatMap((file) =>
        imports(file)
          .filter((spec) => spec.startsWith('@modelcontextprotocol/'))
          .map((spec) => `${relative(src, file)} → ${spec}`),
      );
    expect(outside).toEqual([]);
  });

  it('finds imports when there are some (the check itself can fail)', () => {
    expect(offenders('mcp', /\.\.\/operations\//).length).toBeGreaterThan(0);
  });
});
