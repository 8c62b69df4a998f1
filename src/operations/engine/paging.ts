// The call that reads on from exactly where a shown part of a list ends: shared by tool results and chat replies.

/** The call that reads on from a position, as page and per_page values. */
export interface NextCall {
  page: number;
  per_page: number;
}

/**
 * page/per_page that start exactly after the first `offset` results of the list: per_page must divide the
 * offset, so the largest divisor not above `limit` (the page size that fits) is taken.
 */
export function callFrom(offset: number, limit: number): NextCall {
  let perPage = Math.max(1, Math.min(limit, offset));
  while (offset % perPage !== 0) perPage -= 1;
  return { page: offset / perPage + 1, per_page: perPage };
}
