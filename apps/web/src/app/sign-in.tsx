import { unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { CircleAlert, CircleCheck, Mail } from "lucide-preact";
import { Brand } from "./brand.js";
import { messageOf } from "./messages.js";
import { client, sessionEnded, signedOut } from "./session.js";

/** Asks for an email address, then says to check the mail. */
export function SignIn() {
  const email = useSignal("");
  const sentTo = useSignal<string | null>(null);
  const error = useSignal<string | null>(null);
  const busy = useSignal(false);

  async function submit(event: Event) {
    event.preventDefault();
    busy.value = true;
    error.value = null;
    signedOut.value = false;
    sessionEnded.value = false;
    try {
      await unwrap(client.value.api.POST("/sessions", { body: { email: email.value.trim() } }));
      sentTo.value = email.value.trim();
    } catch (caught) {
      error.value = messageOf(caught);
    } finally {
      busy.value = false;
    }
  }

  if (sentTo.value !== null) {
    return (
      <main class="narrow">
        <Brand />
        <div class="card">
          <h1>Check your mail</h1>
          <p>
            A sign-in link is on its way to <strong>{sentTo.value}</strong>. Open it on this device to sign in.
          </p>
          <button type="button" class="link" onClick={() => (sentTo.value = null)}>
            Use another address
          </button>
        </div>
      </main>
    );
  }
  return (
    <main class="narrow">
      <Brand />
      <div class="card">
        {signedOut.value && (
          <p class="notice success" role="status">
            <CircleCheck />
            You are signed out. Sign in again whenever you like.
          </p>
        )}
        {sessionEnded.value && !signedOut.value && (
          <p class="notice" role="status">
            <CircleAlert />
            Your session has ended: it was signed out from another device, or it expired. Sign in again.
          </p>
        )}
        <h1>Sign in to Cellar</h1>
        <p class="muted">No password: we send you a link.</p>
        <form onSubmit={submit}>
          <label for="email">Email address</label>
          <input
            id="email"
            type="email"
            autocomplete="email"
            required
            value={email.value}
            onInput={(event) => (email.value = event.currentTarget.value)}
            aria-describedby={error.value === null ? undefined : "sign-in-error"}
          />
          <button type="submit" class="primary" disabled={busy.value}>
            <Mail />
            {busy.value ? "Sending…" : "Send me a link"}
          </button>
          {error.value !== null && (
            <p id="sign-in-error" role="alert" class="notice error">
              {error.value}
            </p>
          )}
        </form>
      </div>
    </main>
  );
}
