import { authorizeFileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, fieldProblems, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import {
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WEBHOOKS_PER_ACCOUNT,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_SECRET_BYTES,
  type WebhookAttempt,
  type WebhookEventType,
  type WebhookRecord,
} from "./webhook.entity.js";
import type { WebhookRepository } from "./webhook-repository.port.js";
import type { RefusedDestination, WebhookTransport } from "./webhook-transport.port.js";

const REFUSALS: Record<RefusedDestination, string> = {
  scheme: "must be an https:// URL (http:// only to a loopback or private address, where the server allows those)",
  credentials: "must not carry a user name or password",
  loopback: "names a loopback address, which this server does not deliver to",
  private: "names a private address, which this server does not deliver to",
  link_local: "names a link-local address, which is never delivered to",
  metadata: "names a cloud metadata address, which is never delivered to",
  unspecified: "names no address one can deliver to",
  unresolvable: "names a host that does not resolve",
};

export type WebhookService = ReturnType<typeof createWebhookService>;

/**
 * Webhooks (decisions §10): made, read, changed and deleted by their owner from a
 * signed-in session (the caller checks the scope), and their delivery attempts listed.
 * What is delivered, and when, is `createWebhookDispatch`'s.
 */
export function createWebhookService(deps: {
  webhooks: WebhookRepository;
  files: FileRepository;
  transport: WebhookTransport;
  clock: Clock;
  random: RandomSource;
}) {
  const { webhooks, clock } = deps;
  const notFound = () => new CellarError(ErrorCode.not_found, "No such webhook.");

  /** `url`: an absolute http(s) URL of at most 2,048 characters whose destination the transport accepts. */
  async function checkedUrl(value: unknown): Promise<string> {
    if (typeof value !== "string" || value.length === 0) throw invalidField("url", "must be a URL");
    if (value.length > MAX_WEBHOOK_URL_LENGTH) {
      throw invalidField("url", `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw invalidField("url", "must be an absolute URL");
    }
    const refused = await deps.transport.check(url.href);
    if (refused !== null) throw invalidField("url", REFUSALS[refused]);
    return url.href;
  }

  async function ownWebhook(callerId: string, hookId: string): Promise<WebhookRecord> {
    const hook = await webhooks.findById(hookId);
    if (hook === null || hook.userId !== callerId) throw notFound();
    return hook;
  }

  return {
    /**
     * Makes a webhook of `callerId`: `events` a non-empty list of kinds, or `["*"]`;
     * `fileId` one file they own or hold a role on, or none. At most 20 an account.
     */
    async create(input: { callerId: string; url: unknown; events: unknown; fileId?: unknown }): Promise<WebhookRecord> {
      const fields = fieldProblems();
      const events = fields.read(() => parseEvents(input.events));
      const fileId = fields.read(() => parseFileId(input.fileId));
      fields.check();
      const url = await checkedUrl(input.url);
      if (fileId !== null && fileId !== undefined) {
        const found = await deps.files.findWithRole({ id: fileId, userId: input.callerId });
        const { role } = authorizeFileAction("watch", found, input.callerId);
        // Its people are told only to those it is shared with (decisions §7).
        if (role === null) {
          throw new CellarError(ErrorCode.forbidden, "Only people the file is shared with may follow it by webhook.");
        }
      }
      const now = clock.now();
      const hook: WebhookRecord = {
        id: newId(deps.random, "hook"),
        userId: input.callerId,
        url,
        events: events as WebhookEventType[],
        fileId: fileId ?? null,
        secret: `whsec_${Buffer.from(deps.random.bytes(WEBHOOK_SECRET_BYTES)).toString("base64url")}`,
        active: true,
        failingSince: null,
        createdAt: now,
        updatedAt: now,
      };
      if (!(await webhooks.insertWithinLimit({ hook, max: MAX_WEBHOOKS_PER_ACCOUNT }))) {
        throw new CellarError(
          ErrorCode.limit_reached,
          `An account can hold at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
        );
      }
      return hook;
    },

    async list(input: { callerId: string; page?: unknown; perPage?: unknown }): Promise<Page<WebhookRecord>> {
      const page = toPageRequest(input);
      const { items, total } = await webhooks.listByUser({
        userId: input.callerId,
        offset: page.offset,
        limit: page.perPage,
      });
      return toPage(page, items, total);
    },

    get: (input: { callerId: string; hookId: string }) => ownWebhook(input.callerId, input.hookId),

    /**
     * Changes `url`, `events` or `active`. Turned on again, a webhook starts its 24 hours
     * of allowed failures afresh and delivers what waited meanwhile, in order.
     */
    async update(input: {
      callerId: string;
      hookId: string;
      url?: unknown;
      events?: unknown;
      active?: unknown;
    }): Promise<WebhookRecord> {
      await ownWebhook(input.callerId, input.hookId);
      const fields = fieldProblems();
      const events = input.events === undefined ? undefined : fields.read(() => parseEvents(input.events));
      if (input.active !== undefined && typeof input.active !== "boolean") {
        fields.problems.push({ field: "active", message: "must be true or false" });
      }
      fields.check();
      const url = input.url === undefined ? undefined : await checkedUrl(input.url);
      const updated = await webhooks.update({
        id: input.hookId,
        userId: input.callerId,
        changes: {
          ...(url === undefined ? {} : { url }),
          ...(events === undefined ? {} : { events: events as WebhookEventType[] }),
          ...(input.active === undefined ? {} : { active: input.active as boolean }),
          ...(input.active === true ? { failingSince: null } : {}),
        },
        at: clock.now(),
      });
      if (updated === null) throw notFound();
      return updated;
    },

    /** Deletes a webhook, with what waited to be delivered to it and its attempts. */
    async delete(input: { callerId: string; hookId: string }): Promise<void> {
      if (!(await webhooks.delete({ id: input.hookId, userId: input.callerId }))) throw notFound();
    },

    /** A webhook's delivery attempts, newest first. */
    async listAttempts(input: {
      callerId: string;
      hookId: string;
      page?: unknown;
      perPage?: unknown;
    }): Promise<Page<WebhookAttempt>> {
      const page = toPageRequest(input);
      await ownWebhook(input.callerId, input.hookId);
      const { items, total } = await webhooks.listAttempts({
        hookId: input.hookId,
        offset: page.offset,
        limit: page.perPage,
      });
      return toPage(page, items, total);
    },
  };
}

/** `["*"]`, or a non-empty list of distinct kinds of event. */
function parseEvents(value: unknown): WebhookEventType[] {
  const kinds = WEBHOOK_EVENT_TYPES.map((kind) => `'${kind}'`).join(", ");
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidField("events", `must be a non-empty list of ${kinds}, or ['*']`);
  }
  if (value.length === 1 && value[0] === "*") return [...WEBHOOK_EVENT_TYPES];
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  if (!value.every((kind) => typeof kind === "string" && known.has(kind))) {
    throw invalidField("events", `must each be one of ${kinds} (or the list ['*'] alone)`);
  }
  if (new Set(value).size !== value.length) throw invalidField("events", "must not repeat a kind");
  // In the order the kinds are listed, whatever the order given.
  return WEBHOOK_EVENT_TYPES.filter((kind) => value.includes(kind));
}

function parseFileId(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length === 0 || value.length > 64) {
    throw invalidField("file_id", "must be a file's id");
  }
  return value;
}
