import {
  type CellRender,
  type CellType,
  type CellValue,
  type OpenBytes,
  type ReadableSheetIndex,
  type SheetWrites,
  type SpreadsheetReader,
  SpreadsheetUnreadableError,
  type SpreadsheetWriter,
  type WrittenContent,
} from "../../src/index.js";
import { buildZip, WORKBOOK_ENTRIES } from "../../src/testing/index.js";

/**
 * A toy CSV and a toy workbook for core's own tests of reading and writing cells (the real reader and
 * writer, @cellar/adapter-sheets, depend on core): one record a line, fields apart by
 * commas, never quoted. An empty field is no value, `TRUE`/`FALSE` a boolean, a plain
 * decimal a number, anything else text. Its one sheet is named `data`. The toy workbook
 * is a ZIP that passes for an .xlsx, its one sheet (`Sheet1`) kept as JSON in one entry:
 * its cells (a formula cell holds its result), its formulas by cell (`row:column`, without
 * `=`), and the number formats written.
 */
export type Grid = CellValue[][];

export const TOY_SHEET = "data";

export function parseToyCsv(text: string): Grid {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.map((line) => line.split(",").map(parseField));
}

function parseField(field: string): CellValue {
  if (field === "") return null;
  if (field === "TRUE" || field === "FALSE") return field === "TRUE";
  if (/^-?\d+(\.\d+)?$/.test(field)) return Number(field);
  return field;
}

export function formatToyCsv(grid: Grid): string {
  const width = Math.max(0, ...grid.map((row) => row.length));
  return grid
    .map((row) => {
      const cells = [...row];
      while (cells.length < width) cells.push(null);
      return `${cells.map(formatField).join(",")}\n`;
    })
    .join("");
}

function formatField(value: CellValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "string" && /[,\n]/.test(value)) {
    throw new SpreadsheetUnreadableError("the toy CSV quotes no field");
  }
  return String(value);
}

export interface ToyWorkbook {
  readonly cells: Grid;
  readonly formulas: Record<string, string>;
  readonly formats?: Record<string, string>;
  /** False: the workbook has more formulas than Cellar computes, as a reader says. */
  readonly complete?: boolean;
}

export const TOY_WORKBOOK_SHEET = "Sheet1";
const TOY_ENTRY = "toy.json";

export function toyWorkbook(workbook: ToyWorkbook): Buffer {
  return buildZip([...WORKBOOK_ENTRIES, { name: TOY_ENTRY, data: JSON.stringify(workbook) }]);
}

/** The toy workbook a ZIP of `toyWorkbook` holds: its entries are stored, so read where they are. */
export function parseToyWorkbook(bytes: Buffer): ToyWorkbook {
  for (let at = 0; bytes.readUInt32LE(at) === 0x04034b50; ) {
    const size = bytes.readUInt32LE(at + 18);
    const nameLength = bytes.readUInt16LE(at + 26);
    const start = at + 30 + nameLength + bytes.readUInt16LE(at + 28);
    if (bytes.toString("utf8", at + 30, at + 30 + nameLength) === TOY_ENTRY) {
      return JSON.parse(bytes.toString("utf8", start, start + size)) as ToyWorkbook;
    }
    at = start + size;
  }
  throw new SpreadsheetUnreadableError("the toy workbook has no toy.json");
}

async function bytesOf(open: OpenBytes): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await open()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function typeOf(value: CellValue): CellType | null {
  if (value === null) return null;
  return typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string";
}

export async function readAll(open: OpenBytes): Promise<string> {
  return (await bytesOf(open)).toString("utf8");
}

/** The index a reader gives of `grid`: its extent, as `analyse` makes it. */
export function toyIndex(grid: Grid, workbook?: ToyWorkbook): ReadableSheetIndex {
  const rowCount = grid.findLastIndex((row) => row.some((value) => value !== null)) + 1;
  const columnCount = Math.max(0, ...grid.map((row) => row.findLastIndex((value) => value !== null) + 1));
  const sheet = {
    index: 0,
    name: workbook === undefined ? TOY_SHEET : TOY_WORKBOOK_SHEET,
    rowCount,
    columnCount,
    headerRow: false,
    columnTypes: [],
    formulaLikeCells: 0,
  };
  if (workbook === undefined) {
    return {
      readable: true,
      version: 1,
      sheets: [sheet],
      checkpoints: [{ every: 1024, offsets: [0] }],
      csv: { encoding: "utf-8", delimiter: ",", bom: false },
    };
  }
  return {
    readable: true,
    version: 1,
    sheets: [{ ...sheet, formulaCells: Object.keys(workbook.formulas).length }],
    checkpoints: [{ every: 1024, offsets: [0], end: 0 }],
    xlsx: { date1904: false, numberFormats: [] },
  };
}

/**
 * Reads the toy CSV and the toy workbook: `formatted` gives every value as its text,
 * `formula` a formula cell's formula. A workbook's formulas are kept in its rows blob, as
 * a real reader keeps them, for `formulas`. `withFind` adds the reader's own search. The
 * calls record what was asked of it.
 */
export function toyReader(options: { withFind?: boolean } = {}) {
  const calls = { analyse: 0, windows: 0, finds: 0, formulas: 0 };
  const cellsOf = async (kind: string, open: OpenBytes): Promise<{ grid: Grid; workbook?: ToyWorkbook }> => {
    if (kind === "csv") return { grid: parseToyCsv(await readAll(open)) };
    const workbook = parseToyWorkbook(await bytesOf(open));
    return { grid: workbook.cells, workbook };
  };
  const shown = (value: CellValue, render: CellRender | undefined, formula: string | undefined): CellValue => {
    if (render === "formula" && formula !== undefined) return formula;
    return render === "formatted" && value !== null ? formatField(value) : value;
  };
  const reader: SpreadsheetReader = {
    version: 1,
    async analyse({ kind, openFile, writeRows }) {
      calls.analyse++;
      if (kind === "csv") {
        const text = await readAll(openFile);
        if (text.startsWith("!")) throw new SpreadsheetUnreadableError("the toy CSV starts with no !");
        return toyIndex(parseToyCsv(text));
      }
      const workbook = parseToyWorkbook(await bytesOf(openFile));
      await writeRows(once(Buffer.from(JSON.stringify(workbook))));
      return toyIndex(workbook.cells, workbook);
    },
    async window({ kind, openFile, rectangle, render }) {
      calls.windows++;
      const { grid, workbook } = await cellsOf(kind, openFile);
      const values: CellValue[][] = [];
      for (let row = rectangle.firstRow; row <= rectangle.lastRow; row++) {
        const line: CellValue[] = [];
        for (let column = rectangle.firstColumn; column <= rectangle.lastColumn; column++) {
          const value = grid[row - 1]?.[column - 1] ?? null;
          line.push(shown(value, render, workbook?.formulas[`${row}:${column}`]));
        }
        values.push(line);
      }
      return { values, types: values.map((line) => line.map((value) => typeOf(value))) };
    },
    async formulas({ openRows }) {
      calls.formulas++;
      const workbook = JSON.parse(await readAll(openRows)) as ToyWorkbook;
      const formulas = Object.entries(workbook.formulas).map(([cell, formula]) => {
        const [row, column] = cell.split(":").map(Number) as [number, number];
        return { sheet: 0, row, column, formula };
      });
      formulas.sort((a, b) => a.row - b.row || a.column - b.column);
      return { formulas, unstored: formulas.map(() => false), names: [], complete: workbook.complete ?? true };
    },
    async *convert({ openFile }) {
      yield Buffer.from(await readAll(openFile));
    },
  };
  if (options.withFind) {
    reader.find = ({ openFile, key }) => {
      calls.finds++;
      return (async function* () {
        const grid = parseToyCsv(await readAll(openFile));
        for (const [r, row] of grid.entries()) {
          for (const [c, value] of row.entries()) {
            if (value !== null && formatField(value).toLowerCase().includes(key)) {
              yield [r + 1, c + 1, formatField(value)] as const;
            }
          }
        }
      })();
    };
  }
  return { reader, calls };
}

function setCell(grid: Grid, row: number, column: number, value: CellValue): void {
  while (grid.length < row) grid.push([]);
  const cells = grid[row - 1] as CellValue[];
  while (cells.length < column - 1) cells.push(null);
  cells[column - 1] = value;
}

/** The cells after `sheets`' writes; in a workbook, its formulas and formats too. */
function applied(workbook: ToyWorkbook, sheets: readonly SheetWrites[]): ToyWorkbook {
  const cells = workbook.cells.map((row) => [...row]);
  const formulas = { ...workbook.formulas };
  const formats = { ...workbook.formats };
  for (const sheet of sheets) {
    for (const write of sheet.writes) {
      write.values.forEach((line, r) => {
        line.forEach((value, c) => {
          const [row, column] = [write.rectangle.firstRow + r, write.rectangle.firstColumn + c];
          const formula = write.formulas?.[r]?.[c] ?? null;
          if (formula === null) delete formulas[`${row}:${column}`];
          else formulas[`${row}:${column}`] = formula;
          const format = write.formats?.[r]?.[c] ?? null;
          if (format !== null) formats[`${row}:${column}`] = format;
          setCell(cells, row, column, value);
        });
      });
    }
    for (const result of sheet.results ?? []) {
      const value = result.value;
      setCell(cells, result.row, result.column, typeof value === "object" && value !== null ? value.error : value);
    }
  }
  return { ...workbook, cells, formulas, formats };
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/**
 * Writes the toy CSV: the whole file again (`content`), or, for rows after its last
 * record, just those rows (`added`). Its calls record what was asked of it;
 * `beforeWrite` runs before each write is made, as another writer would, meanwhile.
 * `keepsIndex: false` makes it a writer that leaves the index to be read through again.
 */
export function toyWriter(
  options: { beforeWrite?: () => Promise<void>; keepsIndex?: boolean; restructures?: boolean } = {},
) {
  const calls = { writes: 0, added: 0, contents: 0, restructures: 0 };
  const written = (kind: string, open: () => Promise<ToyWorkbook>, old: () => Promise<string>): WrittenContent => {
    let next: ToyWorkbook | null = null;
    const make = async () => {
      if (next === null) {
        await options.beforeWrite?.();
        next = await open();
      }
      return next;
    };
    return {
      content: (async function* () {
        calls.contents++;
        const made = await make();
        yield kind === "csv" ? Buffer.from(formatToyCsv(made.cells)) : toyWorkbook(made);
      })(),
      // A workbook's rows blob is written by the reader alone: its index is made again.
      index: () => (options.keepsIndex === false || next === null || kind !== "csv" ? null : toyIndex(next.cells)),
      async added() {
        calls.added++;
        if (kind !== "csv") return null;
        const before = await old();
        const after = formatToyCsv((await make()).cells);
        return after.startsWith(before) && after.length > before.length
          ? once(Buffer.from(after.slice(before.length)))
          : null;
      },
    };
  };
  const writer: SpreadsheetWriter = {
    write({ kind, openFile, sheets }) {
      calls.writes++;
      return written(
        kind,
        async () =>
          applied(
            kind === "csv"
              ? { cells: parseToyCsv(await readAll(openFile)), formulas: {} }
              : parseToyWorkbook(await bytesOf(openFile)),
            sheets,
          ),
        () => readAll(openFile),
      );
    },
  };
  if (options.restructures !== false) {
    writer.restructure = ({ kind, openFile, operations }) => {
      calls.restructures++;
      return written(
        kind,
        async () => {
          const grid = parseToyCsv(await readAll(openFile));
          for (const operation of operations) {
            if (operation.kind === "insert_rows") {
              grid.splice(operation.at - 1, 0, ...Array.from({ length: operation.count }, () => []));
            } else if (operation.kind === "delete_rows") {
              grid.splice(operation.at - 1, operation.count);
            } else {
              throw new SpreadsheetUnreadableError(`the toy CSV cannot ${operation.kind.replace("_", " ")}`);
            }
          }
          return { cells: grid, formulas: {} };
        },
        () => readAll(openFile),
      );
    };
  }
  return { writer, calls };
}
