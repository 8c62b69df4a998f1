// Tests of pagination (src/http/pages.ts): page headers, Link parsing, and walking offset and keyset pages against a scripted server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../src/http/client.js';
import { fetchPages, parseLinkHeader, readPageInfo } from '../../../src/http/pages.js';
import type { ApiRequest } from '../../../src/http/types.js';
import { startScriptedServer, type ScriptedServer } from './scripted-server.js';

describe('readPageInfo', () => {
  it('reads a middle page', () => {
    expect(
      readPageInfo({
        'x-page': '2',
        'x-per-page': '20',
        'x-next-page': '3',
        'x-prev-page': '1',
        'x-total': '95',
        'x-total-pages': '5',
        link: '<https://h/api/v4/p?page=3>; rel="next", <https://h/api/v4/p?page=1>; rel="prev"',
      }),
    ).toEqual({
      page: 2,
      per_page: 20,
      next_page: 3,
      prev_page: 1,
      total: 95,
      total_pages: 5,
      next_url: 'https://h/api/v4/p?page=3',
    });
  });

  it('reads the last page, whose X-Next-Page is empty', () => {
    const info = readPageInfo({
      'x-page': '5',
      'x-per-page': '20',
      'x-next-page': '',
      'x-prev-page': '4',
      'x-total': '95',
      'x-total-pages': '5',
    });
    expect(info.next_page).toBeUndefined();
    expect(info.prev_page).toBe(4);
    expect(info.next_url).toBeUndefined();
  });

  it('tolerates missing totals (above 10,000 records) and junk values', () => {
    const info = readPageInfo({ 'x-page': '1', 'x-per-page': '100', 'x-next-page': '2', 'x-total': 'many' });
    expect(info).toMatchObject({ page: 1, per_page: 100, next_page: 2 });
    expect(info.total).toBeUndefined();
    expect(info.total_pages).toBeUndefined();
  });
});

describe('parseLinkHeader', () => {
  it('reads several links, with or without quotes and spaces, and several relations per link', () => {
    const links = parseLinkHeader(
      '<https://h/a?page=1&x=a,b>;rel=first ,  < https://h/a?page=9 > ; title="x; y" ; REL = "last next",<https://h/a?page=2>; rel="next"',
    );
    expect(links).toEqual({
      first: 'https://h/a?page=1&x=a,b',
      last: 'https://h/a?page=9',
      next: 'https://h/a?page=9',
    });
  });

  it('is empty for no or malformed headers', () => {
    expect(parseLinkHeader('')).toEqual({});
    expect(parseLinkHeader('garbage; rel="next"')).toEqual({});
  });
});

describe('fetchPages', () => {
  let server: ScriptedServer;
  let client: HttpClient;
  const list: ApiRequest = { method: 'GET', path: '/projects/1/pipelines', idempotent: true, query: { per_page: 2 } };

  /** An offset page as the service sends it. */
  const offsetPage = (page: number, totalPages: number | undefined, items: unknown[]) => ({
    headers: {
      'x-page': String(page),
      'x-per-page': '2',
      'x-next-page': totalPages === undefined || page < totalPages ? String(page + 1) : '',
      ...(totalPages === undefined ? {} : { 'x-total-pages': String(totalPages), 'x-total': String(totalPages * 2) }),
    },
    body: items,
  });

  beforeEach(async () => {
    server = await startScriptedServer();
    client = new HttpClient({ baseUrl: server.url, token: 'page-token', retry: { maxRetries: 0 } });
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it('reads one page unless asked for all', async () => {
    server.reply(offsetPage(1, 3, [{ id: 1 }, { id: 2 }]));
    const result = await fetchPages(client, list, { mode: 'offset', all: false, maxItems: 500 });
    expect(result.items).toEqual([{ id: 1 }, { id: 2 }]);
    expect(result.page).toEqual({
      page: 1,
      per_page: 2,
      next_page: 2,
      total: 6,
      total_pages: 3,
      has_more: true,
      next_url: undefined,
      pages_fetched: 1,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('follows X-Next-Page to the last page, keeping the query', async () => {
    server.reply(offsetPage(1, 3, [1, 2]), offsetPage(2, 3, [3, 4]), offsetPage(3, 3, [5]));
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 });
    expect(result.items).toEqual([1, 2, 3, 4, 5]);
    expect(result.page).toMatchObject({ has_more: false, pages_fetched: 3, next_page: undefined, total_pages: 3 });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v4/projects/1/pipelines?per_page=2',
      '/api/v4/projects/1/pipelines?per_page=2&page=2',
      '/api/v4/projects/1/pipelines?per_page=2&page=3',
    ]);
  });

  it('walks pages without X-Total until X-Next-Page is empty', async () => {
    server.reply(offsetPage(1, undefined, [1, 2]), { headers: { 'x-page': '2', 'x-next-page': '' }, body: [3] });
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 });
    expect(result.items).toEqual([1, 2, 3]);
    expect(result.page.total).toBeUndefined();
    expect(result.page.has_more).toBe(false);
  });

  it('falls back to Link rel="next" when X-Next-Page is absent', async () => {
    server.reply(
      { headers: { link: `<${server.url}/api/v4/projects/1/pipelines?page=2&per_page=2>; rel="next"` }, body: [1, 2] },
      { headers: { link: `<${server.url}/api/v4/projects/1/pipelines?page=1&per_page=2>; rel="first"` }, body: [3] },
    );
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 });
    expect(result.items).toEqual([1, 2, 3]);
    expect(server.requests[1].url).toBe('/api/v4/projects/1/pipelines?page=2&per_page=2');
  });

  it('stops on an empty page', async () => {
    server.reply(offsetPage(1, undefined, [1, 2]), offsetPage(2, undefined, []));
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 });
    expect(result.items).toEqual([1, 2]);
    expect(server.requests).toHaveLength(2);
  });

  it('follows a keyset Link chain until no next link comes', async () => {
    const next = (after: number) => ({
      link: `<${server.url}/api/v4/projects?id_after=${after}&order_by=id&pagination=keyset&per_page=2>; rel="next"`,
    });
    server.reply(
      { headers: next(2), body: [{ id: 1 }, { id: 2 }] },
      { headers: next(4), body: [{ id: 3 }, { id: 4 }] },
      { body: [{ id: 5 }] },
    );
    const req: ApiRequest = {
      method: 'GET',
      path: '/projects',
      idempotent: true,
      query: { pagination: 'keyset', order_by: 'id', per_page: 2 },
    };
    const result = await fetchPages(client, req, { mode: 'keyset', all: true, maxItems: 500 });
    expect(result.items.map((p) => (p as { id: number }).id)).toEqual([1, 2, 3, 4, 5]);
    expect(result.page).toMatchObject({ has_more: false, pages_fetched: 3, next_url: undefined });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/api/v4/projects?pagination=keyset&order_by=id&per_page=2',
      '/api/v4/projects?id_after=2&order_by=id&pagination=keyset&per_page=2',
      '/api/v4/projects?id_after=4&order_by=id&pagination=keyset&per_page=2',
    ]);
    expect(server.requests.every((r) => r.headers['private-token'] === 'page-token')).toBe(true);
  });

  it('reports the keyset next link of a single page', async () => {
    const link = `${server.url}/api/v4/projects?id_after=2&pagination=keyset`;
    server.reply({ headers: { link: `<${link}>; rel="next"` }, body: [{ id: 1 }, { id: 2 }] });
    const result = await fetchPages(
      client,
      { method: 'GET', path: '/projects', idempotent: true },
      { mode: 'keyset', all: false, maxItems: 500 },
    );
    expect(result.page).toMatchObject({ has_more: true, next_url: link, pages_fetched: 1 });
  });

  it('stops at maxItems, trimming to exactly that many and pointing back at the trimmed page', async () => {
    server.reply(offsetPage(1, 10, [1, 2]), offsetPage(2, 10, [3, 4]), offsetPage(3, 10, [5, 6]));
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 5 });
    expect(result.items).toEqual([1, 2, 3, 4, 5]);
    expect(result.page).toMatchObject({ has_more: true, pages_fetched: 3, next_page: 3 });
    expect(server.requests).toHaveLength(3);
  });

  it('stops exactly at a page boundary with has_more from the next page', async () => {
    server.reply(offsetPage(1, 10, [1, 2]), offsetPage(2, 10, [3, 4]));
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 4 });
    expect(result.items).toEqual([1, 2, 3, 4]);
    expect(result.page).toMatchObject({ has_more: true, next_page: 3, pages_fetched: 2 });
  });

  it('stops when the server names a page it already sent', async () => {
    // Only one answer is scripted: a second request would get a 500 and fail the walk.
    server.reply({ headers: { 'x-page': '1', 'x-next-page': '1' }, body: [1] });
    const result = await fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 });
    expect(result.items).toEqual([1]);
    expect(result.page.has_more).toBe(false);
    expect(server.requests).toHaveLength(1);

    const url = `${server.url}/api/v4/projects?id_after=1`;
    const keysetLoop = { headers: { link: `<${url}>; rel="next"` }, body: [1] };
    server.reply(keysetLoop, keysetLoop);
    const keyset = await fetchPages(client, list, { mode: 'keyset', all: true, maxItems: 500 });
    expect(keyset.items).toEqual([1, 1]);
    expect(keyset.page.has_more).toBe(false);
    expect(server.requests).toHaveLength(3);
  });

  it('refuses a next link to another host without sending it', async () => {
    server.reply({ headers: { link: '<http://evil.example/api/v4/projects?id_after=2>; rel="next"' }, body: [1] });
    await expect(fetchPages(client, list, { mode: 'keyset', all: true, maxItems: 500 })).rejects.toMatchObject({
      kind: 'refused',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('says so when the endpoint does not return a list', async () => {
    server.reply({ body: { message: 'not a list' } });
    await expect(fetchPages(client, list, { mode: 'offset', all: true, maxItems: 500 })).rejects.toThrow(
      'GET /projects/1/pipelines did not return a list (got an object)',
    );
  });

  it('names a bad maxItems', async () => {
    await expect(fetchPages(client, list, { mode: 'offset', all: true, maxItems: 0 })).rejects.toThrow(
      'maxItems must be a positive integer',
    );
    expect(server.requests).toHaveLength(0);
  });
});
