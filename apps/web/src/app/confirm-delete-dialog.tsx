import type { ComponentChildren } from "preact";
import { useRef } from "preact/hooks";
import { useModal } from "./files/people/dialog.js";

/**
 * Asks before something goes for good (a sheet, a token, a webhook): its title
 * names it, its text says what follows; Cancel, or the danger button that deletes it.
 */
export function ConfirmDeleteDialog(props: {
  /** Prefix of the title's and the text's element ids: one dialog of a kind shows at a time. */
  id: string;
  title: ComponentChildren;
  /** What deleting it does, in a sentence or two. */
  children: ComponentChildren;
  confirmLabel: string;
  titleClass?: string;
  onCancel: () => void;
  onDelete: () => void;
}) {
  const dialog = useModal();
  const confirmed = useRef(false);
  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={`${props.id}-title`}
      aria-describedby={`${props.id}-what`}
      onClose={() => (confirmed.current ? props.onDelete() : props.onCancel())}
    >
      <h2 id={`${props.id}-title`} class={props.titleClass}>
        {props.title}
      </h2>
      <p id={`${props.id}-what`}>{props.children}</p>
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
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
