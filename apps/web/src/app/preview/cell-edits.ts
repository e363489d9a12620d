import {
  CellarApiError,
  type CellarClient,
  type CellarFile,
  type CellInput,
  type components,
  type StructureOperation,
  unwrap,
} from "@cellar/client";
import { signal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { say } from "../toast.js";
import { rangeText, typedInput } from "./cell-input.js";
import { columnLetters } from "./cell-text.js";
import { type CellWindows, quoted } from "./cell-windows.js";
import { EditHistory, HISTORY_STEPS } from "./history.js";
import { cellOf, readBlock } from "./read-block.js";
import { structureStep } from "./structure-menu.js";

type Person = components["schemas"]["UserSummary"];
type Block = CellInput[][];

/** The API's limit on the cells of one edit (and of one window read). */
export const MOST_CELLS = 50_000;

/** An edit: `values` written from (`top`, `left`), based on the cells holding `expect`. */
export interface CellEdit {
  readonly top: number;
  readonly left: number;
  readonly values: Block;
  /** What the cells hold, as far as this page knows; when absent, read from the grid (or the server) when sent. */
  readonly expect?: Block;
  /**
   * What the grid showed in these cells when the edit began (a cell editor opened): the
   * base to compare with, so that a cell someone else changed while it was being edited
   * is a conflict, even though the grid has shown their value since.
   */
  readonly shown?: Block;
  /** The edit this one undoes. */
  readonly undoes?: SavedCells;
  /** The edit this one makes again (after it was undone). */
  readonly redoes?: SavedCells;
  /**
   * How the server reads `values`' strings: `user` (the default), as typed into a cell of a
   * spreadsheet program; `raw`, each a text (a CSV's cells put back by an undo, whatever
   * they look like).
   */
  readonly input?: "user" | "raw";
}

/**
 * An edit saved, as Ctrl+Z and Ctrl+Y play it: undo writes `before` expecting `after`,
 * redo writes `values` again expecting `expect`.
 */
interface SavedCells {
  readonly kind: "cells";
  readonly top: number;
  readonly left: number;
  /** What the edit wrote, read by the server as `input` says. */
  readonly values: Block;
  readonly input: "user" | "raw";
  /** What the cells held before it, raw: the redo's `expect`. */
  readonly expect: Block;
  /** What the cells held after it, raw: the undo's `expect` (read again after a redo). */
  after: Block;
  /** What writes the cells back as they were (a workbook's formulas as formulas), with `beforeInput`. */
  readonly before: Block;
  readonly beforeInput: "user" | "raw";
}

/**
 * A change of structure of one's own (rows or columns inserted or deleted), as Ctrl+Z and
 * Ctrl+Y play it: undo restores the version before it, expecting the content it made
 * (`sha256`); redo sends the operation again, expecting the content the undo restored.
 */
interface SavedStructure {
  readonly kind: "structure";
  readonly operation: StructureOperation;
  /** The version the change (or its redo) made, and its content's sha256. */
  version: number;
  sha256: string;
  /** The content the undo restored: what the redo expects. */
  restored: string;
}

/** One step of the history: an edit of cells or a change of structure. */
type Saved = SavedCells | SavedStructure;

/** A cell someone else changed since this page read it. */
export interface ChangedCell {
  readonly reference: string;
  readonly theirs: CellInput;
  readonly mine: CellInput;
}

/** An edit refused because cells changed meanwhile: who changed the file last, and to what. */
export interface Conflict {
  /** Tells one conflict from the next. */
  readonly id: number;
  readonly edit: CellEdit;
  readonly cells: readonly ChangedCell[];
  /** The last version's author: null when unknown (an account gone, or the versions could not be read). */
  readonly author: Person | null;
}

/**
 * A sheet's edits from the grid: each one `PATCH /values` request based on the cells it
 * changes (`expect`, what the grid showed), so that people editing different cells never
 * conflict; the values shown at once while they are saved; a stack of what was saved,
 * for Ctrl+Z; and, when a cell changed meanwhile, the conflict, to apply again or drop.
 */
export class CellEdits {
  /** What the last edit came to, for a live region. */
  readonly status = signal("");
  readonly conflict = signal<Conflict | null>(null);
  /** One more at each change of what can be undone or redone. */
  readonly historySeq = signal(0);
  private readonly history = new EditHistory<Saved>(HISTORY_STEPS, () => this.historySeq.value++);
  /** Conflicts after the one shown, each shown in turn. */
  private readonly conflicts: Conflict[] = [];
  private conflictCount = 0;
  /** The edit being sent, if any: the next waits for it. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      readonly client: CellarClient;
      readonly fileId: string;
      readonly sheet: string;
      readonly csv: boolean;
      readonly windows: CellWindows;
      /** After each edit saved, and after each conflict: the cells in view are to be asked for again. */
      readonly onRefresh: () => void;
      /** The file at its new version, and the bottom right cell the edit reached. */
      readonly onSaved: (file: CellarFile, reach: { bottom: number; right: number }) => void;
      /** A change of structure undone or redone: the file at its new version (rows and columns moved). */
      readonly onStructure?: (file: CellarFile) => void;
    },
  ) {}

  /**
   * Writes `values` from (`top`, `left`) as one request, shown at once. Edits are sent one
   * after another, each based on the cells as the one before left them: a cell changed
   * twice in a row is no conflict with oneself.
   */
  write(edit: CellEdit): Promise<void> {
    const rows = edit.values.length;
    const columns = edit.values[0]?.length ?? 0;
    if (rows * columns > MOST_CELLS) {
      say(`That is ${(rows * columns).toLocaleString()} cells: Cellar writes at most 50,000 at once.`, "error");
      return Promise.resolve();
    }
    this.options.windows.showPending(edit.top, edit.left, edit.values);
    this.queue = this.queue.then(() => this.send(edit)).catch(() => undefined);
    return this.queue;
  }

  /** Resolves once every edit sent so far is done (saved, refused or in conflict). */
  idle(): Promise<void> {
    return this.queue;
  }

  private async send(edit: CellEdit): Promise<void> {
    const { client, fileId, sheet, windows, csv } = this.options;
    const rows = edit.values.length;
    const columns = edit.values[0]?.length ?? 0;
    const where = rangeText(edit.top, edit.left, rows, columns);
    const step = edit.undoes !== undefined ? "undo" : edit.redoes !== undefined ? "redo" : "edit";
    this.status.value =
      step === "undo"
        ? `Undoing the change to ${where}…`
        : step === "redo"
          ? `Redoing the change to ${where}…`
          : `Saving ${where}…`;
    let expect = edit.expect;
    // Whether the file is known to have changed (this edit saved, or someone else's found): the grid reads it again.
    let changed = false;
    try {
      if (expect === undefined) {
        const base = await this.baseOf(edit.top, edit.left, rows, columns, edit.shown);
        expect = base.raw;
        if (base.changed.length > 0) {
          changed = true;
          await this.conflicted(edit, where, expect, base.changed);
          return;
        }
      }
      // A workbook's cells may hold formulas: what writes them back is read before they go.
      const before =
        csv || step !== "edit" ? expect : await this.typedBlock(edit.top, edit.left, rows, columns, expect);
      const answer = await client.editValues(fileId, {
        range: `${quoted(sheet)}!${columnLetters(edit.left)}${edit.top}`,
        values: edit.values,
        expect,
        input: edit.input ?? "user",
      });
      changed = true;
      windows.put(edit.top, edit.left, edit.values);
      // What the cells hold now, raw (a formula's result, a typed number as a number): what an undo expects.
      // A CSV stores each value as typed.
      const after = async () =>
        csv ? edit.values : await this.read(edit.top, edit.left, rows, columns, "raw").catch(() => edit.values);
      if (edit.undoes !== undefined) {
        this.history.undone(edit.undoes);
        this.status.value = `Undid the change to ${where}.`;
      } else if (edit.redoes !== undefined) {
        edit.redoes.after = await after();
        this.history.redone(edit.redoes);
        this.status.value = `Redid the change to ${where}.`;
      } else {
        this.history.push({
          kind: "cells",
          top: edit.top,
          left: edit.left,
          values: edit.values,
          input: edit.input ?? "user",
          expect,
          after: await after(),
          before,
          beforeInput: csv ? "raw" : "user",
        });
        this.status.value = `Saved ${where}.`;
      }
      this.options.onSaved(answer.file, { bottom: edit.top + rows - 1, right: edit.left + columns - 1 });
    } catch (error) {
      const cells =
        error instanceof CellarApiError && error.code === "precondition_failed" && expect !== undefined
          ? error.details.flatMap((detail) => {
              const cell = detail.cell === undefined ? null : cellOf(detail.cell);
              return cell === null ? [] : [{ ...cell, value: detail.value ?? null }];
            })
          : [];
      if (cells.length > 0 && expect !== undefined) {
        changed = true;
        await this.conflicted(edit, where, expect, cells);
        return;
      }
      // Not saved; an undo or a redo that could not be sent can be tried again.
      this.settleFailed(edit);
      const what = step === "undo" ? "Not undone" : step === "redo" ? "Not redone" : "Not saved";
      this.status.value = `${what}: ${where}.`;
      say(
        step === "edit"
          ? `Your change to ${where} was not saved: ${messageOf(error)}`
          : `Your change to ${where} was not ${step === "undo" ? "undone" : "redone"}: ${messageOf(error)}`,
        "error",
      );
    } finally {
      windows.settle(edit.top, edit.left, edit.values);
      if (changed) {
        windows.refresh();
        this.options.onRefresh();
      }
    }
  }

  /** An undo or a redo not written: back where it was, to be tried again. */
  private settleFailed(edit: CellEdit): void {
    if (edit.undoes !== undefined) this.history.undoFailed(edit.undoes);
    else if (edit.redoes !== undefined) this.history.redoFailed(edit.redoes);
  }

  /** Whether Ctrl+Z has something to undo. */
  get canUndo(): boolean {
    return this.history.canUndo;
  }

  /** Whether Ctrl+Y has something to redo. */
  get canRedo(): boolean {
    return this.history.canRedo;
  }

  /**
   * Sends back what the last edit saved replaced, expecting what it wrote: when someone
   * else changed those cells since, the server refuses it and the conflict names them
   * (never written over unasked). False when there is nothing to undo.
   */
  undo(): boolean {
    const last = this.history.takeUndo();
    if (last === undefined) {
      this.status.value = "Nothing to undo.";
      return false;
    }
    if (last.kind === "structure") {
      this.queue = this.queue.then(() => this.undoStructure(last)).catch(() => undefined);
      return true;
    }
    void this.write({
      top: last.top,
      left: last.left,
      values: last.before,
      expect: last.after,
      input: last.beforeInput,
      undoes: last,
    });
    return true;
  }

  /** Writes the last undone edit again, expecting what the cells held before it. False when there is nothing to redo. */
  redo(): boolean {
    const last = this.history.takeRedo();
    if (last === undefined) {
      this.status.value = "Nothing to redo.";
      return false;
    }
    if (last.kind === "structure") {
      this.queue = this.queue.then(() => this.redoStructure(last)).catch(() => undefined);
      return true;
    }
    void this.write({
      top: last.top,
      left: last.left,
      values: last.values,
      expect: last.expect,
      input: last.input,
      redoes: last,
    });
    return true;
  }

  /**
   * Sends a change of structure of one's own, after the edits before it (`send` says how it
   * went: the file at its new version, or null when refused); once made, Ctrl+Z can undo it.
   */
  changeStructure(operation: StructureOperation, send: () => Promise<CellarFile | null>): Promise<CellarFile | null> {
    const done = this.queue.then(async () => {
      const file = await send();
      if (file !== null) {
        this.history.push({ kind: "structure", operation, version: file.version, sha256: file.sha256, restored: "" });
      }
      return file;
    });
    this.queue = done.then(
      () => undefined,
      () => undefined,
    );
    return done;
  }

  /** Restores the version before a change of structure, unless the file changed since (then it is forgotten, and what came before it). */
  private async undoStructure(entry: SavedStructure): Promise<void> {
    const { client, fileId } = this.options;
    const what = structureStep(entry.operation);
    this.status.value = `Undoing: ${what}…`;
    try {
      const file = await client.restoreVersion(fileId, entry.version - 1, { ifMatch: entry.sha256 });
      entry.restored = file.sha256;
      this.history.undone(entry);
      this.status.value = `Undid: ${what}`;
      this.options.onStructure?.(file);
    } catch (error) {
      this.history.undoFailed(entry);
      if (error instanceof CellarApiError && error.code === "precondition_failed") {
        // What came before it lay where the rows and columns were before it: none of it can be undone now.
        this.history.clear();
        const author = await this.lastAuthor();
        this.status.value = `Not undone: ${author?.name || "someone else"} changed the file since.`;
      } else {
        this.status.value = `Not undone: ${what}`;
        say(`Not undone: ${messageOf(error)}`, "error");
      }
    }
  }

  /** Sends an undone change of structure again, expecting the content its undo restored. */
  private async redoStructure(entry: SavedStructure): Promise<void> {
    const { client, fileId } = this.options;
    const what = structureStep(entry.operation);
    this.status.value = `Redoing: ${what}…`;
    try {
      const file = await client.structure(fileId, [entry.operation], { ifMatch: entry.restored });
      entry.version = file.version;
      entry.sha256 = file.sha256;
      this.history.redone(entry);
      this.status.value = `Redid: ${what}`;
      this.options.onStructure?.(file);
    } catch (error) {
      this.history.redoFailed(entry);
      if (error instanceof CellarApiError && error.code === "precondition_failed") {
        this.history.clear();
        const author = await this.lastAuthor();
        this.status.value = `Not redone: ${author?.name || "someone else"} changed the file since.`;
      } else {
        this.status.value = `Not redone: ${what}`;
        say(`Not redone: ${messageOf(error)}`, "error");
      }
    }
  }

  /** Forgets what could be undone and redone: rows or columns moved under it (someone else's change of structure). */
  clearHistory(): void {
    this.history.clear();
  }

  /** Writes the conflicting edit again, over what is there now. */
  applyMine(): void {
    const conflict = this.conflict.value;
    this.conflict.value = this.conflicts.shift() ?? null;
    if (conflict !== null) void this.write(conflict.edit);
  }

  /** Drops the conflicting edit: the grid shows what is there now (an undo or a redo refused stays to be tried again). */
  discard(): void {
    const conflict = this.conflict.value;
    this.conflict.value = this.conflicts.shift() ?? null;
    if (conflict === null) return;
    this.settleFailed(conflict.edit);
    this.status.value =
      conflict.edit.undoes !== undefined
        ? "Not undone: their change was kept."
        : conflict.edit.redoes !== undefined
          ? "Not redone: their change was kept."
          : "Your change was discarded.";
  }

  private async conflicted(
    edit: CellEdit,
    where: string,
    expect: Block,
    changed: readonly { row: number; column: number; value: CellInput }[],
  ): Promise<void> {
    // Based on the cells as they are now: applying it again writes over them.
    const now = expect.map((row) => [...row]);
    const cells: ChangedCell[] = [];
    for (const cell of changed) {
      const r = cell.row - edit.top;
      const c = cell.column - edit.left;
      const row = now[r];
      if (row === undefined || c < 0 || c >= row.length) continue;
      row[c] = cell.value;
      cells.push({
        reference: `${columnLetters(cell.column)}${cell.row}`,
        theirs: cell.value,
        mine: edit.values[r]?.[c] ?? null,
      });
    }
    const author = await this.lastAuthor();
    const what = edit.undoes !== undefined ? "Not undone" : edit.redoes !== undefined ? "Not redone" : "Not saved";
    this.status.value = `${what}: ${author?.name || "someone else"} changed ${where}.`;
    const conflict = { id: ++this.conflictCount, edit: { ...edit, expect: now }, cells, author };
    if (this.conflict.value === null) this.conflict.value = conflict;
    else this.conflicts.push(conflict);
  }

  /** Who made the file's newest version. */
  private async lastAuthor(): Promise<Person | null> {
    try {
      const versions = await unwrap(
        this.options.client.api.GET("/files/{id}/versions", {
          params: { path: { id: this.options.fileId }, query: { per_page: "1" } },
        }),
      );
      return versions[0]?.author ?? null;
    } catch {
      return null;
    }
  }

  /**
   * What the cells of a block hold, raw, as the edit's `expect`: for a CSV, what the grid
   * showed (read from the server where the grid has not loaded them). A workbook's grid
   * shows cells formatted, so its raw values are read, and a cell whose formatted text is
   * no longer what the grid showed is one someone else changed (`changed`).
   */
  private async baseOf(top: number, left: number, rows: number, columns: number, shownThen?: Block) {
    const { windows, csv } = this.options;
    const shownAt = (r: number, c: number) => {
      const then = shownThen?.[r]?.[c];
      return then === undefined ? windows.stored(top + r, left + c) : { value: then, local: false };
    };
    const raw: Block = Array.from({ length: rows }, () => new Array<CellInput>(columns).fill(null));
    const changed: { row: number; column: number; value: CellInput }[] = [];
    let missing = false;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const shown = shownAt(r, c);
        if (shown === undefined) missing = true;
        else (raw[r] as CellInput[])[c] = shown.value;
      }
    }
    if (csv && !missing) return { raw, changed };
    const [now, formatted] = await Promise.all([
      this.read(top, left, rows, columns, "raw"),
      csv ? null : this.read(top, left, rows, columns, "formatted"),
    ]);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < columns; c++) {
        const shown = shownAt(r, c);
        const value = now[r]?.[c] ?? null;
        // A CSV's cell as the grid showed it; one it had not loaded, or any of a workbook's, as it is now.
        if (csv && shown !== undefined) continue;
        (raw[r] as CellInput[])[c] = value;
        if (!csv && shown !== undefined && !shown.local && shown.value !== (formatted?.[r]?.[c] ?? null)) {
          changed.push({ row: top + r, column: left + c, value });
        }
      }
    }
    return { raw, changed };
  }

  /** What writes a workbook's block back as it holds it now (`raw`): each formula cell's formula, each text behind a `'`. */
  private async typedBlock(top: number, left: number, rows: number, columns: number, raw: Block): Promise<Block> {
    const formulas = await this.read(top, left, rows, columns, "formula");
    return raw.map((row, r) => row.map((value, c) => typedInput(formulas[r]?.[c] ?? null, value)));
  }

  /** A block of cells as the server has them now, `null` past the sheet's end. */
  private async read(
    top: number,
    left: number,
    rows: number,
    columns: number,
    render: "raw" | "formatted" | "formula",
  ): Promise<Block> {
    const bounds = { top, left, bottom: top + rows - 1, right: left + columns - 1 };
    return (await readBlock(this.options, bounds, render)).values;
  }
}
