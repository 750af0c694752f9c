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

export function pageRequest(page?: number, pageSize?: number): PageRequest {
  return {
    page: Math.max(1, page ?? 1),
    pageSize: Math.min(MAX_PAGE_SIZE, Math.max(1, pageSize ?? DEFAULT_PAGE_SIZE)),
  };
}

export function offsetOf(req: PageRequest): number {
  return (req.page - 1) * req.pageSize;
}

/** The wire shape of a list: `{<plural>: [...], page, page_size, total}`. */
export function pageBody<T>(plural: string, page: Page<T>): Record<string, unknown> {
  return { [plural]: page.items, page: page.page, page_size: page.pageSize, total: page.total };
}
