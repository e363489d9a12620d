import type { NewAccessToken } from "@cellar/client";
import { ShownOnce } from "./shown-once.js";
import { tokenUsage } from "./words.js";

/** A token just made: its value, this once, and how to use it. */
export function NewToken(props: { token: NewAccessToken; onDone: () => void }) {
  const { token } = props;
  const usage = tokenUsage(token.token, location.origin);
  return (
    <ShownOnce
      id="new-token"
      title={`Token ${token.name} made`}
      intro={
        <>
          <strong>Copy it now: it will not be shown again.</strong> Keep it where the script reads it, as you would a
          password.
        </>
      }
      value={token.token}
      label={`The token ${token.name}`}
      noun="token"
      onDone={props.onDone}
    >
      <p>On the command line:</p>
      <pre>
        <code>{usage.commandLine}</code>
      </pre>
      <p>In any HTTP request, as a header:</p>
      <pre>
        <code>{usage.header}</code>
      </pre>
    </ShownOnce>
  );
}
