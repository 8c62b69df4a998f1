// The access helpers route modules use: group visibility (404), permissions (401/403), and access levels.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createContext, type SandboxContext } from '../../../src/sandbox/core/context.js';
import type { SandboxRequest } from '../../../src/sandbox/core/router.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';

let sandbox: Sandbox;
let ctx: SandboxContext;
beforeAll(async () => {
  sandbox = await startSandbox();
  ctx = createContext(sandbox.store, () => undefined);
});
afterAll(() => sandbox.close());

function requestBy(username: string | null): SandboxRequest<unknown> {
  return {
    method: 'GET',
    url: new URL(`${sandbox.url}/api/v4/groups`),
    pathParams: {},
    params: {},
    headers: {},
    user: username === null ? null : sandbox.store.findUser(username)!,
    scimGroupId: null,
    body: Buffer.alloc(0),
    pagination: { page: 1, per_page: 20 },
  };
}

const errorOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    return error as { status: number; body: unknown };
  }
  return undefined;
};

test('a private group is 404 to outsiders and anonymous callers, by path or id', () => {
  const platform = sandbox.store.findGroup('acme/platform')!;
  expect(errorOf(() => ctx.findGroupFor(requestBy('erin'), 'acme/platform'))).toMatchObject({
    status: 404,
    body: { message: '404 Group Not Found' },
  });
  expect(errorOf(() => ctx.findGroupFor(requestBy(null), String(platform.id)))?.status).toBe(404);
  expect(ctx.findGroupFor(requestBy('dave'), 'acme/platform')).toBe(platform);
  expect(ctx.findGroupFor(requestBy('root'), 'acme/platform')).toBe(platform);
});

test('below the required level: 403 for members, 401 for anonymous callers', () => {
  expect(errorOf(() => ctx.findGroupFor(requestBy('bob'), 'acme', { minAccess: 40 }))).toMatchObject({
    status: 403,
    body: { message: '403 Forbidden' },
  });
  expect(errorOf(() => ctx.findGroupFor(requestBy(null), 'acme', { minAccess: 10 }))?.status).toBe(401);
  expect(ctx.findGroupFor(requestBy('alice'), 'acme', { minAccess: 40 }).path).toBe('acme');
  expect(ctx.findGroupFor(requestBy('root'), 'acme', { minAccess: 50 }).path).toBe('acme');
});

test('a member of a project inside a private group may see the group', () => {
  const project = sandbox.store.findProject('acme/platform/payments-api')!;
  const erin = sandbox.store.findUser('erin')!;
  project.members.set(erin.id, { access_level: 30, expires_at: null, created_at: new Date() });
  try {
    expect(ctx.findGroupFor(requestBy('erin'), 'acme/platform').path).toBe('platform');
    expect(ctx.groupAccess(erin, sandbox.store.findGroup('acme/platform')!)).toBe(0);
    expect(ctx.projectAccess(erin, project)).toBe(30);
  } finally {
    project.members.delete(erin.id);
  }
});

test('administrators count as owners; personal namespaces give their owner 50', () => {
  const scratchpad = sandbox.store.findProject('bob/scratchpad')!;
  expect(ctx.projectAccess(sandbox.store.findUser('root')!, scratchpad)).toBe(50);
  expect(ctx.projectAccess(sandbox.store.findUser('bob')!, scratchpad)).toBe(50);
  expect(ctx.projectAccess(sandbox.store.findUser('alice')!, scratchpad)).toBe(0);
});
