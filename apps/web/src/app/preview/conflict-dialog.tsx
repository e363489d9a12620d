import { useRef } from "preact/hooks";
import { useModal } from "../files/people/dialog.js";
import type { Conflict } from "./cell-edits.js";
import { cellText } from "./cell-text.js";

/** Cells listed one by one; past this many, how many more. */
const LISTED = 8;

const shown = (value: Parameters<typeof cellText>[0]) => (value === null ? "empty" : `“${cellText(value)}”`);

/**
 * An edit refused because someone changed its cells after the grid showed them: who
 * changed the file last, each cell's value now beside yours, and the choice to write
 * yours over it ("Apply mine") or keep theirs. A modal dialog: Escape discards, and focus
 * goes back to the grid.
 */
export function ConflictDialog(props: { conflict: Conflict; onApply: () => void; onDiscard: () => void }) {
  const dialog = useModal();
  const apply = useRef(false);
  const { cells, author } = props.conflict;
  const one = cells.length === 1 ? cells[0] : undefined;
  return (
    <dialog
      ref={dialog}
      class="dialog conflict"
      aria-labelledby="conflict-title"
      aria-describedby="conflict-who"
      onClose={() => (apply.current ? props.onApply() : props.onDiscard())}
    >
      <h2 id="conflict-title">
        {one === undefined
          ? `${cells.length} cells were changed by someone else`
          : `${one.reference} was changed by someone else`}
      </h2>
      <p id="conflict-who">
        {author === null ? (
          "Someone"
        ) : (
          <>
            <strong>{author.name}</strong> ({author.email})
          </>
        )}{" "}
        changed {one === undefined ? "these cells" : "it"} after you opened the file, so your change was not saved.
      </p>
      <ul class="conflict-cells">
        {cells.slice(0, LISTED).map((cell) => (
          <li key={cell.reference}>
            <strong>{cell.reference}</strong>
            <span>
              Now {shown(cell.theirs)}; yours {shown(cell.mine)}
            </span>
          </li>
        ))}
        {cells.length > LISTED && <li>and {(cells.length - LISTED).toLocaleString()} more</li>}
      </ul>
      <div class="dialog-actions">
        <button type="button" onClick={() => dialog.current?.close()}>
          Discard mine
        </button>
        <button
          type="button"
          class="primary"
          onClick={() => {
            apply.current = true;
            dialog.current?.close();
          }}
        >
          Apply mine
        </button>
      </div>
    </dialog>
  );
}
