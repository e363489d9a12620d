import { CellarApiError, type CellarClient, createCellarClient } from "@cellar/client";
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

/** Set when the server refused this session (signed out from another device, or expired), for the sign-in page to say so. */
export const sessionEnded = signal(false);

/**
 * Forgets the session when `error` is the server refusing it (401): the app shows the
 * sign-in page, saying why. True when it was; false for any other error, to be said as usual.
 */
export function endIfRefused(error: unknown): boolean {
  if (!(error instanceof CellarApiError && error.status === 401) || token.value === null) return false;
  signedOut.value = false;
  sessionEnded.value = true;
  keepToken(null);
  return true;
}
