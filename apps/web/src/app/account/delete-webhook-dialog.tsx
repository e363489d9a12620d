import { useRef } from "preact/hooks";
import { useModal } from "../files/people/dialog.js";

/** Asks before a webhook goes: nothing more is delivered to it, and what waited for it goes too. */
export function DeleteWebhookDialog(props: { url: string; onCancel: () => void; onDelete: () => void }) {
  const dialog = useModal();
  const confirmed = useRef(false);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="delete-webhook-title"
      aria-describedby="delete-webhook-what"
      onClose={() => (confirmed.current ? props.onDelete() : props.onCancel())}
    >
      <h2 id="delete-webhook-title" class="webhook-dialog-title">
        Delete the webhook to {props.url}?
      </h2>
      <p id="delete-webhook-what">
        Nothing more is sent there from now on, and the events still waiting for it and its deliveries go with it. This
        cannot be undone: a new webhook would have a new secret.
      </p>
      <div class="dialog-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Cancel
        </button>
        <button
          type="button"
          class="danger"
          onClick={() => {
            confirmed.current = true;
            dialog.current?.close();
          }}
        >
          Delete webhook
        </button>
      </div>
    </dialog>
  );
}
