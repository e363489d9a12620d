import { describe, expect, it } from "vitest";
import { EditHistory, HISTORY_STEPS } from "../src/app/preview/history.js";

/** An edit as the grid keeps it: where, what it wrote, and what the cells held before. */
interface Edit {
  readonly top: number;
  readonly left: number;
  readonly before: readonly (string | null)[][];
  readonly after: readonly (string | null)[][];
}

/**
 * A sheet that, like the server, writes a block only when its cells hold what the write
 * expects (otherwise a conflict): enough to play edits, undos and redos through a history.
 */
class Sheet {
  readonly cells = new Map<string, string | null>();

  read(top: number, left: number, rows: number, columns: number): (string | null)[][] {
    return Array.from({ length: rows }, (_, row) =>
      Array.from({ length: columns }, (_, column) => this.cells.get(`${top + row}:${left + column}`) ?? null),
    );
  }

  write(top: number, left: number, values: readonly (string | null)[][], expect: readonly (string | null)[][]) {
    const held = this.read(top, left, values.length, values[0]?.length ?? 0);
    if (JSON.stringify(held) !== JSON.stringify(expect)) return false;
    values.forEach((line, row) => {
      line.forEach((value, column) => {
        this.cells.set(`${top + row}:${left + column}`, value);
      });
    });
    return true;
  }

  /** An edit made and remembered, as the grid would. */
  edit(history: EditHistory<Edit>, top: number, left: number, after: (string | null)[][]) {
    const before = this.read(top, left, after.length, after[0]?.length ?? 0);
    expect(this.write(top, left, after, before)).toBe(true);
    history.push({ top, left, before, after });
  }

  /** Ctrl+Z: the last edit's `before` written, expecting its `after`. */
  undo(history: EditHistory<Edit>): boolean {
    const entry = history.takeUndo();
    if (entry === undefined) return false;
    const written = this.write(entry.top, entry.left, entry.before, entry.after);
    if (written) history.undone(entry);
    else history.undoFailed(entry);
    return written;
  }

  /** Ctrl+Y: the last undone edit's `after` written, expecting its `before`. */
  redo(history: EditHistory<Edit>): boolean {
    const entry = history.takeRedo();
    if (entry === undefined) return false;
    const written = this.write(entry.top, entry.left, entry.after, entry.before);
    if (written) history.redone(entry);
    else history.redoFailed(entry);
    return written;
  }
}

describe("undo and redo of a grid's edits", () => {
  it("undoes edits last first, and redoes them, the cells back as they were each time", () => {
    const sheet = new Sheet();
    const history = new EditHistory<Edit>();
    sheet.edit(history, 1, 1, [["a", "b"]]);
    sheet.edit(history, 1, 2, [["c"], ["d"]]);
    expect(sheet.read(1, 1, 2, 2)).toEqual([
      ["a", "c"],
      [null, "d"],
    ]);
    expect(sheet.undo(history)).toBe(true);
    expect(sheet.read(1, 1, 2, 2)).toEqual([
      ["a", "b"],
      [null, null],
    ]);
    expect(sheet.undo(history)).toBe(true);
    expect(sheet.read(1, 1, 2, 2)).toEqual([
      [null, null],
      [null, null],
    ]);
    expect(history.canUndo).toBe(false);
    expect(sheet.undo(history)).toBe(false);
    expect(sheet.redo(history)).toBe(true);
    expect(sheet.redo(history)).toBe(true);
    expect(sheet.read(1, 1, 2, 2)).toEqual([
      ["a", "c"],
      [null, "d"],
    ]);
    expect(history.canRedo).toBe(false);
  });

  it("keeps an undo that failed (someone changed the cells) to try again, and an edit since then ends the redos", () => {
    const sheet = new Sheet();
    const history = new EditHistory<Edit>();
    sheet.edit(history, 1, 1, [["mine"]]);
    sheet.cells.set("1:1", "theirs");
    expect(sheet.undo(history)).toBe(false);
    expect(history.undoEntries).toHaveLength(1);
    expect(history.canRedo).toBe(false);
    sheet.cells.set("1:1", "mine");
    expect(sheet.undo(history)).toBe(true);
    expect(history.canRedo).toBe(true);
    sheet.edit(history, 5, 5, [["new"]]);
    expect(history.canRedo).toBe(false);
  });

  it("keeps a redo that failed, to try again", () => {
    const sheet = new Sheet();
    const history = new EditHistory<Edit>();
    sheet.edit(history, 1, 1, [["mine"]]);
    sheet.undo(history);
    sheet.cells.set("1:1", "theirs");
    expect(sheet.redo(history)).toBe(false);
    expect(history.redoEntries).toHaveLength(1);
    expect(history.canUndo).toBe(false);
  });
});

describe("the history's stacks", () => {
  it("keeps the last 50 edits, the oldest going first", () => {
    const history = new EditHistory<number>();
    for (let edit = 1; edit <= 60; edit++) history.push(edit);
    expect(HISTORY_STEPS).toBe(50);
    expect(history.undoEntries).toHaveLength(50);
    expect(history.undoEntries[0]).toBe(11);
    const undone: number[] = [];
    for (let entry = history.takeUndo(); entry !== undefined; entry = history.takeUndo()) {
      history.undone(entry);
      undone.push(entry);
    }
    expect(undone).toEqual(Array.from({ length: 50 }, (_, index) => 60 - index));
    expect(history.redoEntries.at(-1)).toBe(11);
  });

  it("puts a failed undo back below the edits pushed while it was on its way", () => {
    const history = new EditHistory<string>();
    history.push("a");
    history.push("b");
    const taken = history.takeUndo();
    expect(taken).toBe("b");
    expect(history.busy).toBe(true);
    history.push("c");
    history.undoFailed("b");
    expect(history.busy).toBe(false);
    expect(history.undoEntries).toEqual(["a", "b", "c"]);
  });

  it("does not offer to redo an undo that settled after a new edit", () => {
    const history = new EditHistory<string>();
    history.push("a");
    const taken = history.takeUndo() as string;
    history.push("b");
    history.undone(taken);
    expect(history.redoEntries).toEqual([]);
    expect(history.undoEntries).toEqual(["b"]);
  });

  it("settles several undos on their way in turn, redoing the earliest undone last", () => {
    const history = new EditHistory<string>();
    for (const entry of ["a", "b", "c"]) history.push(entry);
    const first = history.takeUndo() as string;
    const second = history.takeUndo() as string;
    history.undone(first);
    history.undone(second);
    expect(history.takeRedo()).toBe("b");
  });

  it("forgets everything on clear, an undo on its way included", () => {
    const history = new EditHistory<string>();
    history.push("a");
    history.push("b");
    const taken = history.takeUndo() as string;
    history.clear();
    history.undoFailed(taken);
    expect(history.canUndo).toBe(false);
    expect(history.canRedo).toBe(false);
  });

  it("refuses to settle an entry it did not give out", () => {
    const history = new EditHistory<string>();
    history.push("a");
    expect(() => history.undone("a")).toThrow(/not taken to undo/);
    const taken = history.takeUndo() as string;
    expect(() => history.redone(taken)).toThrow(/not taken to redo/);
    expect(history.takeRedo()).toBeUndefined();
  });

  it("says when it changes, for the Undo and Redo buttons", () => {
    let changes = 0;
    const history = new EditHistory<string>(3, () => changes++);
    history.push("a");
    const taken = history.takeUndo() as string;
    history.undone(taken);
    history.redone(history.takeRedo() as string);
    history.clear();
    expect(changes).toBe(6);
  });
});
