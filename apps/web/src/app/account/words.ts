/** A moment as the account page shows it ("28 Nov 2026, 20:05"), or `none` for a moment that has not come. */
export function whenText(iso: string | null, none: string, locales?: Intl.LocalesArgument): string {
  if (iso === null) return none;
  return new Date(iso).toLocaleString(locales, { dateStyle: "medium", timeStyle: "short" });
}

/** The limits `POST /tokens` holds a new token to (decisions §10). */
export const TOKEN_NAME_MAX = 100;
export const TOKEN_DAYS_MAX = 365;

export type Scope = "read" | "write";

/** Each scope's name, and what it lets a token do, as the form says it under its choice. */
export const SCOPES: Readonly<Record<Scope, { label: string; hint: string }>> = {
  read: { label: "Read", hint: "Looks at files, downloads them and follows their events." },
  write: { label: "Write", hint: "Also uploads, edits, shares and deletes files." },
};

/** A new token's request from the form's fields, or what is wrong with them, in the API's terms. */
export function tokenRequest(
  name: string,
  scope: Scope,
  days: string,
): { name: string; scope: Scope; expires_in_days?: number } | { problem: string } {
  const trimmed = name.trim();
  if (trimmed === "") return { problem: "Give the token a name, to know it by later." };
  if (trimmed.length > TOKEN_NAME_MAX) return { problem: `A token's name is at most ${TOKEN_NAME_MAX} characters.` };
  if (days.trim() === "") return { name: trimmed, scope };
  const count = Number(days);
  if (!Number.isInteger(count) || count < 1 || count > TOKEN_DAYS_MAX) {
    return {
      problem: `A token works for 1 to ${TOKEN_DAYS_MAX} days; leave the days empty for a token that works until deleted.`,
    };
  }
  return { name: trimmed, scope, expires_in_days: count };
}

/** How to use a token just made: on the command line, and in any HTTP request. */
export function tokenUsage(token: string, origin: string): { commandLine: string; header: string; curl: string } {
  return {
    commandLine: `CELLAR_SERVER=${origin} CELLAR_TOKEN=${token} cellar ls`,
    header: `Authorization: Bearer ${token}`,
    curl: `curl -H "Authorization: Bearer ${token}" ${origin}/v1/files`,
  };
}

/** Reads every page of one of the account's lists (sessions, tokens) into one array. */
export async function listOf<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of pages) all.push(item);
  return all;
}
