/** Steps Ctrl+Z can go back, as many as the grid's edits kept before (and Google Sheets' feel). */
export const HISTORY_STEPS = 50;

/** An entry taken to be undone or redone, until the grid says how that went. */
interface Taken<Entry> {
  readonly entry: Entry;
  readonly from: "undo" | "redo";
  /** Its place in the stack it was taken from, to go back to if it fails. */
  readonly index: number;
  /** The count of entries pushed when it was taken: a push since then empties the redo stack. */
  readonly pushes: number;
  /** The count of clears when it was taken: after one, it is forgotten. */
  readonly clears: number;
}

/**
 * Undo and redo stacks of a grid's edits, with nothing of the browser or the network in
 * them. An undo is two steps, since it is a request that may fail (a conflict, the network):
 * `takeUndo()` takes the last entry off the undo stack while its inverse is sent, then
 * `undone(entry)` puts it on the redo stack, or `undoFailed(entry)` back where it was.
 * Redo likewise. A new edit (`push`) empties the redo stack, an entry being undone at the
 * time included: what it would redo was made on cells that have changed since.
 *
 * Each entry is an edit: the range, the values written (after) and the values before;
 * undo writes `before` expecting `after`, redo writes `after` expecting `before`.
 */
export class EditHistory<Entry> {
  private readonly undoStack: Entry[] = [];
  private readonly redoStack: Entry[] = [];
  private readonly taken: Taken<Entry>[] = [];
  private pushes = 0;
  private clears = 0;

  /**
   * @param steps how many edits are kept (the oldest go first).
   * @param onChange called after every change: e.g. to update a signal that enables the Undo and Redo buttons.
   */
  constructor(
    private readonly steps = HISTORY_STEPS,
    private readonly onChange: () => void = () => {},
  ) {}

  /** Whether there is an edit to undo. */
  get canUndo(): boolean {
    return this.undoStack.length > 0;
  }

  /** Whether there is an undone edit to redo. */
  get canRedo(): boolean {
    return this.redoStack.length > 0;
  }

  /** The edits that can be undone, oldest first. */
  get undoEntries(): readonly Entry[] {
    return this.undoStack;
  }

  /** The edits that can be redone, the next to redo last. */
  get redoEntries(): readonly Entry[] {
    return this.redoStack;
  }

  /** Whether an undo or a redo is on its way (taken, not yet settled). */
  get busy(): boolean {
    return this.taken.length > 0;
  }

  /** A new edit, saved: it can be undone, and nothing undone before it can be redone. */
  push(entry: Entry): void {
    this.pushes++;
    this.redoStack.length = 0;
    this.pushOnto(this.undoStack, entry);
    this.onChange();
  }

  /** The last edit, taken off the undo stack while its inverse is written; undefined when there is none. */
  takeUndo(): Entry | undefined {
    return this.take("undo");
  }

  /** Its inverse was written: it can be redone (unless a new edit came meanwhile). */
  undone(entry: Entry): void {
    const taken = this.settle(entry, "undo");
    if (taken.pushes === this.pushes && taken.clears === this.clears) this.pushOnto(this.redoStack, entry);
    this.onChange();
  }

  /** Its inverse could not be written: it goes back where it was, to be undone later. */
  undoFailed(entry: Entry): void {
    const taken = this.settle(entry, "undo");
    if (taken.clears === this.clears) this.putBack(taken, this.undoStack);
    else this.onChange();
  }

  /** The last undone edit, taken off the redo stack while it is written again; undefined when there is none. */
  takeRedo(): Entry | undefined {
    return this.take("redo");
  }

  /** It was written again: it can be undone again. */
  redone(entry: Entry): void {
    const taken = this.settle(entry, "redo");
    if (taken.clears === this.clears) this.pushOnto(this.undoStack, entry);
    this.onChange();
  }

  /** It could not be written again: it goes back where it was on the redo stack (unless a new edit emptied it meanwhile). */
  redoFailed(entry: Entry): void {
    const taken = this.settle(entry, "redo");
    if (taken.pushes === this.pushes && taken.clears === this.clears) this.putBack(taken, this.redoStack);
    else this.onChange();
  }

  /** Forgets everything (another sheet or file shown). An entry on its way is forgotten too when it settles. */
  clear(): void {
    this.undoStack.length = 0;
    this.redoStack.length = 0;
    this.clears++;
    this.onChange();
  }

  private take(from: "undo" | "redo"): Entry | undefined {
    const stack = from === "undo" ? this.undoStack : this.redoStack;
    if (stack.length === 0) return undefined;
    const entry = stack.pop() as Entry;
    this.taken.push({ entry, from, index: stack.length, pushes: this.pushes, clears: this.clears });
    this.onChange();
    return entry;
  }

  /** The record of an entry taken from `from`, removed; a programming error when there is none. */
  private settle(entry: Entry, from: "undo" | "redo"): Taken<Entry> {
    const index = this.taken.findIndex((taken) => taken.entry === entry && taken.from === from);
    const taken = this.taken[index];
    if (taken === undefined) throw new Error(`That entry was not taken to ${from}.`);
    this.taken.splice(index, 1);
    return taken;
  }

  /** An entry back at its place in its stack (kept below what came after it), the stack still at most `steps` long. */
  private putBack(taken: Taken<Entry>, stack: Entry[]): void {
    stack.splice(Math.min(taken.index, stack.length), 0, taken.entry);
    if (stack.length > this.steps) stack.splice(0, stack.length - this.steps);
    this.onChange();
  }

  private pushOnto(stack: Entry[], entry: Entry): void {
    stack.push(entry);
    if (stack.length > this.steps) stack.splice(0, stack.length - this.steps);
  }
}
