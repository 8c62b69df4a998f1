// The sandbox over real HTTP: prefixes, authentication, visibility, parameters, bodies and failures.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api, call } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

describe('routing', () => {
  test('the base url is on loopback; paths outside /api/v4 and /api/scim/v2 are 404', async () => {
    expect(sandbox.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const outside = await call(sandbox, 'GET', '/projects');
    expect(outside.status).toBe(404);
    const unknown = await api(sandbox, 'GET', '/nothing/here');
    expect(unknown.status).toBe(404);
    expect(unknown.data).toEqual({ error: '404 Not Found' });
  });

  test('a known path with the wrong method is 405 with Allow', async () => {
    const answer = await api(sandbox, 'PATCH', '/projects/1/pipelines/1');
    expect(answer.status).toBe(405);
    expect(answer.headers.get('allow')).toBe('GET, DELETE');
  });
});

describe('authentication', () => {
  test('an endpoint needing a user answers 401 without a token', async () => {
    const answer = await api(sandbox, 'GET', '/user', { as: 'anonymous' });
    expect(answer.status).toBe(401);
    expect(answer.data).toEqual({ message: '401 Unauthorized' });
  });

  test('an unknown token is 401 even on public data', async () => {
    const answer = await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines', { token: 'not-a-token' });
    expect(answer.status).toBe(401);
    expect(answer.data).toEqual({ message: '401 Unauthorized' });
  });

  test('a valid token names the user', async () => {
    const answer = await api(sandbox, 'GET', '/user', { as: 'reporter' });
    expect(answer.status).toBe(200);
    expect(answer.data.username).toBe('carol');
  });
});

describe('visibility and permissions', () => {
  const payments = '/projects/acme%2Fplatform%2Fpayments-api/pipelines';

  test('a private project read by an outsider is 404 with the service message', async () => {
    const answer = await api(sandbox, 'GET', payments, { as: 'outsider' });
    expect(answer.status).toBe(404);
    expect(answer.data).toEqual({ message: '404 Project Not Found' });
  });

  test('a private project is hidden from anonymous callers too, by path and by id', async () => {
    expect((await api(sandbox, 'GET', payments, { as: 'anonymous' })).status).toBe(404);
    expect((await api(sandbox, 'GET', '/projects/2/pipelines', { as: 'anonymous' })).status).toBe(404);
  });

  test('members of an ancestor group read a private subgroup project', async () => {
    const answer = await api(sandbox, 'GET', payments, { as: 'reporter' });
    expect(answer.status).toBe(200);
    expect(answer.data.length).toBeGreaterThan(0);
  });

  test('a public project is readable without a token', async () => {
    const answer = await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines', { as: 'anonymous' });
    expect(answer.status).toBe(200);
  });

  test('seen but not allowed is 403', async () => {
    const guest = await api(sandbox, 'GET', payments, { as: 'guest' });
    expect(guest.status).toBe(403);
    expect(guest.data).toEqual({ message: '403 Forbidden' });
  });

  test('an internal project is visible to any signed-in user but not anonymously', async () => {
    expect((await api(sandbox, 'GET', '/projects/acme%2Fplatform%2Finfra/releases', { as: 'outsider' })).status).toBe(
      200,
    );
    expect((await api(sandbox, 'GET', '/projects/acme%2Fplatform%2Finfra/releases', { as: 'anonymous' })).status).toBe(
      404,
    );
  });

  test('a direct project member sees a private project their groups do not give them', async () => {
    const project = sandbox.store.findProject('acme/platform/payments-api')!;
    const erin = sandbox.store.findUser('erin')!;
    project.members.set(erin.id, { access_level: 20, expires_at: null, created_at: new Date() });
    try {
      expect((await api(sandbox, 'GET', payments, { as: 'outsider' })).status).toBe(200);
      expect(
        (
          await api(sandbox, 'POST', '/projects/acme%2Fplatform%2Fpayments-api/pipeline', {
            as: 'outsider',
            json: { ref: 'main' },
          })
        ).status,
      ).toBe(403);
    } finally {
      project.members.delete(erin.id);
    }
    expect((await api(sandbox, 'GET', payments, { as: 'outsider' })).status).toBe(404);
  });

  test('path lookup ignores case, as on the service', async () => {
    expect((await api(sandbox, 'GET', '/projects/ACME%2FWeb/releases')).status).toBe(200);
  });
});

describe('parameters', () => {
  // The service ignores parameters it does not know, so the sandbox does too and only logs them
  // (strict mode, which refuses them, is tested in lenient-params.test.ts).
  test('an unknown query parameter is ignored, and named in the request log', async () => {
    const answer = await api(sandbox, 'GET', '/projects/1/pipelines?stauts=running');
    expect(answer.status).toBe(200);
    expect(answer.data.map((p: { status: string }) => p.status)).toContain('success');
    expect(sandbox.requests.all().at(-1)?.unknownParams).toEqual(['stauts']);
  });

  test('pagination parameters exist only on list routes', async () => {
    const answer = await api(sandbox, 'GET', '/projects/1/pipelines/1?page=2');
    expect(answer.status).toBe(200);
    expect(sandbox.requests.all().at(-1)?.unknownParams).toEqual(['page']);
  });

  test('a missing required body parameter', async () => {
    const answer = await api(sandbox, 'POST', '/projects/1/pipeline', { json: {} });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ error: 'ref is missing' });
  });

  test('a value outside the enum, and a non-boolean', async () => {
    const status = await api(sandbox, 'GET', '/projects/1/pipelines?status=exploded');
    expect(status.status).toBe(400);
    expect(status.data).toEqual({ error: 'status does not have a valid value' });
    const flag = await api(sandbox, 'GET', '/projects/1/pipelines?yaml_errors=maybe');
    expect(flag.data).toEqual({ error: 'yaml_errors does not have a valid value' });
  });

  test('per_page must be a positive integer', async () => {
    const answer = await api(sandbox, 'GET', '/projects/1/pipelines?per_page=0');
    expect(answer.data).toEqual({ error: 'per_page does not have a valid value' });
  });

  test('a form body with bracket keys is read like JSON', async () => {
    const answer = await api(sandbox, 'POST', '/projects/1/pipeline', {
      form: 'ref=main&variables[][key]=A&variables[][value]=1&variables[][key]=B&variables[][value]=2&variables[][variable_type]=file',
    });
    expect(answer.status).toBe(201);
    const variables = await api(sandbox, 'GET', `/projects/1/pipelines/${answer.data.id}/variables`);
    expect(variables.data).toEqual([
      { key: 'A', variable_type: 'env_var', value: '1' },
      { key: 'B', variable_type: 'file', value: '2' },
    ]);
  });

  test('broken JSON and unsupported content types are 400 and 415', async () => {
    const response = await fetch(`${sandbox.url}/api/v4/projects/1/pipeline`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': sandbox.tokens.developer, 'content-type': 'application/json' },
      body: '{"ref": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'body is not valid JSON' });
    const xml = await fetch(`${sandbox.url}/api/v4/projects/1/pipeline`, {
      method: 'POST',
      headers: { 'PRIVATE-TOKEN': sandbox.tokens.developer, 'content-type': 'application/xml' },
      body: '<ref>main</ref>',
    });
    expect(xml.status).toBe(415);
  });

  test('a multipart body that cannot be parsed is 400, not a crash', async () => {
    for (const contentType of ['multipart/form-data', 'multipart/form-data; boundary=xyz']) {
      const response = await fetch(`${sandbox.url}/api/v4/projects/1/pipeline`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': sandbox.tokens.developer, 'content-type': contentType },
        body: 'ref=main',
      });
      expect(response.status, contentType).toBe(400);
      expect(await response.json(), contentType).toEqual({ error: 'body is not valid multipart/form-data' });
    }
  });
});

describe('failures', () => {
  test('a handler that fails is a 500 without details, and a log line', async () => {
    const lines: string[] = [];
    const own = await startSandbox({ log: (line) => lines.push(line) });
    try {
      await rm(own.store.projects[0].repo.dir, { recursive: true, force: true });
      const answer = await api(own, 'GET', '/projects/1/releases');
      expect(answer.status).toBe(500);
      expect(answer.data).toEqual({ message: '500 Internal Server Error' });
      expect(lines.some((line) => line.includes('/projects/1/releases failed'))).toBe(true);
      expect(lines).toContain('GET /api/v4/projects/1/releases 500');
    } finally {
      await own.close();
    }
  });
});

describe('request log', () => {
  test('records method, raw path and status of every request', async () => {
    sandbox.requests.clear();
    await api(sandbox, 'GET', '/projects/acme%2Fweb/releases?per_page=1');
    await api(sandbox, 'GET', '/user', { as: 'anonymous' });
    await api(sandbox, 'GET', '/user?bogus=1');
    expect(sandbox.requests.all()).toEqual([
      { method: 'GET', path: '/projects/acme%2Fweb/releases', status: 200, unknownParams: [] },
      { method: 'GET', path: '/user', status: 401, unknownParams: [] },
      { method: 'GET', path: '/user', status: 200, unknownParams: ['bogus'] },
    ]);
    expect(sandbox.requests.filter({ method: 'get', path: '/user' })).toHaveLength(2);
  });
});

describe('temporary files', () => {
  test('a host process that exits without close() leaves no data directory behind', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'forgeops-audit-bundle-'));
    try {
      // The host must be a process of its own that really exits: the sandbox, bundled so plain node can load it.
      const bundle = join(scratch, 'sandbox.mjs');
      await build({
        entryPoints: [fileURLToPath(new URL('../../../src/sandbox/server.ts', import.meta.url))],
        outfile: bundle,
        bundle: true,
        format: 'esm',
        platform: 'node',
        logLevel: 'silent',
      });
      const script = [
        `import { startSandbox } from ${JSON.stringify(pathToFileURL(bundle).href)};`,
        'const sandbox = await startSandbox({ seed: false });',
        'process.stdout.write(sandbox.store.dataDir);',
        'process.exit(0);',
      ].join('\n');
      const host = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(host.status, host.stderr).toBe(0);
      expect(host.stdout).toContain(`forgeops-sandbox-${host.pid}-`);
      expect(existsSync(host.stdout)).toBe(false);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  test('the data directory of a process that died is removed when the next sandbox starts', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = join(tmpdir(), `forgeops-sandbox-${gone}-audit`);
    await mkdir(join(orphan, 'repositories'), { recursive: true });
    const own = await startSandbox({ seed: false });
    try {
      expect(existsSync(orphan)).toBe(false);
      expect(existsSync(own.store.dataDir)).toBe(true);
    } finally {
      await own.close();
      await rm(orphan, { recursive: true, force: true });
    }
  });
});
