import type { CellarFile } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { Copy, Link2Off } from "lucide-preact";
import { useEffect, useRef } from "preact/hooks";
import { copyText, linkTo } from "./clipboard.js";

/**
 * A shared file's link, to copy: the Copy button puts it on the clipboard and says so;
 * where the page may not write to the clipboard, it selects the link for Ctrl+C instead.
 * A modal dialog: Escape or Done closes it, and focus goes back where it was.
 */
export function ShareDialog(props: {
  file: Pick<CellarFile, "id" | "name">;
  /** True when the clipboard could not be written to before the dialog opened. */
  copyFailed?: boolean;
  onClose: () => void;
  onUnshare: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const said = useSignal<{ text: string; copied: boolean } | null>(null);
  const link = linkTo(props.file);

  function selectLink() {
    field.current?.focus();
    field.current?.select();
    said.value = { text: "Press Ctrl+C (⌘C on a Mac) to copy the selected link.", copied: false };
  }

  useEffect(() => {
    dialog.current?.showModal();
    if (props.copyFailed) selectLink();
  }, []);

  async function copy() {
    if (await copyText(link)) said.value = { text: "Link copied", copied: true };
    else selectLink();
  }

  return (
    <dialog ref={dialog} class="dialog" aria-labelledby="share-title" onClose={props.onClose}>
      <h2 id="share-title">{props.file.name} is shared</h2>
      <p class="muted">Anyone signed in to this Cellar who has the link can open and download it.</p>
      <div class="copy-field">
        <input
          ref={field}
          readOnly
          value={link}
          aria-label={`Link to ${props.file.name}`}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" class="primary" onClick={copy}>
          <Copy />
          Copy link
        </button>
      </div>
      <p role="status" class={said.value?.copied === false ? "copy-status muted" : "copy-status"}>
        {said.value?.text}
      </p>
      <div class="dialog-actions">
        <button
          type="button"
          onClick={() => {
            dialog.current?.close();
            props.onUnshare();
          }}
        >
          <Link2Off />
          Stop sharing
        </button>
        <button type="button" onClick={() => dialog.current?.close()}>
          Done
        </button>
      </div>
    </dialog>
  );
}
