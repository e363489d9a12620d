import { signal } from "@preact/signals";

/** The address the app shows: its path and query, kept in step with the browser's history. */
export const route = signal(new URL(location.href));

addEventListener("popstate", () => {
  route.value = new URL(location.href);
});

/** Goes to another of the app's addresses; `replace` for one the Back button should skip. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  route.value = new URL(location.href);
}
