import { CellarApiError, type CellarFile, type components, unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { Copy, Send, UserMinus } from "lucide-preact";
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { messageOf } from "../../messages.js";
import { client } from "../../session.js";
import { copyText, linkTo } from "../clipboard.js";
import { GIVEN_ROLES, type GivenRole, mayShare, ONLY_OWNER_SHARES, ROLE_LABELS } from "../roles.js";
import { ownerOf, useModal } from "./dialog.js";

type Permission = components["schemas"]["Permission"];
type Person = components["schemas"]["UserSummary"];

/** What to say when sharing failed: the API's words, and for too many invitations, when to try again. */
function whyNot(error: unknown): string {
  if (error instanceof CellarApiError && error.status === 429) {
    const seconds = error.retryAfterSeconds;
    const wait =
      seconds === undefined
        ? "later"
        : seconds < 90
          ? `in ${Math.ceil(seconds)} seconds`
          : `in about ${Math.ceil(seconds / 60)} minutes`;
    return `You have sent too many invitations for now. Try again ${wait}.`;
  }
  if (error instanceof CellarApiError && error.code === "limit_reached") {
    return `${error.message} Remove someone before adding another person.`;
  }
  return messageOf(error);
}

/**
 * Who has a file and how: its owner, then the people given a role (oldest first; an
 * address with no account yet is "Invited"), and its public link. The owner adds people
 * by address with a role and a note, changes or takes away roles, and turns the link on
 * or off; anyone else sees the same list and why they cannot change it.
 * A modal dialog: Escape or Done closes it, and focus goes back where it was.
 */
export function ShareDialog(props: {
  file: CellarFile;
  /** True when the clipboard could not be written to before the dialog opened. */
  copyFailed: boolean;
  onChange: () => void;
  onClose: () => void;
}) {
  const dialog = useModal();
  const field = useRef<HTMLInputElement>(null);
  const file = useSignal(props.file);
  const owner = useSignal<Person | null>(null);
  const me = useSignal<Person | null>(null);
  const people = useSignal<readonly Permission[] | null>(null);
  const problem = useSignal<string | null>(null);
  const said = useSignal<{ text: string; copied: boolean } | null>(null);
  const busy = useSignal(false);
  const newRole = useSignal<GivenRole>("viewer");
  const owns = mayShare(props.file.role);
  const link = linkTo(props.file);
  const id = props.file.id;
  const api = client.value.api;

  async function load() {
    try {
      const [mine, list] = await Promise.all([
        unwrap(api.GET("/users/me")),
        unwrap(api.GET("/files/{id}/permissions", { params: { path: { id } } })),
      ]);
      me.value = mine;
      people.value = list;
      owner.value = owns ? mine : await ownerOf(id);
    } catch (error) {
      problem.value = messageOf(error);
    }
  }

  function selectLink() {
    field.current?.focus();
    field.current?.select();
    said.value = { text: "Press Ctrl+C (⌘C on a Mac) to copy the selected link.", copied: false };
  }

  useEffect(() => {
    load();
    if (props.copyFailed) selectLink();
  }, []);

  /** Runs a change from this dialog; its error is said here, where the reader is looking. */
  async function change(work: () => Promise<string | null>) {
    busy.value = true;
    try {
      const done = await work();
      problem.value = null;
      if (done !== null) said.value = { text: done, copied: true };
      props.onChange();
    } catch (error) {
      problem.value = whyNot(error);
    } finally {
      busy.value = false;
    }
    people.value = await unwrap(api.GET("/files/{id}/permissions", { params: { path: { id } } })).catch(
      () => people.value,
    );
  }

  const invite = (event: JSX.TargetedEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const email = String(data.get("email") ?? "").trim();
    const role = newRole.value;
    const message = String(data.get("message") ?? "").trim();
    return change(async () => {
      const made = await unwrap(
        api.POST("/files/{id}/permissions", {
          params: { path: { id } },
          body: { email, role, ...(message === "" ? {} : { message }) },
        }),
      );
      form.reset();
      const as = ROLE_LABELS[made.role].toLowerCase();
      return made.notified
        ? `Invited ${made.email} as ${as}. They were sent an email.`
        : `${made.email} is now ${as === "editor" ? "an" : "a"} ${as}.`;
    });
  };

  const setRole = (person: Permission, role: GivenRole) =>
    change(async () => {
      await unwrap(
        api.PATCH("/files/{id}/permissions/{pid}", { params: { path: { id, pid: person.id } }, body: { role } }),
      );
      return `${person.email} is now ${role === "editor" ? "an" : "a"} ${role}.`;
    });

  const remove = (person: Permission) =>
    change(async () => {
      await unwrap(api.DELETE("/files/{id}/permissions/{pid}", { params: { path: { id, pid: person.id } } }));
      // The button that had focus is gone with its row: the address field is where one adds people again.
      document.getElementById("share-email")?.focus();
      return `${person.email} no longer has access.`;
    });

  const setPublic = (on: boolean) => {
    // The switch shows what was asked at once, and what the server holds once it answers.
    file.value = { ...file.value, visibility: on ? "public" : "private" };
    return change(async () => {
      try {
        file.value = await unwrap(
          api.PATCH("/files/{id}", { params: { path: { id } }, body: { visibility: on ? "public" : "private" } }),
        );
      } catch (error) {
        file.value = { ...file.value, visibility: on ? "private" : "public" };
        throw error;
      }
      return on ? "Anyone signed in who has the link can now open it." : "The link is off.";
    });
  };

  async function copy() {
    if (await copyText(link)) said.value = { text: "Link copied", copied: true };
    else selectLink();
  }

  const isPublic = file.value.visibility === "public";
  const nameOf = (person: Person | null, email: string) =>
    person === null ? email : person.id === me.value?.id ? `${person.name} (you)` : person.name;

  return (
    <dialog ref={dialog} class="dialog share" aria-labelledby="share-title" onClose={props.onClose}>
      <h2 id="share-title">Share {props.file.name}</h2>
      {owns ? (
        <form class="invite" onSubmit={invite}>
          <div class="invite-row">
            <div class="field grow">
              <label for="share-email">Email address</label>
              <input id="share-email" name="email" type="email" required autocomplete="off" maxLength={254} />
            </div>
            <div class="field">
              <label for="share-role">Role</label>
              <select
                id="share-role"
                value={newRole.value}
                onChange={(event) => (newRole.value = event.currentTarget.value as GivenRole)}
              >
                {GIVEN_ROLES.map((role) => (
                  <option key={role} value={role}>
                    {ROLE_LABELS[role]}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <div class="field">
            <label for="share-message">
              Message <span class="muted">(optional)</span>
            </label>
            <textarea id="share-message" name="message" rows={2} maxLength={1000} />
          </div>
          <div class="invite-send">
            <button type="submit" class="primary" disabled={busy.value}>
              <Send />
              Share
            </button>
          </div>
        </form>
      ) : (
        <p class="notice">{ONLY_OWNER_SHARES}</p>
      )}
      {problem.value !== null && (
        <p role="alert" class="notice error">
          {problem.value}
        </p>
      )}

      <h3 id="people-title">People with access</h3>
      {people.value === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <ul class="people" aria-labelledby="people-title">
          <li>
            <span class="who">
              <strong>{owner.value === null ? "The owner" : nameOf(owner.value, owner.value.email)}</strong>
              {owner.value !== null && <span class="muted">{owner.value.email}</span>}
            </span>
            <span class="role-text">Owner</span>
          </li>
          {people.value.map((person) => (
            <li key={person.id}>
              <span class="who">
                <strong>{nameOf(person.user, person.email)}</strong>
                {person.user === null ? <span class="badge">Invited</span> : <span class="muted">{person.email}</span>}
              </span>
              {owns ? (
                <span class="person-actions">
                  <select
                    aria-label={`Role of ${person.email}`}
                    value={person.role}
                    disabled={busy.value}
                    onChange={(event) => setRole(person, event.currentTarget.value as GivenRole)}
                  >
                    {GIVEN_ROLES.map((role) => (
                      <option key={role} value={role}>
                        {ROLE_LABELS[role]}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    class="icon"
                    aria-label={`Remove ${person.email}`}
                    title={`Remove ${person.email}`}
                    disabled={busy.value}
                    onClick={() => remove(person)}
                  >
                    <UserMinus />
                  </button>
                </span>
              ) : (
                <span class="role-text">{ROLE_LABELS[person.role]}</span>
              )}
            </li>
          ))}
        </ul>
      )}

      <h3>Link</h3>
      <label class="switch">
        <input
          type="checkbox"
          role="switch"
          checked={isPublic}
          aria-checked={isPublic}
          disabled={!owns || busy.value}
          onChange={(event) => setPublic(event.currentTarget.checked)}
          {...(owns ? {} : { title: "Only the owner can turn the link on or off." })}
        />
        Anyone signed in to this Cellar who has the link can open and download it
      </label>
      <div class="copy-field">
        <input
          ref={field}
          readOnly
          value={link}
          aria-label={`Link to ${props.file.name}`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" onClick={copy}>
          <Copy />
          Copy link
        </button>
      </div>
      <p role="status" class={said.value?.copied === false ? "copy-status muted" : "copy-status"}>
        {said.value?.text}
      </p>
      <div class="dialog-actions">
        <button type="button" class="primary" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
