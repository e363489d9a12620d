import { ChevronLeft, ChevronRight } from "lucide-preact";
import type { Listing } from "./listing.js";

/** The page sizes to choose from; the list shows page controls once there are more files than the first. */
export const PAGE_SIZES = [25, 50, 100] as const;

/** Previous, next, where you are, and how many a page. */
export function Pages(props: { listing: Listing; pages: number }) {
  const { listing, pages } = props;
  return (
    <nav aria-label="Pages" class="pages">
      <button
        type="button"
        class="small"
        disabled={listing.page.value <= 1}
        onClick={() => {
          listing.page.value--;
          listing.reload();
        }}
      >
        <ChevronLeft />
        Previous<span class="visually-hidden"> page</span>
      </button>
      <span class="page-number">
        Page {listing.page.value} of {pages}
      </span>
      <button
        type="button"
        class="small"
        disabled={listing.page.value >= pages}
        onClick={() => {
          listing.page.value++;
          listing.reload();
        }}
      >
        Next<span class="visually-hidden"> page</span>
        <ChevronRight />
      </button>
      <label>
        Per page
        <select
          value={String(listing.perPage.value)}
          onChange={(event) => {
            listing.perPage.value = Number(event.currentTarget.value);
            listing.page.value = 1;
            listing.reload();
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}
