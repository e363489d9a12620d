import type {
  DeliveryResult,
  OutgoingEvent,
  RefusedDestination,
  WebhookTransport,
} from "../webhooks/webhook-transport.port.js";

/** The host a recording transport refuses, as a real one refuses a private address. */
export const REFUSED_WEBHOOK_HOST = "refused.example";

/**
 * A `WebhookTransport` that sends nothing: it keeps every event it is given (`sent`) and
 * answers with the status `answer` says (200 unless told otherwise; null as a timeout).
 * `check` refuses hosts named `refused.example` (as `private`) and accepts every other.
 * For tests and for documents built without a network (the OpenAPI document).
 */
export function createRecordingWebhookTransport() {
  const sent: OutgoingEvent[] = [];
  const state = { answer: (_event: OutgoingEvent): number | null => 200 };
  const transport: WebhookTransport = {
    async check(url): Promise<RefusedDestination | null> {
      return new URL(url).hostname === REFUSED_WEBHOOK_HOST ? "private" : null;
    },
    async deliver(event): Promise<DeliveryResult> {
      sent.push(event);
      const status = state.answer(event);
      return {
        status,
        durationMs: 3,
        error: status === null ? "timed out after 10 s" : status >= 200 && status < 300 ? null : `answered ${status}`,
      };
    },
  };
  return { transport, sent, state };
}

export type RecordingWebhookTransport = ReturnType<typeof createRecordingWebhookTransport>;
