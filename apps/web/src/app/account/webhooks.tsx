import type { NewWebhook, Webhook } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { Power, TrashIcon, Webhook as WebhookIcon } from "lucide-preact";
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { ConfirmDeleteDialog } from "../confirm-delete-dialog.js";
import { messageOf } from "../messages.js";
import { client, endIfRefused } from "../session.js";
import { say } from "../toast.js";
import { NewWebhookSecret } from "./new-webhook.js";
import { WebhookDeliveries } from "./webhook-deliveries.js";
import {
  ALL_KINDS,
  EVENT_KINDS,
  type EventKind,
  eventsText,
  MOST_WEBHOOKS,
  WEBHOOK_URL_MAX,
  webhookRequest,
} from "./webhook-words.js";
import { listOf, whenText } from "./words.js";

/**
 * Webhooks (`/webhooks`): the list, each with whether it is on and its last deliveries,
 * a form to add one, its secret shown once with how to check a signature, one turned off
 * turned on again, and each deleted after a confirmation. Refusals are said in the API's words.
 */
export function WebhooksSection() {
  const hooks = useSignal<readonly Webhook[] | null>(null);
  const problem = useSignal<string | null>(null);
  const busy = useSignal(false);
  const kinds = useSignal<ReadonlySet<EventKind>>(new Set(ALL_KINDS));
  const made = useSignal<NewWebhook | null>(null);
  const deleting = useSignal<Webhook | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const allBox = useRef<HTMLInputElement>(null);

  const every = ALL_KINDS.every((kind) => kinds.value.has(kind));
  const some = kinds.value.size > 0 && !every;
  // "All" is half-checked while only some kinds are chosen (a property, not an attribute).
  useEffect(() => {
    if (allBox.current) allBox.current.indeterminate = some;
  }, [some]);

  async function load() {
    try {
      hooks.value = await listOf(client.value.webhooks.list());
    } catch (error) {
      if (!endIfRefused(error)) problem.value = messageOf(error);
    }
  }
  useEffect(() => {
    load();
  }, []);

  function toggle(kind: EventKind, on: boolean) {
    const next = new Set(kinds.value);
    if (on) next.add(kind);
    else next.delete(kind);
    kinds.value = next;
  }

  async function make(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const request = webhookRequest(String(new FormData(form).get("url") ?? ""), kinds.value);
    if ("problem" in request) {
      problem.value = request.problem;
      return;
    }
    busy.value = true;
    try {
      made.value = await client.value.webhooks.create(request);
      problem.value = null;
      form.reset();
      kinds.value = new Set(ALL_KINDS);
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
    await load();
  }

  async function turnOn(hook: Webhook) {
    busy.value = true;
    try {
      await client.value.webhooks.update(hook.id, { active: true });
      problem.value = null;
      say(`The webhook to ${hook.url} is on again: what waited for it is sent now.`, "success");
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
    // The button goes with the "Off" it stood for: the section's heading keeps the reader's place.
    heading.current?.focus();
    await load();
  }

  async function remove(hook: Webhook) {
    deleting.value = null;
    busy.value = true;
    try {
      await client.value.webhooks.delete(hook.id);
      problem.value = null;
      if (made.value?.id === hook.id) made.value = null;
      say(`Deleted the webhook to ${hook.url}: nothing more is sent there.`, "success");
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
    // The button that had focus goes with its row: the section's heading keeps the reader's place.
    heading.current?.focus();
    await load();
  }

  const list = hooks.value;
  return (
    <section class="card account-section" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title" ref={heading} tabIndex={-1}>
        Webhooks
      </h2>
      <p class="muted">
        Tells another service (a chat bot, a sync job) of each change to your files and those shared with you: a signed
        POST per event, retried until it is answered. A webhook whose deliveries fail for 24 hours is turned off, and
        you are mailed; turn it on again once its receiver answers. At most {MOST_WEBHOOKS}.
      </p>

      <form class="token-form" onSubmit={make} aria-labelledby="webhook-form-title">
        <h3 id="webhook-form-title">Add a webhook</h3>
        <div class="token-fields">
          <div class="field grow">
            <label for="webhook-url">URL</label>
            <input
              id="webhook-url"
              name="url"
              type="url"
              required
              maxLength={WEBHOOK_URL_MAX}
              autocomplete="off"
              spellcheck={false}
              placeholder="https://"
              aria-describedby="webhook-url-hint"
            />
            <span id="webhook-url-hint" class="hint">
              Where each event is POSTed: an https:// address the server can reach
            </span>
          </div>
        </div>
        <fieldset class="webhook-kinds" aria-describedby="webhook-kinds-hint">
          <legend>Events</legend>
          <span id="webhook-kinds-hint" class="hint">
            The kinds of change to send
          </span>
          <label class="check check-all">
            <input
              ref={allBox}
              type="checkbox"
              checked={every}
              onChange={(event) => (kinds.value = new Set(event.currentTarget.checked ? ALL_KINDS : []))}
            />
            All
          </label>
          {ALL_KINDS.map((kind) => (
            <div key={kind} class="check-option">
              <label class="check">
                <input
                  type="checkbox"
                  value={kind}
                  checked={kinds.value.has(kind)}
                  aria-describedby={`webhook-kind-${kind}`}
                  onChange={(event) => toggle(kind, event.currentTarget.checked)}
                />
                {EVENT_KINDS[kind].label}
              </label>
              <span id={`webhook-kind-${kind}`} class="hint">
                {EVENT_KINDS[kind].hint}
              </span>
            </div>
          ))}
        </fieldset>
        <div class="invite-send">
          <button type="submit" class="primary" disabled={busy.value}>
            <WebhookIcon />
            Add webhook
          </button>
        </div>
      </form>
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}
      {made.value !== null && (
        <NewWebhookSecret
          webhook={made.value}
          onDone={() => {
            made.value = null;
            // Done goes with the secret it closed: the form is where the next webhook is added.
            document.getElementById("webhook-url")?.focus();
          }}
        />
      )}

      <h3 id="webhooks-list-title">Your webhooks</h3>
      {list === null ? (
        <p class="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p class="muted">No webhooks yet.</p>
      ) : (
        <ul class="account-list webhook-list" aria-labelledby="webhooks-list-title">
          {list.map((hook) => (
            <li key={hook.id}>
              <span class="what">
                <span class="name-line">
                  <strong class="webhook-url">{hook.url}</strong>
                  {hook.active ? <span class="badge on">On</span> : <span class="badge off">Off</span>}
                </span>
                <span class="muted">
                  {eventsText(hook.events)} · {hook.file_id === null ? "Every file" : "One file"} · Added{" "}
                  {whenText(hook.created_at, "—")}
                </span>
              </span>
              <span class="webhook-actions">
                {!hook.active && (
                  <button
                    type="button"
                    aria-label={`Turn on ${hook.url}`}
                    disabled={busy.value}
                    onClick={() => void turnOn(hook)}
                  >
                    <Power />
                    Turn on
                  </button>
                )}
                <button
                  type="button"
                  class="danger"
                  aria-label={`Delete ${hook.url}`}
                  disabled={busy.value}
                  onClick={() => (deleting.value = hook)}
                >
                  <TrashIcon />
                  Delete
                </button>
              </span>
              <WebhookDeliveries id={hook.id} url={hook.url} />
            </li>
          ))}
        </ul>
      )}
      {deleting.value !== null && (
        <ConfirmDeleteDialog
          id="delete-webhook"
          title={`Delete the webhook to ${deleting.value.url}?`}
          titleClass="webhook-dialog-title"
          confirmLabel="Delete webhook"
          onCancel={() => (deleting.value = null)}
          onDelete={() => {
            const hook = deleting.value;
            if (hook !== null) void remove(hook);
          }}
        >
          Nothing more is sent there from now on, and the events still waiting for it and its deliveries go with it.
          This cannot be undone: a new webhook would have a new secret.
        </ConfirmDeleteDialog>
      )}
    </section>
  );
}
