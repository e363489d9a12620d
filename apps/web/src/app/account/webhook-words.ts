import type { WebhookAttempt, WebhookRequest } from "@cellar/client";

/** At most this many webhooks an account holds (`POST /webhooks` answers 409 `limit_reached` past it). */
export const MOST_WEBHOOKS = 20;
/** The longest URL `POST /webhooks` takes. */
export const WEBHOOK_URL_MAX = 2048;
/** How many of a webhook's latest delivery attempts "Last deliveries" shows. */
export const RECENT_DELIVERIES = 10;

export type EventKind = "file" | "content" | "permissions" | "comment";

/** Each kind of event a webhook may be told of, in the API's order, with what it covers. */
export const EVENT_KINDS: Readonly<Record<EventKind, { label: string; hint: string }>> = {
  file: { label: "Files", hint: "Uploaded, renamed, made public or private, trashed, restored." },
  content: { label: "Content", hint: "New content, cells edited, rows appended, sheets changed, a version restored." },
  permissions: { label: "Sharing", hint: "Shared, a role changed, unshared." },
  comment: { label: "Comments", hint: "Comments made, changed or deleted." },
};

/** Every kind, in the API's order. */
export const ALL_KINDS = Object.keys(EVENT_KINDS) as EventKind[];

/** A new webhook's request from the form's fields, or what is wrong with them, before asking the server. */
export function webhookRequest(url: string, kinds: ReadonlySet<EventKind>): WebhookRequest | { problem: string } {
  const trimmed = url.trim();
  if (trimmed === "") return { problem: "Give the address the events are sent to, e.g. https://example.com/cellar" };
  if (trimmed.length > WEBHOOK_URL_MAX) return { problem: `A webhook's URL is at most ${WEBHOOK_URL_MAX} characters.` };
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    return { problem: "The URL must be a whole address, starting with https://" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return { problem: "The URL must be a whole address, starting with https://" };
  }
  if (kinds.size === 0) return { problem: "Choose at least one kind of event to send." };
  const events = ALL_KINDS.every((kind) => kinds.has(kind)) ? ["*" as const] : ALL_KINDS.filter((k) => kinds.has(k));
  return { url: trimmed, events };
}

/** The kinds a webhook is told of, in words: "All events", or e.g. "Files, Content". */
export function eventsText(events: readonly string[]): string {
  if (events.includes("*") || ALL_KINDS.every((kind) => events.includes(kind))) return "All events";
  return ALL_KINDS.filter((kind) => events.includes(kind))
    .map((kind) => EVENT_KINDS[kind].label)
    .join(", ");
}

/** An event's id, short enough for a row: `evt_` and its first 8 characters. */
export function shortEventId(id: string): string {
  const cut = id.indexOf("_") + 1;
  return id.length - cut > 8 ? `${id.slice(0, cut + 8)}…` : id;
}

/** One attempt's answer in words: the receiver's status, or "no answer" when none came. */
export function statusText(attempt: Pick<WebhookAttempt, "status">): string {
  return attempt.status === null ? "no answer" : String(attempt.status);
}

/** Whether an attempt delivered its event (a 2xx answer). */
export function delivered(attempt: Pick<WebhookAttempt, "status">): boolean {
  return attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
}

/** A duration in milliseconds as a row shows it: "84 ms", "1,204 ms". */
export function msText(ms: number, locales?: Intl.LocalesArgument): string {
  return `${Math.round(ms).toLocaleString(locales)} ms`;
}

/** The first `count` items of a paged list, without reading the pages past them. */
export async function firstOf<T>(pages: AsyncIterable<T>, count: number): Promise<T[]> {
  const some: T[] = [];
  if (count <= 0) return some;
  for await (const item of pages) {
    some.push(item);
    if (some.length >= count) break;
  }
  return some;
}
