import { type CellarClient, createCellarClient } from "@cellar/client";
import { computed, signal } from "@preact/signals";

/**
 * Where the session token lives: localStorage, for this origin's scripts only.
 *
 * The page's Content-Security-Policy (`script-src 'self'`, no inline script, no other
 * origin) lets no third-party or injected script run, so none can read it; and no cookie
 * carries it, so a request from another site cannot act with it (there is nothing for a
 * cross-site request to ride on). It is sent as a bearer token, as every other client does.
 */
const STORAGE_KEY = "cellar.session";

export const token = signal<string | null>(localStorage.getItem(STORAGE_KEY));

export const client = computed<CellarClient>(() =>
  createCellarClient({ baseUrl: location.origin, ...(token.value === null ? {} : { token: token.value }) }),
);

export function keepToken(value: string | null): void {
  if (value === null) localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, value);
  token.value = value;
}

/** Set on signing out, for the sign-in page to say so: a page that simply reappeared could mean anything. */
export const signedOut = signal(false);
