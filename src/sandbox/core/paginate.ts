// Offset and keyset pagination: slices a list and sets the service's X-* and Link headers.
import { messageError } from './errors.js';
import type { Reply, SandboxRequest } from './router.js';

/** Above this many records the service stops counting: no X-Total, X-Total-Pages or rel="last". */
export const COUNT_LIMIT = 10_000;

function pageUrl(req: SandboxRequest<unknown>, changes: Record<string, string | null>): string {
  const url = new URL(req.url);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) url.searchParams.delete(key);
    else url.searchParams.set(key, value);
  }
  return url.toString();
}

interface OffsetOptions {
  /**
   * Refuse pages that reach beyond this many records (the project list's offset cap), with a 405. As on the
   * service, page × per_page is checked: page 100 of 100 is the last one allowed for a cap of 10,000.
   */
  maxOffset?: number;
  /**
   * Count nothing, as the service pages some large lists (a project's jobs): no X-Total, X-Total-Pages or
   * rel="last", whatever the number of records.
   */
  withoutCount?: boolean;
}

/**
 * Returns the requested page of `items` and sets X-Page, X-Per-Page, X-Next-Page, X-Prev-Page, X-Total,
 * X-Total-Pages and Link (prev, next, first, last; other query parameters kept).
 */
export function paginate<T>(
  req: SandboxRequest<unknown>,
  reply: Reply,
  items: readonly T[],
  options: OffsetOptions = {},
): T[] {
  const { page } = req.pagination;
  const perPage = Math.min(req.pagination.per_page, 100);
  const offset = (page - 1) * perPage;
  if (options.maxOffset !== undefined && offset + perPage > options.maxOffset) {
    throw messageError(
      405,
      `Offset pagination has a maximum allowed offset of ${options.maxOffset} for requests that return objects of this type. Remaining records can be retrieved using keyset pagination.`,
    );
  }
  const counted = options.withoutCount !== true && items.length <= COUNT_LIMIT;
  const totalPages = Math.max(1, Math.ceil(items.length / perPage));
  const hasNext = offset + perPage < items.length;
  const hasPrev = page > 1;
  const link = (p: number) => pageUrl(req, { page: String(p), per_page: String(perPage) });
  const links: string[] = [];
  if (hasPrev) links.push(`<${link(page - 1)}>; rel="prev"`);
  if (hasNext) links.push(`<${link(page + 1)}>; rel="next"`);
  links.push(`<${link(1)}>; rel="first"`);
  if (counted) links.push(`<${link(totalPages)}>; rel="last"`);

  reply.header('x-page', String(page));
  reply.header('x-per-page', String(perPage));
  reply.header('x-next-page', hasNext ? String(page + 1) : '');
  reply.header('x-prev-page', hasPrev ? String(page - 1) : '');
  if (counted) {
    reply.header('x-total', String(items.length));
    reply.header('x-total-pages', String(totalPages));
  }
  reply.header('link', links.join(', '));
  return items.slice(offset, offset + perPage);
}

/**
 * Keyset pagination by id: `items` must already be ordered and filtered by the cursor (id_after / id_before).
 * Sends only Link rel="next" whose cursor is the last id of this page; the last page has no Link.
 */
export function paginateKeyset<T extends { id: number }>(
  req: SandboxRequest<unknown>,
  reply: Reply,
  items: readonly T[],
  sort: 'asc' | 'desc',
): T[] {
  const perPage = Math.min(req.pagination.per_page, 100);
  const pageItems = items.slice(0, perPage);
  if (items.length > perPage) {
    const lastId = String(pageItems[pageItems.length - 1].id);
    const next = pageUrl(req, {
      page: null,
      id_after: sort === 'asc' ? lastId : null,
      id_before: sort === 'desc' ? lastId : null,
    });
    reply.header('link', `<${next}>; rel="next"`);
  }
  return pageItems;
}
