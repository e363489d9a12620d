import type { WebhookAttempt } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { RefreshCw } from "lucide-preact";
import { messageOf } from "../messages.js";
import { client, endIfRefused } from "../session.js";
import { delivered, firstOf, msText, RECENT_DELIVERIES, shortEventId, statusText } from "./webhook-words.js";
import { whenText } from "./words.js";

/**
 * A webhook's "Last deliveries": a disclosure that reads its latest attempts when opened
 * (and again on Refresh): when, which event, which attempt, the answer, how long, why it failed.
 */
export function WebhookDeliveries(props: { id: string; url: string }) {
  const attempts = useSignal<readonly WebhookAttempt[] | null>(null);
  const problem = useSignal<string | null>(null);
  const loading = useSignal(false);
  const captionId = `deliveries-${props.id}`;

  async function load() {
    loading.value = true;
    try {
      attempts.value = await firstOf(client.value.webhooks.deliveries(props.id), RECENT_DELIVERIES);
      problem.value = null;
    } catch (error) {
      if (!endIfRefused(error)) problem.value = messageOf(error);
    } finally {
      loading.value = false;
    }
  }

  const list = attempts.value;
  return (
    <details
      class="webhook-deliveries"
      onToggle={(event) => {
        if (event.currentTarget.open) void load();
      }}
    >
      <summary>Last deliveries</summary>
      <div class="deliveries-body" aria-busy={loading.value}>
        {problem.value !== null && (
          <p role="alert" class="notice error">
            {problem.value}
          </p>
        )}
        {list === null ? (
          <p class="muted">Loading…</p>
        ) : list.length === 0 ? (
          <p class="muted">Nothing sent yet: a delivery is made at the next change of a file it follows.</p>
        ) : (
          <div class="deliveries-scroll">
            <table class="deliveries">
              <caption id={captionId} class="visually-hidden">
                The latest deliveries to {props.url}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Event</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Answer</th>
                  <th scope="col">Took</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {list.map((attempt) => (
                  <tr key={`${attempt.event_id}-${attempt.attempt}`}>
                    <td>{whenText(attempt.at, "—")}</td>
                    <td>
                      <code title={attempt.event_id}>{shortEventId(attempt.event_id)}</code>
                    </td>
                    <td>{attempt.attempt}</td>
                    <td>
                      <span class={delivered(attempt) ? "badge on" : "badge off"}>{statusText(attempt)}</span>
                    </td>
                    <td>{msText(attempt.duration_ms)}</td>
                    <td>{attempt.error ?? "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <button type="button" onClick={() => void load()} disabled={loading.value}>
          <RefreshCw />
          Refresh
        </button>
      </div>
    </details>
  );
}
