// Pagination: reading the X-* and Link headers, and following offset or keyset pages up to a bound.
import type { ApiRequest, ApiTransport, PageInfo, Pagination } from './types.js';

/** What one response's headers say about its page; every field is undefined when the header is absent or empty. */
interface PageHeaders {
  page?: number;
  per_page?: number;
  next_page?: number;
  prev_page?: number;
  total?: number;
  total_pages?: number;
  /** Link rel="next". */
  next_url?: string;
}

export function readPageInfo(headers: Record<string, string>): PageHeaders {
  return {
    page: headerNumber(headers['x-page']),
    per_page: headerNumber(headers['x-per-page']),
    next_page: headerNumber(headers['x-next-page']),
    prev_page: headerNumber(headers['x-prev-page']),
    total: headerNumber(headers['x-total']),
    total_pages: headerNumber(headers['x-total-pages']),
    next_url: parseLinkHeader(headers.link ?? '').next,
  };
}

function headerNumber(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text && /^\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * The URLs of a Link header by relation ('<a>; rel="next", <b>; rel="prev last"'). The first link of a
 * relation wins; parameters other than rel are ignored.
 */
export function parseLinkHeader(value: string): Record<string, string> {
  const links: Record<string, string> = {};
  // Each link is '<url>' followed by its parameters, up to the next '<'.
  for (const [, url, params] of value.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i.exec(params);
    for (const name of (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/)) {
      if (name && !(name in links)) links[name] = url.trim();
    }
  }
  return links;
}

interface FetchPagesOptions {
  mode: Pagination;
  /** Follow next pages; otherwise read one page. */
  all: boolean;
  /** Stop after this many items (the result is trimmed to exactly this many and has_more is true). */
  maxItems: number;
}

interface FetchedPages {
  items: unknown[];
  status: number;
  page: PageInfo;
}

/** Where the page after this one is, or undefined when this was the last. */
type NextPage = { page: number } | { url: string };

/**
 * Reads one page, or with `all` follows next pages until the list ends or maxItems is reached. Offset mode
 * follows X-Next-Page (Link rel="next" when that header is absent); keyset mode follows Link rel="next".
 * A server that names a page already read ends the walk: it would otherwise never end.
 */
export async function fetchPages(
  client: ApiTransport,
  req: ApiRequest,
  options: FetchPagesOptions,
): Promise<FetchedPages> {
  if (!Number.isInteger(options.maxItems) || options.maxItems < 1) {
    throw new Error(`maxItems must be a positive integer, got ${options.maxItems}`);
  }
  const items: unknown[] = [];
  const seen = new Set<string>();
  let current: ApiRequest = { ...req, responseType: 'json' };
  let first: PageHeaders | undefined;
  for (let pagesFetched = 1; ; pagesFetched++) {
    const response = await client.request(current);
    if (!Array.isArray(response.data)) {
      throw new Error(`${req.method} ${req.path} did not return a list (got ${describe(response.data)})`);
    }
    const info = readPageInfo(response.headers);
    first ??= info;
    seen.add(pageKey(current, info));
    const announced = nextPage(options.mode, response.headers, info);
    // A next page already read means the server loops: treat it as the end.
    const next = announced && !seen.has(nextKey(announced)) ? announced : undefined;
    const room = options.maxItems - items.length;
    items.push(...response.data.slice(0, room));
    req.onProgress?.({ kind: 'page', pages: pagesFetched, items: items.length });
    const trimmed = response.data.length > room;
    if (next && options.all && response.data.length > 0 && items.length < options.maxItems) {
      current =
        'page' in next
          ? { ...current, query: { ...current.query, page: next.page } }
          : { ...current, url: next.url, query: undefined };
      continue;
    }
    // Trimmed inside this page: point back at this page, so the caller re-reads rather than skips items.
    const resume = trimmed ? pageOf(options.mode, current, info) : next;
    return {
      items,
      status: response.status,
      page: {
        page: first.page,
        per_page: first.per_page ?? info.per_page,
        next_page: resume && 'page' in resume ? resume.page : undefined,
        total: info.total,
        total_pages: info.total_pages,
        has_more: trimmed || next !== undefined,
        next_url: resume && 'url' in resume ? resume.url : undefined,
        pages_fetched: pagesFetched,
      },
    };
  }
}

function nextPage(mode: Pagination, headers: Record<string, string>, info: PageHeaders): NextPage | undefined {
  if (mode === 'offset') {
    if (info.next_page !== undefined) return { page: info.next_page };
    // Present but empty: this is the last page, whatever a Link header says.
    if ('x-next-page' in headers) return undefined;
  }
  return info.next_url ? { url: info.next_url } : undefined;
}

/** How to read the page this request read again; undefined for a first keyset page (it has no cursor). */
function pageOf(mode: Pagination, req: ApiRequest, info: PageHeaders): NextPage | undefined {
  if (req.url) return { url: req.url };
  if (mode === 'keyset') return undefined;
  const asked = Number(req.query?.page);
  return { page: info.page ?? (Number.isInteger(asked) && asked > 0 ? asked : 1) };
}

function pageKey(req: ApiRequest, info: PageHeaders): string {
  const page = pageOf('offset', req, info);
  return page ? nextKey(page) : '';
}

function nextKey(next: NextPage): string {
  return 'page' in next ? `page:${next.page}` : `url:${next.url}`;
}

function describe(data: unknown): string {
  if (data === null) return 'null';
  if (typeof data === 'object') return 'an object';
  return `a ${typeof data}`;
}
