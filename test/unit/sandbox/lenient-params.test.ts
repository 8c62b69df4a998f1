// The sandbox reads parameters as the service does for any client (python-requests spellings, path values repeated, null, unknown names) and logs what it ignored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineOperation } from '../../../src/operations/engine/define.js';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { contractSuite, expectNoUnknownParams } from '../../contract/harness.js';

// The contract harness's own sandbox is a plain startSandbox({ port: 0 }): the service-like one.
const suite = contractSuite('projects');
let strict: Sandbox;
const strictLog: string[] = [];
beforeAll(async () => {
  strict = await startSandbox({ port: 0, strictParams: true, log: (line) => strictLog.push(line) });
}, 30_000);
afterAll(() => strict?.close());

const WEB = '/projects/acme%2Fweb';

interface PyRequest {
  /** Query values as Python writes them: str(True) is 'True'. */
  params?: Record<string, string>;
  /** A form body (requests' data=). */
  data?: Record<string, string>;
  /** A JSON body (requests' json=); None becomes null. */
  json?: unknown;
  token?: 'developer' | 'maintainer';
}

/** What python-gitlab sends through the requests library: its user agent, PRIVATE-TOKEN, query, form or JSON. */
async function py(method: string, path: string, request: PyRequest = {}, on: Sandbox = suite.sandbox) {
  const query = request.params ? `?${new URLSearchParams(request.params)}` : '';
  const headers: Record<string, string> = {
    'user-agent': 'python-requests/2.32.3',
    accept: '*/*',
    'private-token': on.tokens[request.token ?? 'maintainer'],
  };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.data) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.data).toString();
  }
  const response = await fetch(`${on.url}/api/v4${path}${query}`, { method, headers, body });
  const text = await response.text();
  return {
    status: response.status,
    data: text ? JSON.parse(text) : undefined,
    unknownParams: on.requests.all().at(-1)?.unknownParams,
  };
}

describe('booleans written True/False', () => {
  // Each python-gitlab call that was refused: the Python spelling gets the same answer as 'true'/'false'.
  const cases: Array<[call: string, path: string, name: string, extra?: Record<string, string>]> = [
    ['repository_tree(recursive=…)', `${WEB}/repository/tree`, 'recursive', { per_page: '100' }],
    ['commits.get(sha, stats=…)', `${WEB}/repository/commits/main`, 'stats'],
    ['projects.list(archived=…)', '/projects', 'archived', { per_page: '100' }],
    ['pipelines.list(yaml_errors=…)', `${WEB}/pipelines`, 'yaml_errors', { per_page: '100' }],
    ['repository_compare(straight=…)', `${WEB}/repository/compare`, 'straight', { from: 'v1.0.0', to: 'main' }],
  ];
  it.each(cases)('%s is answered as with true/false', async (_call, path, name, extra = {}) => {
    for (const [python, plain] of [
      ['True', 'true'],
      ['False', 'false'],
    ]) {
      const answer = await py('GET', path, { params: { ...extra, [name]: python } });
      expect(answer.status, `${name}=${python}`).toBe(200);
      expect(answer.unknownParams).toEqual([]);
      expect(answer.data).toEqual((await py('GET', path, { params: { ...extra, [name]: plain } })).data);
    }
  });

  it('True and False mean different things (the word is read, not dropped)', async () => {
    const tree = async (recursive: string) =>
      (await py('GET', `${WEB}/repository/tree`, { params: { recursive, per_page: '100' } })).data.map(
        (e: { path: string }) => e.path,
      );
    expect((await tree('True')).some((path: string) => path.includes('/'))).toBe(true);
    expect((await tree('False')).some((path: string) => path.includes('/'))).toBe(false);
    expect((await py('GET', `${WEB}/repository/commits/main`, { params: { stats: 'False' } })).data).not.toHaveProperty(
      'stats',
    );
    expect((await py('GET', `${WEB}/repository/commits/main`, { params: { stats: 'True' } })).data).toHaveProperty(
      'stats',
    );
    const archived = async (word: string) =>
      (await py('GET', '/projects', { params: { archived: word, per_page: '100' } })).data.map(
        (p: { archived: boolean }) => p.archived,
      );
    expect(new Set(await archived('True'))).toEqual(new Set([true]));
    expect(new Set(await archived('False'))).toEqual(new Set([false]));
  });

  it("every word of the service's coercion, in a query and in a form body; others stay refused", async () => {
    for (const [word, recursive] of [
      ['t', true],
      ['yes', true],
      ['on', true],
      ['1', true],
      ['f', false],
      ['no', false],
      ['off', false],
      ['0', false],
    ] as const) {
      const answer = await py('GET', `${WEB}/repository/tree`, { params: { recursive: word, per_page: '100' } });
      expect(
        answer.data.some((e: { path: string }) => e.path.includes('/')),
        word,
      ).toBe(recursive);
    }
    const form = await py('POST', `${WEB}/repository/commits`, {
      data: {
        branch: 'py-form',
        start_branch: 'main',
        commit_message: 'From a form',
        'actions[][action]': 'create',
        'actions[][file_path]': 'py/form.txt',
        'actions[][content]': 'x',
        stats: 'False',
      },
    });
    expect(form.status).toBe(201);
    expect(form.data).not.toHaveProperty('stats');
    expect((await py('GET', `${WEB}/repository/tree`, { params: { recursive: 'maybe' } })).data).toEqual({
      error: 'recursive does not have a valid value',
    });
  });
});

describe('the path parameter repeated in the body', () => {
  const changelog = `${WEB}/repository/files/CHANGELOG.md`;
  const readChangelog = async (on: Sandbox = suite.sandbox) =>
    (await fetch(`${on.url}/api/v4${changelog}/raw?ref=main`)).text();
  /** Updates CHANGELOG.md on main through its path, with `filePath` also in the body, as python-gitlab sends it. */
  const updateChangelogNaming = (filePath: string, content: string) =>
    py('PUT', changelog, { json: { file_path: filePath, branch: 'main', content, commit_message: 'Update' } });

  it('the same value is accepted: files.update sends file_path in the JSON', async () => {
    const answer = await updateChangelogNaming('CHANGELOG.md', '# Changelog\n\nSame path.\n');
    expect(answer).toMatchObject({
      status: 200,
      data: { file_path: 'CHANGELOG.md', branch: 'main' },
      unknownParams: [],
    });
    expect(await readChangelog()).toBe('# Changelog\n\nSame path.\n');
  });

  it("another value is ignored, the path's value is used, and the log names it", async () => {
    const answer = await updateChangelogNaming('OTHER.md', '# Changelog\n\nPath wins.\n');
    expect(answer).toMatchObject({ status: 200, data: { file_path: 'CHANGELOG.md' }, unknownParams: ['file_path'] });
    expect(await readChangelog()).toBe('# Changelog\n\nPath wins.\n');
    expect((await py('GET', `${WEB}/repository/files/OTHER.md`, { params: { ref: 'main' } })).status).toBe(404);
  });

  it('in strict mode the same value passes and another one is refused', async () => {
    const json = { branch: 'main', content: 'strict\n', commit_message: 'Update' };
    expect((await py('PUT', changelog, { json: { ...json, file_path: 'CHANGELOG.md' } }, strict)).status).toBe(200);
    const other = await py('PUT', changelog, { json: { ...json, file_path: 'OTHER.md', content: 'other\n' } }, strict);
    expect(other).toMatchObject({
      status: 400,
      data: { error: 'file_path does not match the path' },
      unknownParams: ['file_path'],
    });
    expect(await readChangelog(strict)).toBe('strict\n');
  });
});

describe('null for a parameter', () => {
  it('an optional one is treated as absent (start_branch: null)', async () => {
    const json = {
      branch: 'main',
      content: 'none\n',
      commit_message: 'Create',
      start_branch: null,
      author_email: null,
      encoding: null,
    };
    const answer = await py('POST', `${WEB}/repository/files/py%2Fnull.txt`, { json });
    expect(answer).toMatchObject({
      status: 201,
      data: { file_path: 'py/null.txt', branch: 'main' },
      unknownParams: [],
    });
  });

  it('a required one is missing, as if absent', async () => {
    const json = { branch: null, content: 'x', commit_message: 'Create' };
    expect((await py('POST', `${WEB}/repository/files/py%2Fmissing.txt`, { json })).data).toEqual({
      error: 'branch is missing',
    });
  });

  it('a boolean one takes its default (stats: null is stats: true)', async () => {
    const json = {
      branch: 'py-null',
      start_branch: 'main',
      commit_message: 'Nulls',
      actions: [{ action: 'create', file_path: 'py/n.txt', content: 'n' }],
      stats: null,
      force: null,
    };
    const answer = await py('POST', `${WEB}/repository/commits`, { json });
    expect(answer.status).toBe(201);
    expect(answer.data.stats).toEqual({ additions: 1, deletions: 0, total: 1 });
  });
});

describe('unknown parameters', () => {
  it('are ignored as the service ignores them, and named in the request log', async () => {
    const plain = await py('GET', `${WEB}/pipelines`, { params: { status: 'failed' } });
    const misspelt = await py('GET', `${WEB}/pipelines`, {
      params: { status: 'failed', stauts: 'running', order: 'x' },
    });
    expect(misspelt.status).toBe(200);
    expect(misspelt.data).toEqual(plain.data);
    expect(misspelt.unknownParams?.sort()).toEqual(['order', 'stauts']);
  });

  it('nested unknown keys too (assets[links][0][bogus]), in JSON and in a form', async () => {
    const json = {
      tag_name: 'v1.2.0-py',
      ref: 'main',
      description: 'Lenient',
      assets: { links: [{ name: 'Docs', url: 'https://example.com/docs', bogus: 1 }], extra: true },
    };
    const answer = await py('POST', `${WEB}/releases`, { json });
    expect(answer.status).toBe(201);
    expect(answer.data.assets.links).toEqual([
      expect.objectContaining({ name: 'Docs', url: 'https://example.com/docs' }),
    ]);
    expect(answer.unknownParams?.sort()).toEqual(['assets[extra]', 'assets[links][0][bogus]']);
    // tag_name repeats the path's value: not unknown. An unknown hash is named once, by its own name.
    const form = await py('PUT', `${WEB}/releases/v1.2.0-py`, {
      data: { name: 'Renamed', 'colour[shade]': 'red', tag_name: 'v1.2.0-py' },
    });
    expect(form).toMatchObject({ status: 200, data: { name: 'Renamed' }, unknownParams: ['colour'] });
  });

  it('are refused by name with strictParams', async () => {
    expect((await py('GET', `${WEB}/pipelines`, { params: { stauts: 'running' } }, strict)).data).toEqual({
      error: 'stauts is not a known parameter',
    });
    expect(strictLog).toContain(`GET /api/v4${WEB}/pipelines 400 (unknown parameters: stauts)`);
    expect((await py('GET', `${WEB}/pipelines/1`, { params: { page: '2' } }, strict)).data).toEqual({
      error: 'page is not a known parameter',
    });
    const json = { tag_name: 'v9', description: 'x', assets: { links: [{ name: 'n', url: 'u', bogus: 1 }] } };
    expect((await py('POST', `${WEB}/releases`, { json }, strict)).data).toEqual({
      error: 'assets[links][0][bogus] is not a known parameter',
    });
  });
});

describe('the contract harness', () => {
  // A test-only operation whose author misspelt the service's `visibility`: the sandbox answers 200 (as the
  // service would, ignoring it), so only the harness's check of the request log can catch it.
  const op = (key: string) =>
    defineOperation({
      name: 'list_projects_probe',
      chat: 'projects probe',
      area: 'projects',
      title: 'Probe',
      description: 'Test-only.',
      route: 'GET /projects',
      input: z.object({ [key]: z.string().optional() }),
      effect: 'read',
    });

  it('fails a call whose operation sends a parameter the service does not know', async () => {
    await expect(suite.call(op('visibilty'), { visibilty: 'public' })).rejects.toThrow(
      /parameters the service does not know/,
    );
    expect(suite.requests().at(-1)).toMatchObject({ status: 200, unknownParams: ['visibilty'] });
  });

  it('passes the same operation spelt right', async () => {
    const result = await suite.call(op('visibility'), { visibility: 'public' });
    expect((result.data as Array<{ visibility: string }>).every((p) => p.visibility === 'public')).toBe(true);
  });

  it('checks every request it is given', () => {
    const ok = { method: 'GET', path: '/projects', status: 200, unknownParams: [] };
    expect(() => expectNoUnknownParams('probe', [ok, ok])).not.toThrow();
    expect(() => expectNoUnknownParams('probe', [ok, { ...ok, unknownParams: ['assets[links][0][bogus]'] }])).toThrow(
      /probe.*bogus/s,
    );
  });
});
