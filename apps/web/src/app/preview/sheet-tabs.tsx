import type { components, StructureOperation } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";
import { ConfirmDeleteDialog } from "../confirm-delete-dialog.js";
import { type ContextAction, ContextMenu } from "./context-menu.js";

type Sheet = components["schemas"]["Sheet"];

/** Characters Excel refuses in a sheet's name. */
const NOT_IN_NAMES = /[:\\/?*[\]]/;

/** Why a sheet's new name would be refused (Excel's rules, as the API checks them), or null when it is fine. */
export function sheetNameProblem(name: string, sheets: readonly Sheet[], renaming?: string): string | null {
  if (name.length === 0) return "A sheet needs a name.";
  if (name.length > 31) return "A sheet's name is at most 31 characters.";
  if (NOT_IN_NAMES.test(name)) return "A sheet's name cannot hold : \\ / ? * [ or ].";
  if (name.startsWith("'") || name.endsWith("'")) return "A sheet's name cannot start or end with '.";
  const taken = sheets.some(
    (sheet) => sheet.name.toLowerCase() === name.toLowerCase() && sheet.name.toLowerCase() !== renaming?.toLowerCase(),
  );
  return taken ? `There is already a sheet named ${name}.` : null;
}

/** A new sheet's name: `Sheet4` for a workbook of three, the next number not taken. */
export function newSheetName(sheets: readonly Sheet[]): string {
  const taken = new Set(sheets.map((sheet) => sheet.name.toLowerCase()));
  let number = sheets.length + 1;
  while (taken.has(`sheet${number}`)) number++;
  return `Sheet${number}`;
}

/**
 * A workbook's sheets as tabs under its grid: a click (or Left and Right, as tabs go)
 * shows one. Its editors also add a sheet (+), rename one (a double-click, or the tab's
 * menu: an input over the tab, Enter saves, Escape cancels), move one (drag it, or the
 * menu's Move left and Move right) and delete one, after a confirmation. The menu opens
 * with a right-click, Shift+F10 or the context menu key. Each change is one
 * `POST /structure` request; `onChange` sends it and says how it went.
 */
export function SheetTabs(props: {
  sheets: readonly Sheet[];
  current: number;
  editable: boolean;
  onSelect: (index: number) => void;
  /** Sends one change; `then` picks the sheet to show once the sheets are read again. */
  onChange: (operation: StructureOperation, then?: (sheets: readonly Sheet[]) => number) => Promise<boolean>;
}) {
  const { sheets, editable } = props;
  const renaming = useSignal<{ index: number; name: string; left: number; width: number } | null>(null);
  const problem = useSignal<string | null>(null);
  const menu = useSignal<{ index: number; x: number; y: number } | null>(null);
  const deleting = useSignal<number | null>(null);
  const dragged = useRef<number | null>(null);
  const renameInput = useRef<HTMLInputElement>(null);
  const tabOf = (index: number) => document.getElementById(`sheet-tab-${index}`);

  useLayoutEffect(() => {
    if (renaming.value === null) return;
    renameInput.current?.focus();
    renameInput.current?.select();
  }, [renaming.value?.index]);

  function startRenaming(index: number) {
    const tab = tabOf(index);
    const sheet = sheets[index];
    if (!editable || tab === null || sheet === undefined) return;
    problem.value = null;
    renaming.value = { index, name: sheet.name, left: tab.offsetLeft, width: tab.offsetWidth };
  }

  async function finishRenaming(save: boolean) {
    const now = renaming.value;
    if (now === null) return;
    const sheet = sheets[now.index];
    const name = now.name.trim();
    if (!save || sheet === undefined || name === sheet.name) {
      renaming.value = null;
      problem.value = null;
      tabOf(now.index)?.focus();
      return;
    }
    const why = sheetNameProblem(name, sheets, sheet.name);
    if (why !== null) {
      problem.value = why;
      renameInput.current?.focus();
      return;
    }
    renaming.value = null;
    problem.value = null;
    await props.onChange({ rename_sheet: sheet.name, to: name });
    tabOf(now.index)?.focus();
  }

  function move(index: number, to: number) {
    const sheet = sheets[index];
    if (sheet === undefined || to < 0 || to >= sheets.length || to === index) return;
    const shown = sheets[props.current]?.name;
    void props.onChange({ move_sheet: sheet.name, to }, (now) => {
      const at = now.findIndex((each) => each.name === shown);
      // The moved sheet's tab keeps focus, wherever it went.
      requestAnimationFrame(() => tabOf(to)?.focus());
      return Math.max(at, 0);
    });
  }

  async function remove(index: number) {
    const sheet = sheets[index];
    deleting.value = null;
    if (sheet === undefined) return;
    const shown = props.current;
    await props.onChange({ delete_sheet: sheet.name }, (now) =>
      Math.max(0, Math.min(index < shown ? shown - 1 : shown, now.length - 1)),
    );
    requestAnimationFrame(() => document.querySelector<HTMLElement>('#sheet-tabs [aria-selected="true"]')?.focus());
  }

  function add() {
    const name = newSheetName(sheets);
    void props.onChange({ add_sheet: name }, (now) =>
      Math.max(
        0,
        now.findIndex((sheet) => sheet.name === name),
      ),
    );
  }

  function actionsFor(index: number): ContextAction[] {
    const actions: ContextAction[] = [{ label: "Rename", run: () => startRenaming(index) }];
    if (index > 0) actions.push({ label: "Move left", run: () => move(index, index - 1) });
    if (index < sheets.length - 1) actions.push({ label: "Move right", run: () => move(index, index + 1) });
    if (sheets.length > 1) actions.push({ label: "Delete", run: () => (deleting.value = index), danger: true });
    return actions;
  }

  function onTabKeyDown(event: JSX.TargetedKeyboardEvent<HTMLButtonElement>, index: number) {
    if (editable && ((event.shiftKey && event.key === "F10") || event.key === "ContextMenu")) {
      event.preventDefault();
      const box = event.currentTarget.getBoundingClientRect();
      menu.value = { index, x: box.left, y: box.bottom };
      return;
    }
    if (editable && event.key === "F2") {
      event.preventDefault();
      startRenaming(index);
      return;
    }
    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (index + step + sheets.length) % sheets.length;
    props.onSelect(next);
    tabOf(next)?.focus();
  }

  const renamed = renaming.value;
  const menuAt = menu.value;
  const toDelete = deleting.value === null ? undefined : sheets[deleting.value];
  return (
    <div class="sheet-tabs" id="sheet-tabs">
      <div role="tablist" aria-label="Sheets" class="tabs">
        {sheets.map((each, index) => (
          <button
            type="button"
            role="tab"
            key={each.name}
            id={`sheet-tab-${index}`}
            class={renamed?.index === index ? "renaming" : undefined}
            aria-selected={index === props.current}
            aria-controls="sheet-panel"
            tabIndex={index === props.current ? 0 : -1}
            draggable={editable}
            onClick={() => props.onSelect(index)}
            onDblClick={() => startRenaming(index)}
            onKeyDown={(event) => onTabKeyDown(event, index)}
            onContextMenu={(event) => {
              if (!editable) return;
              event.preventDefault();
              menu.value = { index, x: event.clientX, y: event.clientY };
            }}
            onDragStart={(event) => {
              dragged.current = index;
              event.dataTransfer?.setData("text/plain", each.name);
              if (event.dataTransfer !== null) event.dataTransfer.effectAllowed = "move";
            }}
            onDragOver={(event) => {
              if (dragged.current === null) return;
              event.preventDefault();
              if (event.dataTransfer !== null) event.dataTransfer.dropEffect = "move";
            }}
            onDrop={(event) => {
              event.preventDefault();
              const from = dragged.current;
              dragged.current = null;
              if (from !== null) move(from, index);
            }}
            onDragEnd={() => (dragged.current = null)}
          >
            {each.name}
          </button>
        ))}
      </div>
      {editable && (
        <button type="button" class="add-sheet" aria-label="Add a sheet" title="Add a sheet" onClick={add}>
          +
        </button>
      )}
      {renamed !== null && (
        <span class="sheet-rename" style={{ left: `${renamed.left}px`, minWidth: `${renamed.width}px` }}>
          <input
            ref={renameInput}
            aria-label={`New name for the sheet ${sheets[renamed.index]?.name ?? ""}`}
            aria-invalid={problem.value !== null}
            aria-describedby={problem.value === null ? undefined : "sheet-rename-problem"}
            autocomplete="off"
            spellcheck={false}
            maxLength={31}
            value={renamed.name}
            onInput={(event) => {
              renaming.value = { ...renamed, name: event.currentTarget.value };
              problem.value = null;
            }}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                void finishRenaming(true);
              } else if (event.key === "Escape") {
                event.preventDefault();
                void finishRenaming(false);
              }
            }}
            onBlur={() => void finishRenaming(true)}
          />
          {problem.value !== null && (
            <span id="sheet-rename-problem" role="alert" class="sheet-rename-problem">
              {problem.value}
            </span>
          )}
        </span>
      )}
      {menuAt !== null && (
        <ContextMenu
          id="sheet-menu"
          label={`Sheet ${sheets[menuAt.index]?.name ?? ""}`}
          actions={actionsFor(menuAt.index)}
          at={menuAt}
          returnTo={() => tabOf(menuAt.index)}
          onClose={() => (menu.value = null)}
        />
      )}
      {toDelete !== undefined && deleting.value !== null && (
        <ConfirmDeleteDialog
          id="delete-sheet"
          title={`Delete the sheet ${toDelete.name}?`}
          confirmLabel="Delete sheet"
          onCancel={() => (deleting.value = null)}
          onDelete={() => void remove(deleting.value ?? 0)}
        >
          Its cells go with it, and formulas on other sheets that read it show #REF!. The file's history keeps the
          version before, to restore.
        </ConfirmDeleteDialog>
      )}
    </div>
  );
}
