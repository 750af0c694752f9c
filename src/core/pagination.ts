export interface PageRequest {
  page: number;
  pageSize: number;
}

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
}

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** Highest page number a list answers (contract §2); past it is 400, never an offset PostgreSQL chokes on. */
export const MAX_PAGE = 1_000_000;

/** Clamped to whole numbers in range, whatever the caller passed (the DTO refuses those with 400). */
export function pageRequest(page?: number, pageSize?: number): PageRequest {
  return {
    page: clamp(page, 1, MAX_PAGE, 1),
    pageSize: clamp(pageSize, 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  };
}

function clamp(n: number | undefined, min: number, max: number, fallback: number): number {
  if (n === undefined || !Number.isFinite(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

export function offsetOf(req: PageRequest): number {
  return (req.page - 1) * req.pageSize;
}

/** The wire shape of a list: `{<plural>: [...], page, page_size, total}`. */
export function pageBody<T>(plural: string, page: Page<T>): Record<string, unknown> {
  return { [plural]: page.items, page: page.page, page_size: page.pageSize, total: page.total };
}

/** One page of a list already held whole (a short one: a user's workspaces, a workspace's members). */
export function pageOf<T>(all: readonly T[], req: PageRequest): Page<T> {
  const from = offsetOf(req);
  return { items: all.slice(from, from + req.pageSize), page: req.page, pageSize: req.pageSize, total: all.length };
}
