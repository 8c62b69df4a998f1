// PUT /projects/:id, beyond the spec as the service's docs describe it: a maintainer renames a project (name, path),
// the old full path keeps leading to it (the service's redirect) until another project takes that path, the checks
// refuse in the service's words, and the renamed project's pipelines run as before.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scenarioFor } from '../../../src/sandbox/areas/jobs/scenarios.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('renaming a project', () => {
  test('a maintainer renames it; its number, its new path and its old path all name it', async () => {
    const before = (await api(sandbox, 'GET', '/projects/acme%2Fweb', { as: 'maintainer' })).data;
    const renamed = await api(sandbox, 'PUT', '/projects/acme%2Fweb', {
      as: 'maintainer',
      json: { name: 'Web App', path: 'web-app' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.data).toMatchObject({
      id: before.id,
      name: 'Web App',
      path: 'web-app',
      path_with_namespace: 'acme/web-app',
      name_with_namespace: 'Acme / Web App',
      web_url: `${sandbox.url}/acme/web-app`,
    });
    for (const named of [String(before.id), 'acme%2Fweb-app', 'acme%2Fweb', 'ACME%2FWEB']) {
      const read = await api(sandbox, 'GET', `/projects/${named}`, { as: 'maintainer' });
      expect(read.status, named).toBe(200);
      expect(read.data).toMatchObject({ id: before.id, path_with_namespace: 'acme/web-app' });
    }
    // Its pipelines answer under the old path too, as any project route does.
    expect((await api(sandbox, 'GET', '/projects/acme%2Fweb/pipelines?per_page=1', { as: 'maintainer' })).status).toBe(
      200,
    );
  });

  test('a project that takes a former path has it from then on, and the renamed one no longer redirects from it', async () => {
    const infra = (await api(sandbox, 'GET', '/projects/acme%2Fplatform%2Finfra', { as: 'admin' })).data;
    const payments = (await api(sandbox, 'GET', '/projects/acme%2Fplatform%2Fpayments-api', { as: 'admin' })).data;
    const rename = (id: number, path: string) =>
      api(sandbox, 'PUT', `/projects/${id}`, { as: 'admin', json: { path } });
    expect((await rename(infra.id, 'infra-next')).status).toBe(200);
    expect((await rename(payments.id, 'infra')).status).toBe(200);
    const idOf = async (path: string) =>
      (await api(sandbox, 'GET', `/projects/${encodeURIComponent(path)}`, { as: 'admin' })).data.id;
    expect(await idOf('acme/platform/infra')).toBe(payments.id);
    expect(await idOf('acme/platform/infra-next')).toBe(infra.id);
    // Moved on again, the path redirects to its last holder, not to the project that had it first.
    expect((await rename(payments.id, 'payments-api')).status).toBe(200);
    expect(await idOf('acme/platform/infra')).toBe(payments.id);
    // And a project back at a path it had is found there as its own.
    expect((await rename(infra.id, 'infra')).status).toBe(200);
    expect(await idOf('acme/platform/infra')).toBe(infra.id);
    expect(await idOf('acme/platform/infra-next')).toBe(infra.id);
  });

  test('is refused below maintainer, without a change, and for a name or path taken or malformed', async () => {
    const infra = '/projects/acme%2Fplatform%2Finfra';
    expect((await api(sandbox, 'PUT', infra, { as: 'developer', json: { path: 'infra-2' } })).status).toBe(403);
    const nothing = await api(sandbox, 'PUT', infra, { as: 'maintainer', json: {} });
    expect(nothing.status).toBe(400);
    expect(nothing.data).toEqual({
      error: 'name, path, description are missing, at least one parameter must be provided',
    });
    const taken = await api(sandbox, 'PUT', infra, {
      as: 'maintainer',
      json: { path: 'payments-api', name: 'Payments API' },
    });
    expect(taken.status).toBe(400);
    expect(taken.data).toEqual({ message: { name: ['has already been taken'], path: ['has already been taken'] } });
    const malformed = await api(sandbox, 'PUT', infra, { as: 'maintainer', json: { path: '-infra.git', name: ' ' } });
    expect(malformed.status).toBe(400);
    expect(malformed.data.message.name).toEqual(["can't be blank"]);
    expect(malformed.data.message.path[0]).toMatch(/^can contain only letters, digits/);
    expect((await api(sandbox, 'GET', infra, { as: 'maintainer' })).data.path_with_namespace).toBe(
      'acme/platform/infra',
    );
  });

  test('keeps the CI table of the path it was made at', async () => {
    const web = sandbox.store.projects.find((project) => project.made_at === 'acme/web')!;
    await api(sandbox, 'PUT', `/projects/${web.id}`, { as: 'maintainer', json: { path: 'web-ci' } });
    expect(web.full_path).toBe('acme/web-ci');
    expect(scenarioFor(web)).toBe(scenarioFor({ made_at: 'acme/web' }));
    expect(scenarioFor(web)).not.toBe(scenarioFor({ made_at: 'acme/web-ci' }));
  });
});
