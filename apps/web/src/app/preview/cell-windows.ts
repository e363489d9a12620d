import { apiError, type CellarClient } from "@cellar/client";
import { messageOf } from "../messages.js";
import { type CellType, type CellValue, columnLetters } from "./cell-text.js";

/**
 * A block of cells, the unit the grid asks the API for: 200 rows by 25 columns (5,000
 * cells, a tenth of the API's 50,000 limit). A screenful of cells touches at most four
 * blocks, so scrolling costs a few small requests, and the rate limit (600 a minute by
 * default) is far away even for a reader who keeps scrolling.
 */
export const BLOCK_ROWS = 200;
export const BLOCK_COLUMNS = 25;
/** Blocks kept: the last 64 used (320,000 cells), enough to scroll back without asking again. */
const KEPT_BLOCKS = 64;

interface Block {
  readonly values: (readonly CellValue[])[];
  readonly types: (readonly (CellType | null)[])[];
  /** Which `refresh` it came from: one from before the last is shown until it comes again. */
  readonly generation: number;
  /** Cells this page wrote (`put`) since the block came: their raw values, not as the server shows them. */
  written?: Set<number>;
}

export interface Cell {
  readonly value: CellValue;
  readonly type: CellType | null;
  /** A value this page is writing (not saved yet), or wrote and has not read back yet. */
  readonly local?: boolean;
}

const EMPTY: Cell = { value: null, type: null };

/** A sheet's name as a range names it: quoted, always (`'Q1 Budget'`, `''` for a quote). */
export function quoted(sheet: string): string {
  return `'${sheet.replaceAll("'", "''")}'`;
}

/** A cell's type as the grid lines it up, for a value this page wrote. */
function typeOf(value: CellValue): CellType | null {
  if (value === null) return null;
  return typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string";
}

/**
 * The cells of one sheet, fetched from `GET /v1/files/:id/values` a block at a time as the
 * grid needs them and kept while they are recent. `onChange` is called when blocks arrive
 * or a request fails, so the grid can paint again. With `render: "formatted"`, a workbook's
 * cells come as its program shows them, their types beside them all the same, so numbers
 * still line up right; with `render: "formula"`, each formula cell as its formula.
 */
export class CellWindows {
  private readonly blocks = new Map<string, Block>();
  private readonly asked = new Set<string>();
  /** Values being written, shown over the blocks' until their request is done: by `row:column`. */
  private readonly pending = new Map<string, CellValue>();
  /** Bumped by `refresh`: blocks from an earlier generation are asked for again. */
  private generation = 0;
  private readonly controller = new AbortController();
  /** The last failure, as the API or the network said it; null once a block arrives. */
  error: string | null = null;

  private readonly client: CellarClient;
  private readonly fileId: string;
  private readonly sheet: string;
  private readonly render: "raw" | "formatted" | "formula";
  private readonly onChange: () => void;

  constructor(options: {
    client: CellarClient;
    fileId: string;
    sheet: string;
    render: "raw" | "formatted" | "formula";
    onChange: () => void;
  }) {
    this.client = options.client;
    this.fileId = options.fileId;
    this.sheet = options.sheet;
    this.render = options.render;
    this.onChange = options.onChange;
  }

  /** A cell by row and column from 1, as shown (a value being written, if any); undefined while its block is not here yet. */
  cell(row: number, column: number): Cell | undefined {
    if (this.pending.size > 0) {
      const key = `${row}:${column}`;
      if (this.pending.has(key)) {
        const value = this.pending.get(key) ?? null;
        return { value, type: typeOf(value), local: true };
      }
    }
    return this.stored(row, column);
  }

  /** A cell as its block holds it, without the values being written; undefined while its block is not here yet. */
  stored(row: number, column: number): Cell | undefined {
    const block = this.blocks.get(blockKey(row, column));
    if (block === undefined) return undefined;
    const r = (row - 1) % BLOCK_ROWS;
    const c = (column - 1) % BLOCK_COLUMNS;
    const value = block.values[r]?.[c];
    const local = block.written?.has(r * BLOCK_COLUMNS + c) === true;
    if (value == null) return local ? { ...EMPTY, local } : EMPTY;
    return { value, type: block.types[r]?.[c] ?? null, ...(local ? { local } : {}) };
  }

  /** Shows `values` from (`top`, `left`) while they are written; `settle` takes them away again. */
  showPending(top: number, left: number, values: readonly (readonly CellValue[])[]): void {
    for (const [r, row] of values.entries()) {
      for (const [c, value] of row.entries()) this.pending.set(`${top + r}:${left + c}`, value);
    }
    this.onChange();
  }

  /** Takes away the pending values an edit showed (when it is done, either way). */
  settle(top: number, left: number, values: readonly (readonly CellValue[])[]): void {
    for (const [r, row] of values.entries()) {
      for (let c = 0; c < row.length; c++) this.pending.delete(`${top + r}:${left + c}`);
    }
    this.onChange();
  }

  /**
   * Writes values saved by this page into the blocks held, so they show at once: as
   * written (a workbook's number not yet in its format) until `refresh` brings them back.
   */
  put(top: number, left: number, values: readonly (readonly CellValue[])[]): void {
    values.forEach((row, r) => {
      row.forEach((value, c) => {
        const block = this.blocks.get(blockKey(top + r, left + c));
        if (block === undefined) return;
        const br = (top + r - 1) % BLOCK_ROWS;
        const bc = (left + c - 1) % BLOCK_COLUMNS;
        while (block.values.length <= br) block.values.push([]);
        while (block.types.length <= br) block.types.push([]);
        const valuesRow = [...(block.values[br] ?? [])];
        const typesRow = [...(block.types[br] ?? [])];
        valuesRow[bc] = value;
        typesRow[bc] = typeOf(value);
        block.values[br] = valuesRow;
        block.types[br] = typesRow;
        block.written ??= new Set();
        block.written.add(br * BLOCK_COLUMNS + bc);
      });
    });
    this.onChange();
  }

  /**
   * The file changed (an edit was saved): every block held is asked for again when next
   * wanted, and shown as it was until then.
   */
  refresh(): void {
    this.generation++;
  }

  /** Whether a cell's block is here as the last `refresh` asked for it (read since), not one shown until it comes again. */
  fresh(row: number, column: number): boolean {
    return this.blocks.get(blockKey(row, column))?.generation === this.generation;
  }

  /** Whether any cell of these rows and columns (from 1, inclusive) is still on its way. */
  loading(firstRow: number, lastRow: number, firstColumn: number, lastColumn: number): boolean {
    return this.missing(firstRow, lastRow, firstColumn, lastColumn).some((key) => this.asked.has(key));
  }

  /** Asks for every block these rows and columns touch that is neither here nor asked for. */
  want(firstRow: number, lastRow: number, firstColumn: number, lastColumn: number): void {
    for (const key of this.missing(firstRow, lastRow, firstColumn, lastColumn)) {
      if (!this.asked.has(key)) void this.fetch(key);
    }
  }

  /** Stops every request still under way: the grid is closed. */
  close(): void {
    this.controller.abort();
  }

  private missing(firstRow: number, lastRow: number, firstColumn: number, lastColumn: number): string[] {
    const keys: string[] = [];
    for (let r = Math.floor((firstRow - 1) / BLOCK_ROWS); r <= Math.floor((lastRow - 1) / BLOCK_ROWS); r++) {
      for (
        let c = Math.floor((firstColumn - 1) / BLOCK_COLUMNS);
        c <= Math.floor((lastColumn - 1) / BLOCK_COLUMNS);
        c++
      ) {
        const key = `${r}:${c}`;
        const block = this.blocks.get(key);
        if (block === undefined) keys.push(key);
        else {
          if (block.generation < this.generation) keys.push(key);
          // Used again: it becomes the most recent (a Map keeps insertion order).
          this.blocks.delete(key);
          this.blocks.set(key, block);
        }
      }
    }
    return keys;
  }

  private async fetch(key: string): Promise<void> {
    const [blockRow, blockColumn] = key.split(":").map(Number) as [number, number];
    const top = blockRow * BLOCK_ROWS + 1;
    const left = blockColumn * BLOCK_COLUMNS + 1;
    const range = `${quoted(this.sheet)}!${columnLetters(left)}${top}:${columnLetters(left + BLOCK_COLUMNS - 1)}${top + BLOCK_ROWS - 1}`;
    const query = { range, types: "true", render: this.render } as const;
    const generation = this.generation;
    this.asked.add(key);
    try {
      const { data, error, response } = await this.client.api.GET("/files/{id}/values", {
        params: { path: { id: this.fileId }, query },
        signal: this.controller.signal,
      });
      if (data === undefined) throw await apiError(response, error);
      // An answer from before a refresh does not replace what an edit since put in.
      if (generation === this.generation || !this.blocks.has(key)) {
        this.blocks.delete(key);
        this.blocks.set(key, { values: [...data.values], types: [...(data.types ?? [])], generation });
      }
      while (this.blocks.size > KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as string);
      this.error = null;
    } catch (error) {
      if (this.controller.signal.aborted) return;
      this.error = messageOf(error);
    } finally {
      this.asked.delete(key);
    }
    // Refreshed while it was on its way: asked for again, as it is now.
    if (generation !== this.generation && !this.controller.signal.aborted) void this.fetch(key);
    this.onChange();
  }
}

function blockKey(row: number, column: number): string {
  return `${Math.floor((row - 1) / BLOCK_ROWS)}:${Math.floor((column - 1) / BLOCK_COLUMNS)}`;
}
