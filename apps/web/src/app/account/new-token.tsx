import type { NewAccessToken } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { CircleCheck, Copy } from "lucide-preact";
import { useEffect, useRef } from "preact/hooks";
import { copyText } from "../files/clipboard.js";
import { tokenUsage } from "./words.js";

/**
 * A token just made: its value, this once, in a read-only field with a Copy button, and
 * how to use it. The value lives only here: Done (or leaving the page) forgets it.
 */
export function NewToken(props: { token: NewAccessToken; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const said = useSignal<{ text: string; copied: boolean } | null>(null);
  const { token } = props;
  const usage = tokenUsage(token.token, location.origin);

  function selectToken() {
    field.current?.focus();
    field.current?.select();
  }
  // The reader's eyes go to the value: focus it, selected, as soon as it shows.
  useEffect(selectToken, [token.id]);

  async function copy() {
    if (await copyText(token.token)) said.value = { text: "Token copied", copied: true };
    else {
      selectToken();
      said.value = { text: "Press Ctrl+C (⌘C on a Mac) to copy the selected token.", copied: false };
    }
  }

  return (
    <section class="notice success new-token" aria-labelledby="new-token-title">
      <CircleCheck />
      <div class="new-token-body">
        <h3 id="new-token-title">Token {token.name} made</h3>
        <p>
          <strong>Copy it now: it will not be shown again.</strong> Keep it where the script reads it, as you would a
          password.
        </p>
        <div class="copy-field">
          <input
            ref={field}
            id="new-token-value"
            readOnly
            value={token.token}
            aria-label={`The token ${token.name}`}
            onFocus={(event) => event.currentTarget.select()}
          />
          <button type="button" onClick={copy}>
            <Copy />
            Copy
          </button>
        </div>
        <p role="status" class={said.value?.copied === false ? "copy-status muted" : "copy-status"}>
          {said.value?.text}
        </p>
        <p>On the command line:</p>
        <pre>
          <code>{usage.commandLine}</code>
        </pre>
        <p>In any HTTP request, as a header:</p>
        <pre>
          <code>{usage.header}</code>
        </pre>
        <div class="dialog-actions">
          <button type="button" onClick={props.onDone}>
            Done
          </button>
        </div>
      </div>
    </section>
  );
}
