import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  WEBHOOK_EVENT_TYPES,
  type WebhookAttempt,
  type WebhookEventType,
  type WebhookRecord,
} from "@cellar/core";
import { pageHeaders, pageQueryProperties } from "../files/file.schemas.js";

const EVENT_KINDS =
  "`file` (uploaded, renamed, visibility changed, trashed, restored), `content` (replaced, cells edited, rows appended, structure changed, a version restored), `permissions` (shared, a role changed, unshared), `comment`.";

const webhookProperties = {
  id: { type: "string", pattern: "^hook_[a-z2-7]+$", examples: ["hook_mfrggzdfmztwq2lknnwg23tp"] },
  url: {
    type: "string",
    format: "uri",
    description: "Where deliveries are POSTed.",
    examples: ["https://example.com/cellar"],
  },
  events: {
    type: "array",
    description: `The kinds of event delivered: ${EVENT_KINDS} A webhook made with \`["*"]\` lists every kind.`,
    items: { type: "string", enum: WEBHOOK_EVENT_TYPES },
    examples: [["file", "content"]],
  },
  file_id: {
    type: ["string", "null"],
    description: "The one file it follows; null: every file of yours and every file shared with you.",
  },
  active: {
    type: "boolean",
    description: "False once 24 hours of failed deliveries turned it off, or you did: nothing is delivered then.",
  },
  created_at: { type: "string", format: "date-time" },
} as const;

const WEBHOOK_FIELDS = ["id", "url", "events", "file_id", "active", "created_at"] as const;

/** The `$id` of a webhook as read. */
export const WEBHOOK_SCHEMA_ID = "Webhook";

export const webhookSchema = {
  $id: WEBHOOK_SCHEMA_ID,
  title: WEBHOOK_SCHEMA_ID,
  description: "A webhook, without its secret.",
  type: "object",
  additionalProperties: false,
  required: WEBHOOK_FIELDS,
  properties: webhookProperties,
} as const;

export const newWebhookSchema = {
  description:
    'The new webhook, with its secret: shown in this answer only. Every delivery carries `Cellar-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the secret>`.',
  type: "object",
  additionalProperties: false,
  required: [...WEBHOOK_FIELDS, "secret"],
  properties: {
    ...webhookProperties,
    secret: { type: "string", pattern: "^whsec_", examples: ["whsec_q2+7w…"] },
  },
} as const;

/** The `$id` of a delivery attempt. */
export const WEBHOOK_ATTEMPT_SCHEMA_ID = "WebhookAttempt";

export const webhookAttemptSchema = {
  $id: WEBHOOK_ATTEMPT_SCHEMA_ID,
  title: WEBHOOK_ATTEMPT_SCHEMA_ID,
  description: "One attempt at delivering one event.",
  type: "object",
  additionalProperties: false,
  required: ["event_id", "attempt", "status", "duration_ms", "at", "error"],
  properties: {
    event_id: {
      type: "string",
      pattern: "^evt_",
      description:
        "The event's id, as its `Cellar-Webhook-Id` header and the `id` of its body: the same at every attempt.",
      examples: ["evt_mfrggzdfmztwq2lknnwg23tp"],
    },
    attempt: { type: "integer", minimum: 1, description: "1 for the first attempt at this event." },
    status: {
      type: ["integer", "null"],
      description:
        "The receiver's HTTP status; null when none came (a refused address, a timeout, a connection error).",
    },
    duration_ms: { type: "integer", minimum: 0, description: "How long the attempt took." },
    at: { type: "string", format: "date-time", description: "When the attempt started." },
    error: {
      type: ["string", "null"],
      description: "Why it failed, in a few words; null for a 2xx.",
    },
  },
} as const;

export interface WebhookJson {
  readonly id: string;
  readonly url: string;
  readonly events: readonly WebhookEventType[];
  readonly file_id: string | null;
  readonly active: boolean;
  readonly created_at: string;
}

/** The one mapping from core's webhook to the API's JSON: never its secret. */
export function toWebhookJson(hook: WebhookRecord): WebhookJson {
  return {
    id: hook.id,
    url: hook.url,
    events: [...hook.events],
    file_id: hook.fileId,
    active: hook.active,
    created_at: hook.createdAt.toISOString(),
  };
}

export interface WebhookAttemptJson {
  readonly event_id: string;
  readonly attempt: number;
  readonly status: number | null;
  readonly duration_ms: number;
  readonly at: string;
  readonly error: string | null;
}

export function toWebhookAttemptJson(attempt: WebhookAttempt): WebhookAttemptJson {
  return {
    event_id: attempt.eventId,
    attempt: attempt.attempt,
    status: attempt.status,
    duration_ms: Math.max(0, Math.round(attempt.durationMs)),
    at: attempt.at.toISOString(),
    error: attempt.error,
  };
}

const requestedEvents = {
  type: "array",
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
  items: { type: "string", enum: [...WEBHOOK_EVENT_TYPES, "*"] },
  description: `The kinds of event to deliver, or \`["*"]\` for every kind (stored, and answered, as the list of every kind): ${EVENT_KINDS}`,
  examples: [["*"], ["file", "content"]],
} as const;

const requestedUrl = {
  type: "string",
  minLength: 1,
  maxLength: 2048,
  description:
    "An `https://` URL; `http://` only to a loopback or private address, and only where the server allows those (`WEBHOOK_ALLOW_PRIVATE=true`). Link-local and cloud metadata addresses are always refused. The host must resolve to an allowed address.",
  examples: ["https://example.com/cellar"],
} as const;

export const createWebhookBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["url", "events"],
  properties: {
    url: requestedUrl,
    events: requestedEvents,
    file_id: {
      type: "string",
      minLength: 1,
      maxLength: 64,
      description:
        "Follow this file only (one you own or hold a role on); without it, every file of yours and every file shared with you.",
    },
  },
} as const;

export interface CreateWebhookBody {
  readonly url: string;
  readonly events: readonly string[];
  readonly file_id?: string;
}

export const patchWebhookBodySchema = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  description: "At least one of `url`, `events` and `active`.",
  properties: {
    url: requestedUrl,
    events: requestedEvents,
    active: {
      type: "boolean",
      description:
        "`true` turns it on again: its 24 hours of allowed failures start afresh, and what waited meanwhile is delivered, in order.",
    },
  },
} as const;

export interface PatchWebhookBody {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly active?: boolean;
}

export const listWebhooksQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Webhooks"),
} as const;

export const listWebhookAttemptsQuerySchema = {
  type: "object",
  additionalProperties: false,
  properties: pageQueryProperties("Attempts"),
} as const;

export interface WebhookPageQuery {
  readonly page?: string;
  readonly per_page?: string;
}

export const webhookPageHeaders = pageHeaders("webhooks", "Each links to `/webhooks`.");
export const webhookAttemptPageHeaders = pageHeaders("attempts", "Each links to `/webhooks/{id}/deliveries`.");

export const webhookIdParamsSchema = {
  type: "object",
  additionalProperties: false,
  required: ["id"],
  properties: { id: { type: "string", minLength: 1, maxLength: 64, description: "The webhook's id (`hook_…`)." } },
} as const;

export interface WebhookIdParams {
  readonly id: string;
}

export const WEBHOOK_LIMIT_TEXT = `limit_reached: the account holds ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks already; delete one first.`;
