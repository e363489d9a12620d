import { unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { SessionsSection } from "./account/sessions.js";
import { TokensSection } from "./account/tokens.js";
import { WebhooksSection } from "./account/webhooks.js";
import { Frame } from "./files.js";
import { messageOf } from "./messages.js";
import { client, endIfRefused } from "./session.js";
import { say } from "./toast.js";
import "./account/account.css";

/**
 * The account page (`/account`), fetched the first time it is opened: a column of
 * sections, each a card with its own heading, list and errors: the profile, sessions,
 * access tokens and webhooks (§10), each but the profile a module of `account/` of its own.
 */
export function Account() {
  return (
    <Frame title="Account">
      <div class="account-sections">
        <Profile />
        <SessionsSection />
        <TokensSection />
        <WebhooksSection />
      </div>
    </Frame>
  );
}

/** Your address, and the name your account goes by. */
function Profile() {
  const email = useSignal<string | null>(null);
  const name = useSignal("");

  useEffect(() => {
    unwrap(client.value.api.GET("/users/me")).then(
      (me) => {
        email.value = me.email;
        name.value = me.name;
      },
      (error: unknown) => {
        if (!endIfRefused(error)) say(messageOf(error), "error");
      },
    );
  }, []);

  async function save(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    try {
      const me = await unwrap(client.value.api.PATCH("/users/me", { body: { name: name.value } }));
      name.value = me.name;
      say(`You are now ${me.name}.`, "success");
    } catch (error) {
      say(messageOf(error), "error");
    }
  }

  return (
    <section class="card account-section" aria-labelledby="profile-title">
      <h2 id="profile-title">Profile</h2>
      <div class="narrow-form">
        <p>
          Signed in as <strong>{email.value ?? "…"}</strong>
        </p>
        <form onSubmit={save}>
          <label for="account-name">Your name</label>
          <input
            id="account-name"
            required
            maxLength={100}
            value={name.value}
            onInput={(event) => (name.value = event.currentTarget.value)}
          />
          <button type="submit" class="primary">
            Save name
          </button>
        </form>
      </div>
    </section>
  );
}
