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
  readonly values: readonly (readonly CellValue[])[];
  readonly types: readonly (readonly (CellType | null)[])[];
}

export interface Cell {
  readonly value: CellValue;
  readonly type: CellType | null;
}

const EMPTY: Cell = { value: null, type: null };

function quoted(sheet: string): string {
  return `'${sheet.replaceAll("'", "''")}'`;
}

/**
 * The cells of one sheet, fetched from `GET /v1/files/:id/values` a block at a time as the
 * grid needs them and kept while they are recent. `onChange` is called when blocks arrive
 * or a request fails, so the grid can paint again. With `formatted`, a workbook's cells come
 * as its program shows them (`render=formatted`), their types beside them all the same, so
 * numbers still line up right.
 */
export class CellWindows {
  private readonly blocks = new Map<string, Block>();
  private readonly asked = new Set<string>();
  private readonly controller = new AbortController();
  /** The last failure, as the API or the network said it; null once a block arrives. */
  error: string | null = null;

  private readonly client: CellarClient;
  private readonly fileId: string;
  private readonly sheet: string;
  private readonly formatted: boolean;
  private readonly onChange: () => void;

  constructor(options: {
    client: CellarClient;
    fileId: string;
    sheet: string;
    formatted: boolean;
    onChange: () => void;
  }) {
    this.client = options.client;
    this.fileId = options.fileId;
    this.sheet = options.sheet;
    this.formatted = options.formatted;
    this.onChange = options.onChange;
  }

  /** A cell by row and column from 1; undefined while its block is not here yet. */
  cell(row: number, column: number): Cell | undefined {
    const blockRow = Math.floor((row - 1) / BLOCK_ROWS);
    const blockColumn = Math.floor((column - 1) / BLOCK_COLUMNS);
    const block = this.blocks.get(`${blockRow}:${blockColumn}`);
    if (block === undefined) return undefined;
    const r = (row - 1) % BLOCK_ROWS;
    const c = (column - 1) % BLOCK_COLUMNS;
    const value = block.values[r]?.[c];
    return value == null ? EMPTY : { value, type: block.types[r]?.[c] ?? null };
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
    const query = { range, types: "true", render: this.formatted ? "formatted" : "raw" } as const;
    this.asked.add(key);
    try {
      const { data, error, response } = await this.client.api.GET("/files/{id}/values", {
        params: { path: { id: this.fileId }, query },
        signal: this.controller.signal,
      });
      if (data === undefined) throw await apiError(response, error);
      this.blocks.set(key, { values: data.values, types: data.types ?? [] });
      while (this.blocks.size > KEPT_BLOCKS) this.blocks.delete(this.blocks.keys().next().value as string);
      this.error = null;
    } catch (error) {
      if (this.controller.signal.aborted) return;
      this.error = messageOf(error);
    } finally {
      this.asked.delete(key);
    }
    this.onChange();
  }
}
