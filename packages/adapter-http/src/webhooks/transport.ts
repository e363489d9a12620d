import { createHmac } from "node:crypto";
import type { LookupFunction } from "node:net";
import type { DeliveryResult, OutgoingEvent, WebhookTransport } from "@cellar/core";
import type * as Undici from "undici";
import { fileEventSent } from "../live/live.routes.js";
import { checkDestination, type ResolveHost, resolveWithDns } from "./destination.js";

/** How long a receiver has to answer, headers and body (decisions §10). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Of a receiver's answer, at most this much is read; the rest is never taken. */
export const WEBHOOK_ANSWER_BYTES = 1024;

export interface WebhookTransportOptions {
  /** `WEBHOOK_ALLOW_PRIVATE=true`: http:// to loopback and private addresses, for development. */
  readonly allowPrivate?: boolean;
  /** How host names resolve; DNS by default. Tests give names of their own. */
  readonly resolve?: ResolveHost;
  readonly timeoutMs?: number;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>`. */
export function webhookSignature(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac("sha256", secret).update(`${unixSeconds}.${body}`, "utf8").digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

/** The JSON body of a delivery: the event as the file's event stream tells its data. */
export function webhookBody(event: OutgoingEvent): string {
  return JSON.stringify({
    id: event.eventId,
    type: event.event.kind,
    file_id: event.fileId,
    created_at: event.createdAt.toISOString(),
    data: fileEventSent(event.event).data,
  });
}

/**
 * Webhook deliveries over HTTP with undici (Node's own fetch stack). Every attempt checks
 * its destination again: the URL, then the addresses its host resolves to, and the
 * connection is made only to the address checked — the lookup the connection uses is the
 * check itself, so a name cannot resolve to one address for the check and another for the
 * connection. One connection per attempt, closed after it: no pooled connection outlives
 * the check that allowed it. No redirect is followed; a 3xx is a failure.
 */
export function createWebhookTransport(options: WebhookTransportOptions = {}): WebhookTransport {
  // Loaded with the first delivery: a server no webhook is delivered from never holds it.
  let undici: Promise<typeof Undici> | undefined;
  const allowPrivate = options.allowPrivate ?? false;
  const resolve = options.resolve ?? resolveWithDns;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;

  return {
    async check(url) {
      const checked = await checkDestination(url, { allowPrivate, resolve });
      return checked.ok ? null : checked.refused;
    },

    async deliver(event): Promise<DeliveryResult> {
      const startedAt = performance.now();
      const elapsed = () => Math.round(performance.now() - startedAt);
      const checked = await checkDestination(event.url, { allowPrivate, resolve });
      if (!checked.ok) return { status: null, durationMs: elapsed(), error: `destination refused: ${checked.refused}` };
      // The connection's lookup gives the address checked above, whatever DNS says by now.
      const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
        if (lookupOptions.all === true) {
          (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [
            { address: checked.address, family: checked.family },
          ]);
        } else callback(null, checked.address, checked.family);
      };
      undici ??= import("undici");
      const { Agent, request } = await undici;
      const dispatcher = new Agent({
        connect: { lookup, timeout: timeoutMs },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        pipelining: 0,
      });
      const body = webhookBody(event);
      const signal = AbortSignal.timeout(timeoutMs);
      // undici's request follows no redirect unless given the redirect interceptor.
      try {
        const answer = await request(event.url, {
          method: "POST",
          dispatcher,
          signal,
          headers: {
            "content-type": "application/json",
            "user-agent": "Cellar-Webhooks/1",
            "cellar-webhook-id": event.eventId,
            "cellar-signature": webhookSignature(event.secret, Math.floor(Date.now() / 1000), body),
          },
          body,
        });
        // At most 1 KiB of the answer is read, and none of it kept.
        let read = 0;
        for await (const chunk of answer.body) {
          read += (chunk as Buffer).length;
          if (read >= WEBHOOK_ANSWER_BYTES) break;
        }
        answer.body.destroy();
        const status = answer.statusCode;
        const ok = status >= 200 && status < 300;
        return {
          status,
          durationMs: elapsed(),
          error: ok ? null : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`,
        };
      } catch (error) {
        const timedOut = signal.aborted || (error instanceof Error && /timeout/i.test(error.name + error.message));
        return {
          status: null,
          durationMs: elapsed(),
          error: timedOut ? `no answer within ${timeoutMs / 1000} s` : `connection failed: ${reasonOf(error)}`,
        };
      } finally {
        void dispatcher.destroy().catch(() => {});
      }
    },
  };
}

/** A failed connection's cause in a few words: its code, else its message's first line. */
function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined;
  if (code !== undefined) return code;
  return (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]?.slice(0, 200) ?? "unknown";
}
