// Pipelines: filters and order, the full form, variables, create/retry/cancel/delete and who may do each.
import { describe, expect, test } from 'vitest';
import { api, type Role } from './sandbox-client.js';
import { useSandbox } from '../../helpers/mcp.js';

const env = useSandbox();

const WEB = '/projects/acme%2Fweb';
const PAYMENTS = '/projects/acme%2Fplatform%2Fpayments-api';

async function ids(query: string, as: Role = 'developer'): Promise<number[]> {
  const answer = await api(env.sandbox, 'GET', `${WEB}/pipelines${query}`, { as });
  expect(answer.status).toBe(200);
  return answer.data.map((p: { id: number }) => p.id);
}

describe('list', () => {
  test('every status is seeded; newest first by default', async () => {
    const answer = await api(env.sandbox, 'GET', `${WEB}/pipelines`);
    expect(answer.data.map((p: { id: number }) => p.id)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(new Set(answer.data.map((p: { status: string }) => p.status))).toEqual(
      new Set(['running', 'pending', 'success', 'failed', 'canceled', 'skipped']),
    );
    expect(Object.keys(answer.data[0]).sort()).toEqual([
      'created_at',
      'id',
      'ref',
      'sha',
      'status',
      'updated_at',
      'web_url',
    ]);
    expect(answer.data[0].web_url).toBe(`${env.sandbox.url}/acme/web/-/pipelines/11`);
  });

  test('scope', async () => {
    expect(await ids('?scope=running')).toEqual([10]);
    expect(await ids('?scope=pending')).toEqual([11]);
    expect(await ids('?scope=finished')).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    // The latest pipeline of each branch, of each tag.
    expect(await ids('?scope=branches')).toEqual([11, 9]);
    expect(await ids('?scope=tags')).toEqual([10, 1]);
  });

  test('status, ref, sha, yaml_errors, name, username', async () => {
    expect(await ids('?status=failed')).toEqual([9, 8, 7, 2]);
    expect(await ids('?ref=feature%2Fdark-mode')).toEqual([11, 7, 6]);
    const sha = (await api(env.sandbox, 'GET', `${WEB}/pipelines/3`)).data.sha;
    // The 1.1.0 release commit: main's pipeline, the tag's, and the tag's redeploy.
    expect(await ids(`?sha=${sha}`)).toEqual([10, 4, 3]);
    expect(await ids('?yaml_errors=true')).toEqual([7]);
    expect(await ids('?yaml_errors=false&status=failed')).toEqual([9, 8, 2]);
    expect(await ids('?name=Merge%20train')).toEqual([9, 2]);
    expect(await ids('?username=carol')).toEqual([5]);
  });

  test('updated_after and updated_before', async () => {
    const all = (await api(env.sandbox, 'GET', `${WEB}/pipelines?sort=asc`)).data as Array<{
      id: number;
      updated_at: string;
    }>;
    const middle = all[4].updated_at;
    expect(await ids(`?updated_after=${encodeURIComponent(middle)}&sort=asc`)).toEqual(all.slice(4).map((p) => p.id));
    expect(await ids(`?updated_before=${encodeURIComponent(middle)}&sort=asc`)).toEqual(
      all.slice(0, 5).map((p) => p.id),
    );
  });

  test('order_by status, ref, user_id', async () => {
    const byStatus = (await api(env.sandbox, 'GET', `${WEB}/pipelines?order_by=status&sort=asc`)).data.map(
      (p: { status: string }) => p.status,
    );
    expect(byStatus).toEqual([...byStatus].sort());
    const byRef = (await api(env.sandbox, 'GET', `${WEB}/pipelines?order_by=ref&sort=desc`)).data.map(
      (p: { ref: string }) => p.ref,
    );
    expect(byRef[0]).toBe('v1.1.0');
    expect(await ids('?order_by=user_id&sort=asc&status=success')).toEqual([1, 3, 4]);
  });
});

describe('single pipeline and variables', () => {
  test('the full form', async () => {
    const answer = await api(env.sandbox, 'GET', `${WEB}/pipelines/7`);
    expect(answer.data).toMatchObject({
      id: 7,
      status: 'failed',
      ref: 'feature/dark-mode',
      tag: false,
      yaml_errors: 'jobs:test config contains unknown keys: scirpt',
      user: { username: 'bob', name: 'Bob Chen' },
      coverage: null,
      duration: 3,
    });
    expect(answer.data.before_sha).toMatch(/^[0-9a-f]{40}$/);
    const tagged = await api(env.sandbox, 'GET', `${WEB}/pipelines/4`);
    expect(tagged.data).toMatchObject({ tag: true, coverage: '84.75', before_sha: '0'.repeat(40) });
  });

  test('a pipeline of another project, or a bad id, is not found here', async () => {
    const other = env.sandbox.store.findProject('acme/platform/payments-api')!.pipelines[0].id;
    const answer = await api(env.sandbox, 'GET', `${WEB}/pipelines/${other}`);
    expect(answer.status).toBe(404);
    expect(answer.data).toEqual({ message: '404 Pipeline Not Found' });
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/abc`)).data).toEqual({
      error: 'pipeline_id does not have a valid value',
    });
  });

  test('variables need developer access', async () => {
    const answer = await api(env.sandbox, 'GET', `${WEB}/pipelines/11/variables`);
    expect(answer.data).toEqual([
      { key: 'RUN_E2E', variable_type: 'env_var', value: 'true' },
      { key: 'E2E_CONFIG', variable_type: 'file', value: 'browsers: [chromium, firefox]\n' },
    ]);
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/11/variables`, { as: 'reporter' })).status).toBe(403);
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/11/variables`, { as: 'anonymous' })).status).toBe(401);
  });

  test('on a private project reporters read pipelines, guests do not', async () => {
    expect(
      (
        await api(
          env.sandbox,
          'GET',
          `${PAYMENTS}/pipelines/${env.sandbox.store.findProject('acme/platform/payments-api')!.pipelines[0].id}`,
          { as: 'reporter' },
        )
      ).status,
    ).toBe(200);
    expect((await api(env.sandbox, 'GET', `${PAYMENTS}/pipelines`, { as: 'guest' })).status).toBe(403);
  });
});

describe('create, retry, cancel, delete', () => {
  test('create: pending, before_sha zeros, the ref tip, variables stored', async () => {
    const answer = await api(env.sandbox, 'POST', `${PAYMENTS}/pipeline`, {
      json: { ref: 'main', variables: [{ key: 'DRY_RUN', value: 'yes' }] },
    });
    expect(answer.status).toBe(201);
    const project = env.sandbox.store.findProject('acme/platform/payments-api')!;
    expect(answer.data).toMatchObject({
      status: 'pending',
      ref: 'main',
      sha: await project.repo.resolveCommit('main'),
      before_sha: '0'.repeat(40),
      tag: false,
      user: { username: 'bob' },
      started_at: null,
      finished_at: null,
      yaml_errors: null,
    });
    const variables = await api(env.sandbox, 'GET', `${PAYMENTS}/pipelines/${answer.data.id}/variables`);
    expect(variables.data).toEqual([{ key: 'DRY_RUN', variable_type: 'env_var', value: 'yes' }]);
  });

  test('create on a tag marks it as a tag pipeline', async () => {
    const answer = await api(env.sandbox, 'POST', `${WEB}/pipeline`, { json: { ref: 'v1.1.0' } });
    expect(answer.data).toMatchObject({ ref: 'v1.1.0', tag: true, status: 'pending' });
  });

  test('create with a ref that does not exist, or without the CI file', async () => {
    const missing = await api(env.sandbox, 'POST', `${WEB}/pipeline`, { json: { ref: 'no-such-branch' } });
    expect(missing.status).toBe(400);
    expect(missing.data).toEqual({ message: { base: ['Reference not found'] } });
    const noCi = await api(env.sandbox, 'POST', '/projects/bob%2Fscratchpad/pipeline', { json: { ref: 'main' } });
    expect(noCi.data).toEqual({ message: { base: ['Missing CI config file'] } });
  });

  test('create checks variable keys', async () => {
    const answer = await api(env.sandbox, 'POST', `${WEB}/pipeline`, {
      json: { ref: 'main', variables: [{ key: 'BAD KEY', value: '1' }] },
    });
    expect(answer.data).toEqual({ error: 'variables[0][key] does not have a valid value' });
  });

  test('reporters may not create; anonymous callers are asked to sign in', async () => {
    expect((await api(env.sandbox, 'POST', `${WEB}/pipeline`, { json: { ref: 'main' }, as: 'reporter' })).status).toBe(
      403,
    );
    expect((await api(env.sandbox, 'POST', `${WEB}/pipeline`, { json: { ref: 'main' }, as: 'anonymous' })).status).toBe(
      401,
    );
    expect((await api(env.sandbox, 'POST', `${WEB}/pipeline`, { json: { ref: 'main' }, as: 'outsider' })).status).toBe(
      403,
    );
  });

  const jobsOf = async (pipeline: number, query = '') =>
    (
      (await api(env.sandbox, 'GET', `${WEB}/pipelines/${pipeline}/jobs${query}`)).data as Array<{
        name: string;
        status: string;
      }>
    )
      .map((j) => `${j.name} ${j.status}`)
      .sort();

  test('retry turns a failed pipeline pending again: its failed jobs are retried, a deploy that needed only the build stays done', async () => {
    expect(await jobsOf(2)).toEqual(['build success', 'deploy:staging success', 'lint success', 'test failed']);
    const answer = await api(env.sandbox, 'POST', `${WEB}/pipelines/2/retry`);
    expect(answer.status).toBe(201);
    expect(answer.data).toMatchObject({ id: 2, status: 'pending', finished_at: null, duration: null });
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/2`)).data.status).toBe('pending');
    expect(await jobsOf(2)).toEqual(['build success', 'deploy:staging success', 'lint success', 'test pending']);
    expect(await jobsOf(2, '?include_retried=true')).toContain('test failed');
  });

  test('cancel turns a running pipeline canceled, and its jobs that had not ended', async () => {
    // alice's redeploy of the 1.1.0 release is still testing.
    expect(await jobsOf(10)).toContain('test running');
    const answer = await api(env.sandbox, 'POST', `${WEB}/pipelines/10/cancel`);
    expect(answer.status).toBe(201);
    expect(answer.data.status).toBe('canceled');
    expect(answer.data.finished_at).not.toBeNull();
    // The manual deploy nobody played is left as it is.
    expect(await jobsOf(10)).toEqual(['build success', 'deploy:production manual', 'lint success', 'test canceled']);
    expect((await api(env.sandbox, 'POST', `${WEB}/pipelines/10/cancel`, { as: 'reporter' })).status).toBe(403);
  });

  test('delete needs a maintainer and answers 204 with no body; the jobs go with it', async () => {
    const jobIds = ((await api(env.sandbox, 'GET', `${WEB}/pipelines/4/jobs`)).data as Array<{ id: number }>).map(
      (j) => j.id,
    );
    expect(jobIds.length).toBe(4);
    expect((await api(env.sandbox, 'DELETE', `${WEB}/pipelines/4`)).status).toBe(403);
    const answer = await api(env.sandbox, 'DELETE', `${WEB}/pipelines/4`, { as: 'maintainer' });
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');
    expect((await api(env.sandbox, 'GET', `${WEB}/pipelines/4`)).status).toBe(404);
    expect((await api(env.sandbox, 'DELETE', `${WEB}/pipelines/4`, { as: 'maintainer' })).status).toBe(404);
    for (const id of jobIds) expect((await api(env.sandbox, 'GET', `${WEB}/jobs/${id}`)).status).toBe(404);
  });
});
