import { useRef } from "preact/hooks";
import { useModal } from "../files/people/dialog.js";

/** Asks before a token goes: whatever uses it is refused from then on, and it cannot come back. */
export function DeleteTokenDialog(props: { name: string; onCancel: () => void; onDelete: () => void }) {
  const dialog = useModal();
  const confirmed = useRef(false);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby="delete-token-title"
      aria-describedby="delete-token-what"
      onClose={() => (confirmed.current ? props.onDelete() : props.onCancel())}
    >
      <h2 id="delete-token-title">Delete the token {props.name}?</h2>
      <p id="delete-token-what">
        Scripts and services that use it are refused from now on, on every server. This cannot be undone: a new token
        would have to be made and given to them.
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
          Delete token
        </button>
      </div>
    </dialog>
  );
}
