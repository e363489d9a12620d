import type { NewWebhook } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { CircleCheck, Copy } from "lucide-preact";
import { useEffect, useRef } from "preact/hooks";
import { copyText } from "../files/clipboard.js";

/**
 * A webhook just made: its signing secret, this once, in a read-only field with a Copy
 * button, and how a receiver checks a delivery with it. Done (or leaving the page) forgets it.
 */
export function NewWebhookSecret(props: { webhook: NewWebhook; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const said = useSignal<{ text: string; copied: boolean } | null>(null);
  const { webhook } = props;

  function selectSecret() {
    field.current?.focus();
    field.current?.select();
  }
  // The reader's eyes go to the secret: focus it, selected, as soon as it shows.
  useEffect(selectSecret, [webhook.id]);

  async function copy() {
    if (await copyText(webhook.secret)) said.value = { text: "Secret copied", copied: true };
    else {
      selectSecret();
      said.value = { text: "Press Ctrl+C (⌘C on a Mac) to copy the selected secret.", copied: false };
    }
  }

  return (
    <section class="notice success new-token" aria-labelledby="new-webhook-title">
      <CircleCheck />
      <div class="new-token-body">
        <h3 id="new-webhook-title">Webhook made</h3>
        <p>
          Events go to <strong class="webhook-url">{webhook.url}</strong>.{" "}
          <strong>Copy its secret now: it will not be shown again.</strong> The receiver keeps it, as it would a
          password.
        </p>
        <div class="copy-field">
          <input
            ref={field}
            id="new-webhook-secret"
            readOnly
            value={webhook.secret}
            aria-label="The webhook's secret"
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
        <p>
          Each delivery is signed: its <code>Cellar-Signature</code> header is <code>t=…,v1=…</code>, where{" "}
          <code>v1</code> is the HMAC-SHA256 of <code>t</code>, a dot and the body as received, with this secret as the
          key. The receiver computes it, compares, and refuses a <code>t</code> far from its own clock.
        </p>
        <div class="dialog-actions">
          <button type="button" onClick={props.onDone}>
            Done
          </button>
        </div>
      </div>
    </section>
  );
}
