import { type FieldProblem, invalidFields } from "./errors.js";

export const DEFAULT_PAGE = 1;
export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** A page request after validation: `perPage` is already clamped to the maximum. */
export interface PageRequest {
  readonly page: number;
  readonly perPage: number;
  /** Rows to skip: `(page - 1) * perPage`. */
  readonly offset: number;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly page: number;
  readonly perPage: number;
  readonly total: number;
  /** `ceil(total / perPage)`; 0 when there is nothing. */
  readonly totalPages: number;
}

/** Page numbers worth linking to from a page; a relation is absent when it has no page. */
export interface PageLinks {
  readonly first?: number;
  readonly prev?: number;
  readonly next?: number;
  readonly last?: number;
}

function checkWhole(value: unknown, field: string, problems: FieldProblem[]): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 1)) {
    problems.push({ field, message: "must be a whole number of at least 1" });
  }
}

/**
 * Validates `page` and `per_page` (whole numbers ≥ 1, when given) and applies the
 * defaults; a `per_page` over the maximum is served as the maximum rather than refused,
 * so a client asking for "everything" still gets a useful answer.
 */
export function toPageRequest(input: { page?: unknown; perPage?: unknown }): PageRequest {
  const problems: FieldProblem[] = [];
  const request = readPageRequest(input, problems);
  if (problems.length > 0) throw invalidFields(problems);
  return request;
}

/**
 * `toPageRequest` for a request with more fields to check: what is wrong with `page` and
 * `per_page` is added to `problems` instead of thrown, and the defaults stand in for it.
 */
export function readPageRequest(input: { page?: unknown; perPage?: unknown }, problems: FieldProblem[]): PageRequest {
  const before = problems.length;
  checkWhole(input.page, "page", problems);
  checkWhole(input.perPage, "per_page", problems);
  if (problems.length > before) return { page: DEFAULT_PAGE, perPage: DEFAULT_PER_PAGE, offset: 0 };
  const page = (input.page as number | undefined) ?? DEFAULT_PAGE;
  const perPage = Math.min((input.perPage as number | undefined) ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage, offset: (page - 1) * perPage };
}

export function toPage<T>(request: PageRequest, items: readonly T[], total: number): Page<T> {
  return {
    items,
    page: request.page,
    perPage: request.perPage,
    total,
    totalPages: Math.ceil(total / request.perPage),
  };
}

/**
 * `first` and `last` whenever there is a page at all, `prev` and `next` where they
 * exist. A page past the end links back to the last page as its `prev`.
 */
export function pageLinks(page: Pick<Page<unknown>, "page" | "totalPages">): PageLinks {
  if (page.totalPages === 0) return {};
  const links: { first: number; last: number; prev?: number; next?: number } = {
    first: 1,
    last: page.totalPages,
  };
  if (page.page > 1) links.prev = Math.min(page.page - 1, page.totalPages);
  if (page.page < page.totalPages) links.next = page.page + 1;
  return links;
}
