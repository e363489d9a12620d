import { unwrap } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect } from "preact/hooks";
import { Frame } from "./files.js";
import { messageOf } from "./messages.js";
import { client } from "./session.js";
import { say } from "./toast.js";

/** Your address, and the name your account goes by. */
export function Account() {
  const email = useSignal<string | null>(null);
  const name = useSignal("");

  useEffect(() => {
    unwrap(client.value.api.GET("/users/me")).then(
      (me) => {
        email.value = me.email;
        name.value = me.name;
      },
      (error: unknown) => say(messageOf(error), "error"),
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
    <Frame title="Account">
      <div class="card narrow-form">
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
    </Frame>
  );
}
