// Route matching: raw segments decoded one by one, literals before parameters, the [.format] suffix, 405 vs 404.
import { describe, expect, test } from 'vitest';
import { Router, signedInList } from '../../../src/sandbox/core/router.js';
import { z } from 'zod';

function table(): Router {
  const router = new Router();
  const noop = () => undefined;
  router.route('GET', '/projects/:id/members/:user_id', {}, noop);
  router.route('GET', '/projects/:id/members/all', {}, noop);
  router.route('GET', '/projects/:id/repository/files/:file_path/raw', {}, noop);
  router.route('HEAD', '/projects/:id/repository/files/:file_path/raw', {}, noop);
  router.route('GET', '/projects/:id/repository/archive[.format]', {}, noop);
  router.route('DELETE', '/projects/:id/pipelines/:pipeline_id', {}, noop);
  return router;
}

describe('Router.match', () => {
  const router = table();

  test('encoded ids and file paths arrive decoded, slashes inside a segment stay in it', () => {
    const match = router.match('GET', '/projects/group%2Fsub%2Fapp/repository/files/src%2Fa%20b.ts/raw');
    expect(match).toMatchObject({ kind: 'found', pathParams: { id: 'group/sub/app', file_path: 'src/a b.ts' } });
  });

  test('a literal segment wins over a parameter', () => {
    const match = router.match('GET', '/projects/1/members/all');
    expect(match.kind === 'found' && match.route.pattern).toBe('/projects/:id/members/all');
    const member = router.match('GET', '/projects/1/members/7');
    expect(member).toMatchObject({ kind: 'found', pathParams: { user_id: '7' } });
  });

  test('the optional [.format] suffix', () => {
    expect(router.match('GET', '/projects/1/repository/archive')).toMatchObject({ pathParams: { format: '' } });
    expect(router.match('GET', '/projects/1/repository/archive.zip')).toMatchObject({ pathParams: { format: 'zip' } });
    expect(router.match('GET', '/projects/1/repository/archive.tar.gz')).toMatchObject({
      pathParams: { format: 'tar.gz' },
    });
    expect(router.match('GET', '/projects/1/repository/archives').kind).toBe('not_found');
  });

  test('HEAD only where declared; a known path with another method is 405 with the allowed ones', () => {
    expect(router.match('HEAD', '/projects/1/repository/files/a/raw').kind).toBe('found');
    expect(router.match('HEAD', '/projects/1/members/all')).toEqual({ kind: 'method_not_allowed', allowed: ['GET'] });
    expect(router.match('GET', '/projects/1/pipelines/3')).toEqual({ kind: 'method_not_allowed', allowed: ['DELETE'] });
  });

  test('unknown paths, empty segments and bad percent-encoding are not found', () => {
    expect(router.match('GET', '/projects/1/nothing').kind).toBe('not_found');
    expect(router.match('GET', '/projects//members/all').kind).toBe('not_found');
    expect(router.match('GET', '/projects/%E0%A4%A/members/all').kind).toBe('not_found');
  });

  test('declaring a route twice is a programming error', () => {
    expect(() => router.route('GET', '/projects/:id/members/all', {}, () => undefined)).toThrow(/declared twice/);
  });
});

describe('SCIM routes', () => {
  test('use bearer auth by default, and only they may', () => {
    const router = new Router();
    router.route('GET', '/api/scim/v2/groups/:group_path/Users', {}, () => undefined);
    const match = router.match('GET', '/api/scim/v2/groups/acme/Users');
    expect(match.kind === 'found' && match.route.options.auth).toBe('scim');
    expect(() => router.route('GET', '/projects', { auth: 'scim' }, () => undefined)).toThrow(/SCIM routes/);
    expect(() =>
      router.route('POST', '/api/scim/v2/groups/:group_path/Users', { auth: 'user' }, () => undefined),
    ).toThrow(/SCIM routes/);
  });
});

describe('web routes', () => {
  test('read no credential (auth none), and only they may', () => {
    const web = new Router('web');
    web.route('POST', '/oauth/token', {}, () => undefined);
    const match = web.match('POST', '/oauth/token');
    expect(match.kind === 'found' && match.route.options.auth).toBe('none');
    expect(() => web.route('GET', '/oauth/device', { auth: 'user' }, () => undefined)).toThrow(/web routes/);
    expect(() => new Router().route('GET', '/projects', { auth: 'none' }, () => undefined)).toThrow(/web routes/);
  });
});

describe('signedInList', () => {
  test('an offset-paged route that needs a token, with page and per_page beside its own parameters', () => {
    const router = new Router();
    router.route('GET', '/projects/:id/deployments', signedInList(z.object({ sort: z.string().optional() })), () => {});
    const match = router.match('GET', '/projects/1/deployments');
    if (match.kind !== 'found') throw new Error(match.kind);
    expect(match.route.options).toMatchObject({ auth: 'user', pagination: 'offset' });
    expect(Object.keys(match.route.schema.shape)).toEqual(['sort', 'page', 'per_page']);
  });
});
