import type { NewWebhook } from "@cellar/client";
import { ShownOnce } from "./shown-once.js";

/** A webhook just made: its signing secret, this once, and how a receiver checks a delivery with it. */
export function NewWebhookSecret(props: { webhook: NewWebhook; onDone: () => void }) {
  const { webhook } = props;
  return (
    <ShownOnce
      id="new-webhook"
      title="Webhook made"
      intro={
        <>
          Events go to <strong class="webhook-url">{webhook.url}</strong>.{" "}
          <strong>Copy its secret now: it will not be shown again.</strong> The receiver keeps it, as it would a
          password.
        </>
      }
      value={webhook.secret}
      label="The webhook's secret"
      noun="secret"
      onDone={props.onDone}
    >
      <p>
        Each delivery is signed: its <code>Cellar-Signature</code> header is <code>t=…,v1=…</code>, where{" "}
        <code>v1</code> is the HMAC-SHA256 of <code>t</code>, a dot and the body as received, with this secret as the
        key. The receiver computes it, compares, and refuses a <code>t</code> far from its own clock.
      </p>
    </ShownOnce>
  );
}
