import { type Page, pageLinks } from "@cellar/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { callerOf } from "../http/request-context.js";

const RELATIONS = ["first", "prev", "next", "last"] as const;

/**
 * The RFC 8288 `Link` header of a page of a listing, or undefined when the listing is
 * empty. Each link is `listingUrl` with `page` and the served `per_page` set, keeping
 * whatever else it carries (`trashed=true`, `q`, `sort`).
 */
export function paginationLinkHeader(
  listingUrl: URL,
  page: Pick<Page<unknown>, "page" | "perPage" | "totalPages">,
): string | undefined {
  const links = pageLinks(page);
  const parts: string[] = [];
  for (const relation of RELATIONS) {
    const target = links[relation];
    if (target === undefined) continue;
    const url = new URL(listingUrl);
    url.searchParams.set("page", String(target));
    url.searchParams.set("per_page", String(page.perPage));
    parts.push(`<${url.href}>; rel="${relation}"`);
  }
  return parts.length === 0 ? undefined : parts.join(", ");
}

/**
 * Sets the headers of one page of a listing: the totals (`X-Total-Count`, `X-Total-Pages`),
 * the page served (`X-Page`, `X-Per-Page`) and, unless the listing is empty, `Link`.
 */
export function setPageHeaders(
  reply: FastifyReply,
  page: Pick<Page<unknown>, "page" | "perPage" | "total" | "totalPages">,
  listingUrl: URL,
): void {
  reply.headers({
    "x-total-count": String(page.total),
    "x-total-pages": String(page.totalPages),
    "x-page": String(page.page),
    "x-per-page": String(page.perPage),
  });
  const link = paginationLinkHeader(listingUrl, page);
  if (link !== undefined) reply.header("link", link);
}

/** `page` and `per_page` of a listing's query (digits, checked by its schema), as core takes them. */
export function pageRequestOf(query: { readonly page?: string; readonly per_page?: string }): {
  page?: number;
  perPage?: number;
} {
  return {
    ...(query.page === undefined ? {} : { page: Number(query.page) }),
    ...(query.per_page === undefined ? {} : { perPage: Number(query.per_page) }),
  };
}

/**
 * Answers one page of a list kept under a file (`/files/:id/<list>`: its versions, activity,
 * comments): the caller's page from core, its headers, its items as JSON.
 */
export async function answerFileListPage<Item>(
  request: FastifyRequest<{ Params: { id: string }; Querystring: { page?: string; per_page?: string } }>,
  reply: FastifyReply,
  where: { readonly publicBase: string; readonly prefix: string; readonly list: string },
  list: (query: { callerId: string; fileId: string; page?: number; perPage?: number }) => Promise<Page<Item>>,
  toJson: (item: Item) => unknown,
): Promise<unknown[]> {
  const listing = await list({
    callerId: callerOf(request).userId,
    fileId: request.params.id,
    ...pageRequestOf(request.query),
  });
  const url = `${where.publicBase}${where.prefix}/files/${encodeURIComponent(request.params.id)}/${where.list}`;
  setPageHeaders(reply, listing, new URL(url));
  return listing.items.map(toJson);
}
