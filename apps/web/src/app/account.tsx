import { unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { Frame } from "./files.js";
import { messageOf } from "./messages.js";
import { client } from "./session.js";

/** Your address, and the name your account goes by. */
export function Account() {
  const email = useSignal<string | null>(null);
  const name = useSignal("");
  const status = useSignal<string | null>(null);

  useEffect(() => {
    unwrap(client.value.api.GET("/users/me")).then(
      (me) => {
        email.value = me.email;
        name.value = me.name;
      },
      (error: unknown) => (status.value = messageOf(error)),
    );
  }, []);

  async function save(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    try {
      const me = await unwrap(client.value.api.PATCH("/users/me", { body: { name: name.value } }));
      name.value = me.name;
      status.value = `You are now ${me.name}.`;
    } catch (error) {
      status.value = messageOf(error);
    }
  }

  return (
    <Frame title="Account">
      <p>
        Signed in as <strong>{email.value ?? "…"}</strong>
      </p>
      <form onSubmit={save} class="narrow-form">
        <label for="account-name">Your name</label>
        <input
          id="account-name"
          required
          maxLength={100}
          value={name.value}
          onInput={(event) => (name.value = (event.target as HTMLInputElement).value)}
        />
        <button type="submit">Save name</button>
      </form>
      <p role="status">{status.value}</p>
    </Frame>
  );
}
