// Links pasted from the service's pages: what each kind names, the base URL restriction, and the way back for examples.
import { describe, expect, it } from 'vitest';
import { linkInput, readServiceUrl, serviceUrl } from '../../../src/chat/urls.js';

const BASE = 'https://code.example.com';

describe('readServiceUrl', () => {
  it('reads each kind of page', () => {
    expect(readServiceUrl(`${BASE}/acme/web/-/pipelines/42`)).toEqual({ project: 'acme/web', pipeline_id: 42 });
    expect(readServiceUrl(`${BASE}/acme/web/-/commit/9f8e7d6c`)).toEqual({ project: 'acme/web', sha: '9f8e7d6c' });
    expect(readServiceUrl(`${BASE}/acme/web/-/blob/main/src/a%20b.ts#L10`)).toEqual({
      project: 'acme/web',
      ref: 'main',
      path: 'src/a b.ts',
    });
    expect(readServiceUrl(`${BASE}/acme/web/-/tree/v1.2/docs/api?ref_type=tags`)).toEqual({
      project: 'acme/web',
      ref: 'v1.2',
      path: 'docs/api',
    });
    expect(readServiceUrl(`${BASE}/acme/web/-/tree/main`)).toEqual({ project: 'acme/web', ref: 'main' });
    expect(readServiceUrl(`${BASE}/acme/web/-/releases/v1.2.0`)).toEqual({ project: 'acme/web', tag_name: 'v1.2.0' });
    expect(readServiceUrl(`${BASE}/acme/web/-/issues/7`)).toEqual({ project: 'acme/web', issue_iid: 7 });
    expect(readServiceUrl(`${BASE}/acme/web/-/merge_requests/3/diffs`)).toEqual({
      project: 'acme/web',
      merge_request_iid: 3,
    });
  });

  it('reads a bare project link, a clone URL and a Slack-wrapped link as the project', () => {
    expect(readServiceUrl(`${BASE}/acme/platform/payments-api`)).toEqual({ project: 'acme/platform/payments-api' });
    expect(readServiceUrl(`${BASE}/acme/web.git`)).toEqual({ project: 'acme/web' });
    expect(readServiceUrl(`<${BASE}/acme/web/-/issues/7|acme/web#7>`)).toEqual({ project: 'acme/web', issue_iid: 7 });
    // An unknown page still names its project.
    expect(readServiceUrl(`${BASE}/acme/web/-/settings/ci_cd`)).toEqual({ project: 'acme/web' });
  });

  it('is not a link: undefined; a link without a project: an error', () => {
    expect(readServiceUrl('acme/web')).toBeUndefined();
    expect(() => readServiceUrl(`${BASE}/`)).toThrow(`${BASE}/ names no project.`);
  });

  it('takes any host, unless a base URL restricts it (and then reads paths under the base path)', () => {
    expect(readServiceUrl('http://git.internal:8080/a/b/-/pipelines/1')).toEqual({ project: 'a/b', pipeline_id: 1 });
    expect(() => readServiceUrl('https://evil.example/a/b', BASE)).toThrow(
      'https://evil.example/a/b is not a link to https://code.example.com.',
    );
    expect(readServiceUrl('https://host.test/gitlab/a/b/-/issues/2', 'https://host.test/gitlab/')).toEqual({
      project: 'a/b',
      issue_iid: 2,
    });
    expect(() => readServiceUrl('https://host.test/other/a/b', 'https://host.test/gitlab')).toThrow(
      'is not a link to https://host.test/gitlab.',
    );
  });
});

describe('linkInput', () => {
  it('fills only the fields the operation has, the ref in the first field that takes it', () => {
    const link = { project: 'acme/web', ref: 'main', path: 'src/app.ts' };
    expect(linkInput(link, new Set(['id', 'file_path', 'ref']))).toEqual({
      id: 'acme/web',
      file_path: 'src/app.ts',
      ref: 'main',
    });
    expect(linkInput(link, new Set(['id', 'ref_name', 'path']))).toEqual({
      id: 'acme/web',
      ref_name: 'main',
      path: 'src/app.ts',
    });
    expect(linkInput(link, new Set(['id', 'file_path', 'branch']))).toEqual({
      id: 'acme/web',
      file_path: 'src/app.ts',
      branch: 'main',
    });
    expect(linkInput({ project: 'acme/web', pipeline_id: 4 }, new Set(['id']))).toEqual({ id: 'acme/web' });
    expect(linkInput({ project: 'acme/web' }, new Set(['search']))).toEqual({});
  });
});

describe('serviceUrl', () => {
  it('builds the link readServiceUrl reads back', () => {
    const targets = [
      { project: 'acme/web', pipeline_id: 42 },
      { project: 'acme/web', sha: 'abc' },
      { project: 'acme/web', tag_name: 'v1' },
      { project: 'acme/web', ref: 'main', path: 'src/app.ts' },
      { project: 'acme/web', ref: 'main' },
      { project: 'acme/web', issue_iid: 7 },
      { project: 'acme/web', merge_request_iid: 3 },
      { project: 'acme/web' },
    ];
    for (const target of targets) expect(readServiceUrl(serviceUrl(`${BASE}/`, target))).toEqual(target);
    expect(serviceUrl(BASE, { project: 'acme/web', pipeline_id: 42 })).toBe(`${BASE}/acme/web/-/pipelines/42`);
  });
});
