import { CellarApiError, type StreamEvent } from "@cellar/client";
import { type Signal, signal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { client } from "../session.js";

/** Where a live stream is: opening, live, reconnecting (the client's reader tries again by itself), ended or failed. */
export type LiveState =
  | { readonly state: "opening" | "live" | "reconnecting" | "ended" }
  | { readonly state: "failed"; readonly message: string };

/**
 * Reads an event stream of the API (`/files/{id}/events`, `/events`) until `stop()`,
 * passing each event to `onEvent`. The client's reader connects again by itself after a
 * drop, resuming after the last event it received (`Last-Event-ID`), so nothing is
 * reloaded here: `state` only says so, for the page to show. An answer that refuses the
 * stream (401, 404, 429) ends it as `failed`.
 */
export function watch(
  path: `/${string}`,
  onEvent: (event: StreamEvent) => void,
): {
  readonly state: Signal<LiveState>;
  stop(): void;
} {
  const state = signal<LiveState>({ state: "opening" });
  const controller = new AbortController();
  (async () => {
    const events = client.value.eventStream(path, {
      signal: controller.signal,
      onReconnect: () => {
        state.value = { state: "reconnecting" };
      },
    });
    for await (const event of events) {
      if (state.value.state !== "live") state.value = { state: "live" };
      onEvent(event);
    }
    if (!controller.signal.aborted) state.value = { state: "ended" };
  })().catch((error: unknown) => {
    if (controller.signal.aborted) return;
    state.value = {
      state: "failed",
      message: error instanceof CellarApiError ? error.message : messageOf(error),
    };
  });
  return { state, stop: () => controller.abort() };
}
