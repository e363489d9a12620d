import type { AccessToken, NewAccessToken } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { KeyRound, TrashIcon } from "lucide-preact";
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { ConfirmDeleteDialog } from "../confirm-delete-dialog.js";
import { messageOf } from "../messages.js";
import { client, endIfRefused } from "../session.js";
import { say } from "../toast.js";
import { NewToken } from "./new-token.js";
import { listOf, SCOPES, type Scope, TOKEN_DAYS_MAX, TOKEN_NAME_MAX, tokenRequest, whenText } from "./words.js";

/** At most this many tokens an account holds (`POST /tokens` answers 409 `limit_reached` past it). */
const MOST_TOKENS = 50;

/**
 * Access tokens for scripts and services (`/tokens`): the list (never their values), a
 * form to make one, its value shown once with how to use it, and each deleted after a
 * confirmation. Refusals are said in the API's words.
 */
export function TokensSection() {
  const tokens = useSignal<readonly AccessToken[] | null>(null);
  const problem = useSignal<string | null>(null);
  const busy = useSignal(false);
  const scope = useSignal<Scope>("read");
  const made = useSignal<NewAccessToken | null>(null);
  const deleting = useSignal<AccessToken | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  async function load() {
    try {
      tokens.value = await listOf(client.value.tokens.list());
    } catch (error) {
      if (!endIfRefused(error)) problem.value = messageOf(error);
    }
  }
  useEffect(() => {
    load();
  }, []);

  async function make(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const request = tokenRequest(String(data.get("name") ?? ""), scope.value, String(data.get("days") ?? ""));
    if ("problem" in request) {
      problem.value = request.problem;
      return;
    }
    busy.value = true;
    try {
      made.value = await client.value.tokens.create(request);
      problem.value = null;
      form.reset();
      scope.value = "read";
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
    await load();
  }

  async function remove(token: AccessToken) {
    deleting.value = null;
    busy.value = true;
    try {
      await client.value.tokens.delete(token.id);
      problem.value = null;
      if (made.value?.id === token.id) made.value = null;
      say(`Deleted the token ${token.name}: it is refused from now on.`, "success");
    } catch (error) {
      problem.value = messageOf(error);
    } finally {
      busy.value = false;
    }
    // The button that had focus goes with its row: the section's heading keeps the reader's place.
    heading.current?.focus();
    await load();
  }

  const list = tokens.value;
  return (
    <section class="card account-section" aria-labelledby="tokens-title">
      <h2 id="tokens-title" ref={heading} tabIndex={-1}>
        Access tokens
      </h2>
      <p class="muted">
        For scripts and services that cannot follow a mail link. A token acts as you: a read token looks, a write token
        also changes files. Neither can manage tokens or sessions. At most {MOST_TOKENS}.
      </p>

      <form class="token-form" onSubmit={make} aria-labelledby="token-form-title">
        <h3 id="token-form-title">Make a token</h3>
        <div class="token-fields">
          <div class="field grow">
            <label for="token-name">Name</label>
            <input
              id="token-name"
              name="name"
              required
              maxLength={TOKEN_NAME_MAX}
              autocomplete="off"
              aria-describedby="token-name-hint"
            />
            <span id="token-name-hint" class="hint">
              What it is for, e.g. Nightly import
            </span>
          </div>
          <div class="field">
            <label for="token-scope">Scope</label>
            <select
              id="token-scope"
              value={scope.value}
              aria-describedby="token-scope-hint"
              onChange={(event) => (scope.value = event.currentTarget.value as Scope)}
            >
              {(Object.keys(SCOPES) as Scope[]).map((each) => (
                <option key={each} value={each}>
                  {SCOPES[each].label}
                </option>
              ))}
            </select>
            <span id="token-scope-hint" class="hint">
              {SCOPES[scope.value].hint}
            </span>
          </div>
          <div class="field days">
            <label for="token-days">
              Expires after <span class="muted">(days, optional)</span>
            </label>
            <input
              id="token-days"
              name="days"
              type="number"
              min={1}
              max={TOKEN_DAYS_MAX}
              step={1}
              inputMode="numeric"
              aria-describedby="token-days-hint"
            />
            <span id="token-days-hint" class="hint">
              1 to {TOKEN_DAYS_MAX}; empty: until deleted
            </span>
          </div>
        </div>
        <div class="invite-send">
          <button type="submit" class="primary" disabled={busy.value}>
            <KeyRound />
            Make token
          </button>
        </div>
      </form>
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}
      {made.value !== null && (
        <NewToken
          token={made.value}
          onDone={() => {
            made.value = null;
            // Done goes with the value it closed: the form is where the next token is made.
            document.getElementById("token-name")?.focus();
          }}
        />
      )}

      <h3 id="tokens-list-title">Your tokens</h3>
      {list === null ? (
        <p class="muted">Loading…</p>
      ) : list.length === 0 ? (
        <p class="muted">No tokens yet.</p>
      ) : (
        <ul class="account-list" aria-labelledby="tokens-list-title">
          {list.map((token) => (
            <li key={token.id}>
              <span class="what">
                <span class="name-line">
                  <strong>{token.name}</strong>
                  <span class="badge">{SCOPES[token.scope].label}</span>
                </span>
                <span class="muted">
                  Made {whenText(token.created_at, "—")} · Expires {whenText(token.expires_at, "never")} · Last used{" "}
                  {whenText(token.last_used_at, "never")}
                </span>
              </span>
              <button
                type="button"
                class="danger"
                aria-label={`Delete ${token.name}`}
                disabled={busy.value}
                onClick={() => (deleting.value = token)}
              >
                <TrashIcon />
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {deleting.value !== null && (
        <ConfirmDeleteDialog
          id="delete-token"
          title={`Delete the token ${deleting.value.name}?`}
          confirmLabel="Delete token"
          onCancel={() => (deleting.value = null)}
          onDelete={() => {
            const token = deleting.value;
            if (token !== null) void remove(token);
          }}
        >
          Scripts and services that use it are refused from now on, on every server. This cannot be undone: a new token
          would have to be made and given to them.
        </ConfirmDeleteDialog>
      )}
    </section>
  );
}
