// Offset pagination headers exactly as the service sends them, including the uncounted form above 10,000 records.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox, type Sandbox } from '../../../src/sandbox/server.js';
import { api, parseLink } from './sandbox-client.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const headersOf = (headers: Headers) =>
  Object.fromEntries(
    ['x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'x-total', 'x-total-pages'].map((h) => [h, headers.get(h)]),
  );

describe('offset pagination', () => {
  const path = '/projects/acme%2Fweb/pipelines';

  test('a middle page', async () => {
    const answer = await api(sandbox, 'GET', `${path}?sort=asc&per_page=3&page=2`);
    expect(answer.data.map((p: { id: number }) => p.id)).toEqual([4, 5, 6]);
    expect(headersOf(answer.headers)).toEqual({
      'x-page': '2',
      'x-per-page': '3',
      'x-next-page': '3',
      'x-prev-page': '1',
      'x-total': '11',
      'x-total-pages': '4',
    });
    const base = `${sandbox.url}/api/v4${path}?sort=asc&per_page=3`;
    expect(answer.headers.get('link')).toBe(
      `<${base}&page=1>; rel="prev", <${base}&page=3>; rel="next", <${base}&page=1>; rel="first", <${base}&page=4>; rel="last"`,
    );
  });

  test('the last page has an empty X-Next-Page and no rel="next"', async () => {
    const answer = await api(sandbox, 'GET', `${path}?sort=asc&per_page=3&page=4`);
    expect(answer.data.map((p: { id: number }) => p.id)).toEqual([10, 11]);
    expect(headersOf(answer.headers)).toMatchObject({
      'x-page': '4',
      'x-next-page': '',
      'x-prev-page': '3',
      'x-total': '11',
    });
    expect(Object.keys(parseLink(answer.headers.get('link')))).toEqual(['prev', 'first', 'last']);
  });

  test('the first page by default: 20 per page, empty X-Prev-Page', async () => {
    const answer = await api(sandbox, 'GET', path);
    expect(answer.data).toHaveLength(11);
    expect(headersOf(answer.headers)).toEqual({
      'x-page': '1',
      'x-per-page': '20',
      'x-next-page': '',
      'x-prev-page': '',
      'x-total': '11',
      'x-total-pages': '1',
    });
  });

  test('per_page above 100 is capped at 100; a page past the end is empty', async () => {
    const capped = await api(sandbox, 'GET', `${path}?per_page=500`);
    expect(capped.headers.get('x-per-page')).toBe('100');
    const beyond = await api(sandbox, 'GET', `${path}?page=9`);
    expect(beyond.data).toEqual([]);
    expect(beyond.headers.get('x-next-page')).toBe('');
  });

  test('above 10,000 records there is no X-Total, X-Total-Pages or rel="last"', async () => {
    const project = sandbox.store.projects.find((p) => p.full_path === 'acme/handbook')!;
    const template = sandbox.store.projects[0].pipelines[0];
    for (let i = 0; i < 10_001; i++) {
      project.pipelines.push({
        ...template,
        id: sandbox.store.nextId('pipeline'),
        project_id: project.id,
        variables: [],
      });
    }
    const answer = await api(sandbox, 'GET', '/projects/acme%2Fhandbook/pipelines?per_page=100&page=2');
    expect(answer.data).toHaveLength(100);
    expect(answer.headers.get('x-total')).toBeNull();
    expect(answer.headers.get('x-total-pages')).toBeNull();
    expect(answer.headers.get('x-next-page')).toBe('3');
    expect(Object.keys(parseLink(answer.headers.get('link')))).toEqual(['prev', 'next', 'first']);
  });
});
