import { once } from "node:events";
import { PassThrough } from "node:stream";
import {
  type CellGrid,
  type CellRectangle,
  type CellRender,
  type CellType,
  type CellValue,
  COMPUTE_LIMITS,
  computeFormulas,
  type FormulaEngine,
  type FormulaGraph,
  type FormulaNode,
  type FormulaValue,
  isoToSerial,
  type KeptFormulas,
  MAX_COLUMNS,
  type OpenBytes,
  type ReadableSheetIndex,
  type RowCheckpoints,
  type SheetLayout,
  type SheetSummary,
  SpreadsheetUnreadableError,
  serialToIso,
} from "@cellar/core";
import { GUESSED_COLUMNS, GUESSED_ROWS, guessColumns } from "../column-guess.js";
import { looksLikeFormula } from "../csv/csv-fields.js";
import { createCellText } from "./cell-text.js";
import { createFormatTable } from "./number-formats.js";
import { createLayoutReader, type LayoutAllowance, layoutAllowance } from "./sheet-layout.js";
import {
  type FoundCell,
  keptFormulaLines,
  type RowFormula,
  storedCells,
  storedFormats,
  storedFormulas,
  storedLine,
  storedRows,
} from "./stored-rows.js";
import {
  CellsNeeded,
  type FormulaElement,
  type FormulaHooks,
  LoadedCells,
  WorkbookFormulas,
  workbookGraph,
} from "./workbook-formulas.js";
import { type NumberKind, readTables, readWorkbook, unescapeXstring, type Workbook } from "./workbook-parts.js";
import { parseXmlPart } from "./xml-parts.js";
import { openZipArchive, type ZipArchive } from "./zip-archive.js";

/** The last row a worksheet can have. */
export const MAX_XLSX_ROWS = 1_048_576;
/** Rows per checkpoint at the least; sheets with many rows get fewer, wider ones (at most MAX_CHECKPOINTS). */
const CHECKPOINT_EVERY = 256;
const MAX_CHECKPOINTS = 1_024;
/**
 * Cells the first pass over a workbook keeps for computing its formulas: past them, a
 * second pass loads only those the formulas read (`loadCells`).
 */
const EARLY_CELLS = 500_000;
/**
 * Cells the first pass keeps at most while no formula it found lacks its result: most
 * workbooks have none to compute. Kept to EARLY_CELLS, a 250,000-row workbook without
 * formulas held 500,000 cells it never used, and the server peaked 25–60 MiB higher.
 */
const EARLY_CELLS_UNNEEDED = 100_000;
/** Bytes of rows written to the rows blob at once. */
const WRITE_BYTES = 64 * 1024;

const TYPE_OF_CODE: Record<FoundCell[2], CellType> = { s: "string", n: "number", b: "boolean", d: "date", e: "error" };

function unreadable(message: string): SpreadsheetUnreadableError {
  return new SpreadsheetUnreadableError(message);
}

/** `B7` → column 2 (and the row, 7); null when the reference is not a cell's. */
function cellReference(reference: string): { column: number; row: number } | null {
  const match = /^([A-Z]{1,3})(\d{1,7})$/.exec(reference);
  if (match === null) return null;
  let column = 0;
  for (const letter of match[1] as string) column = column * 26 + (letter.charCodeAt(0) - 64);
  return { column, row: Number(match[2]) };
}

/**
 * A number cell's value as its format shows it: a date or time as ISO 8601 (with its
 * serial number beside its format's position), else the number.
 */
function numberCell(
  column: number,
  raw: string,
  kind: NumberKind,
  format: number,
  date1904: boolean,
): FoundCell | null {
  const number = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(number)) return raw === "" ? null : [column, raw, "s"];
  // Serial dates run from 0 to 9999-12-31; outside, the number is shown as a number.
  if (kind !== "number" && number >= 0 && number < 2_958_466) {
    const iso = serialToIso(number, kind, date1904);
    return format < 0 ? [column, iso, "d"] : [column, iso, "d", `${format}:${number}`];
  }
  return format < 0 ? [column, number, "n"] : [column, number, "n", String(format)];
}

/** What one workbook's sheets are read with: its parts, its number formats as the index lists them, its layout allowance. */
interface Reading {
  readonly workbook: Workbook;
  readonly formats: ReturnType<typeof createFormatTable>;
  readonly allowance: LayoutAllowance;
}

/**
 * Reads one worksheet part as it streams in, handing each row with a value to `onRow`
 * (in order, cells in order). Cells keep their stored results: a formula's cached value,
 * an error's text; shared and inline strings are resolved. Returns what the part says of
 * its layout; `layout` is given the sheet's width once known.
 */
async function readSheetRows(
  zip: ZipArchive,
  part: string,
  reading: Reading,
  onRow: (row: number, cells: FoundCell[], formulas: RowFormula[]) => void,
  afterChunk: () => Promise<void>,
  formulas?: FormulaHooks,
): Promise<{ layout(columnCount: number): SheetLayout }> {
  const layout = createLayoutReader(reading.allowance);
  let inSheetData = false;
  let row = 0;
  let cells: FoundCell[] = [];
  let rowFormulas: RowFormula[] = [];
  let column = 0;
  let cellType = "n";
  let cellStyle = 0;
  let raw: string[] = [];
  let inValue = false;
  let inInline = false;
  let inInlineText = false;
  let phonetic = 0;
  let formula: FormulaElement | null = null;
  let inFormula = false;
  const finishRow = () => {
    if (cells.length > 0 || rowFormulas.length > 0) onRow(row, cells, rowFormulas);
    cells = [];
    rowFormulas = [];
  };
  await parseXmlPart(await zip.open(part), part, {
    open(name, attributes) {
      switch (name) {
        case "row": {
          const next = attributes.r === undefined ? row + 1 : Number(attributes.r);
          if (!Number.isInteger(next) || next <= row || next > MAX_XLSX_ROWS) {
            throw unreadable(
              `${part} has rows out of order or past row ${MAX_XLSX_ROWS} (row ${attributes.r ?? next}).`,
            );
          }
          row = next;
          column = 0;
          return;
        }
        case "c": {
          const reference = attributes.r === undefined ? null : cellReference(attributes.r);
          if (attributes.r !== undefined && (reference === null || reference.row !== row)) {
            throw unreadable(`${part} has a cell ${JSON.stringify(attributes.r.slice(0, 20))} outside its row ${row}.`);
          }
          const next = reference?.column ?? column + 1;
          if (next <= column) throw unreadable(`${part} has cells out of order in row ${row}.`);
          if (next > MAX_COLUMNS)
            throw unreadable(`${part} has a cell past column XFD (${MAX_COLUMNS}) in row ${row}.`);
          column = next;
          cellType = attributes.t ?? "n";
          cellStyle = Number(attributes.s ?? 0);
          raw = [];
          formula = null;
          return;
        }
        case "f":
          if (formulas === undefined) return;
          formula = { type: attributes.t ?? "normal", si: attributes.si, ref: attributes.ref, text: [] };
          inFormula = true;
          return;
        case "v":
          inValue = true;
          return;
        case "is":
          inInline = true;
          return;
        case "rPh":
          phonetic++;
          return;
        case "t":
          if (inInline && phonetic === 0) inInlineText = true;
          return;
        case "sheetData":
          inSheetData = true;
          return;
        default:
          if (!inSheetData) layout.open(name, attributes);
      }
    },
    close(name) {
      switch (name) {
        case "sheetData":
          inSheetData = false;
          return;
        case "sheetView":
          layout.close(name);
          return;
        case "v":
          inValue = false;
          return;
        case "f":
          inFormula = false;
          return;
        case "t":
          inInlineText = false;
          return;
        case "rPh":
          phonetic--;
          return;
        case "is":
          inInline = false;
          return;
        case "row":
          finishRow();
          return;
        case "c": {
          const value = raw.join("");
          let cell: FoundCell | null;
          if (formula !== null && formulas !== undefined) {
            const stored = value !== "";
            const text = formulas.found(row, column, formula, stored);
            if (text !== undefined) rowFormulas.push([column, text]);
            const computed = stored ? undefined : formulas.result?.(row, column);
            cell =
              computed === undefined
                ? storedCell(column, cellType, cellStyle, value, reading, part)
                : computedCell(column, computed, cellStyle, reading);
          } else {
            cell = storedCell(column, cellType, cellStyle, value, reading, part);
          }
          if (cell !== null) cells.push(cell);
          return;
        }
      }
    },
    text(text) {
      if (inValue || inInlineText) raw.push(text);
      else if (inFormula) formula?.text.push(text);
    },
    afterChunk,
  });
  return layout;
}

/** A text cell, with its format's position when it has one (a text section may show it otherwise). */
function textCell(column: number, text: string, format: number): FoundCell {
  return format < 0 ? [column, text, "s"] : [column, text, "s", String(format)];
}

function storedCell(
  column: number,
  type: string,
  style: number,
  raw: string,
  reading: Reading,
  part: string,
): FoundCell | null {
  const { workbook } = reading;
  switch (type) {
    case "s": {
      if (raw === "") return null;
      const text = workbook.sharedStrings[Number(raw)];
      if (text === undefined)
        throw unreadable(`${part} refers to shared string ${raw.slice(0, 20)}, which does not exist.`);
      return text === "" ? null : textCell(column, text, reading.formats.positionOf(style));
    }
    case "str":
    case "inlineStr":
      return raw === "" ? null : textCell(column, unescapeXstring(raw), reading.formats.positionOf(style));
    case "b":
      return raw === "" ? null : [column, raw === "1" || raw.toLowerCase() === "true", "b"];
    case "e":
      return raw === "" ? null : [column, raw, "e"];
    case "d": {
      if (raw === "") return null;
      const format = reading.formats.positionOf(style);
      if (format < 0) return [column, raw, "d"];
      // The file holds the date as ISO 8601 text; the format needs its serial number.
      const serial = isoToSerial(raw, workbook.date1904);
      return [column, raw, "d", serial === null ? String(format) : `${format}:${serial}`];
    }
    default:
      return numberCell(
        column,
        raw,
        workbook.styleKinds[style] ?? "number",
        reading.formats.positionOf(style),
        workbook.date1904,
      );
  }
}

/** A formula's computed result as the rows blob keeps a stored one: a number by its cell's format (a date as a date). */
function computedCell(column: number, value: FormulaValue, style: number, reading: Reading): FoundCell | null {
  if (value === null || value === "") return null;
  if (typeof value === "number") {
    return numberCell(
      column,
      String(value),
      reading.workbook.styleKinds[style] ?? "number",
      reading.formats.positionOf(style),
      reading.workbook.date1904,
    );
  }
  if (typeof value === "boolean") return [column, value, "b"];
  if (typeof value === "string") return textCell(column, value, reading.formats.positionOf(style));
  return [column, value.error, "e"];
}

/** Every MAX_CHECKPOINTS-th … mark, widening the interval until they fit. */
function checkpointsOf(marks: readonly number[], end: number): RowCheckpoints {
  let step = 1;
  while (marks.length / step > MAX_CHECKPOINTS) step *= 2;
  return { every: CHECKPOINT_EVERY * step, offsets: marks.filter((_, i) => i % step === 0), end };
}

/** The rows blob given up for another with computed results: not an error of the file. */
class RowsAbandoned extends Error {}

/** What one pass over a workbook's sheets wrote: each sheet's summary and checkpoints, and the rows blob's size. */
interface WrittenSheets {
  readonly sheets: SheetSummary[];
  readonly checkpoints: RowCheckpoints[];
  readonly size: number;
  /** Where the kept formulas are in the rows blob, when there are. */
  readonly formulas?: { start: number; end: number };
}

/** How a pass over the sheets treats their formulas. */
interface FormulaPass {
  hooksFor(sheet: number): FormulaHooks;
  /** Once the sheets are read: whether to give the rows blob up. */
  abandon(): boolean;
  /** What the rows blob keeps of the formulas after the rows. */
  kept(): KeptFormulas;
  /** Each row's cells with a value, as read. */
  keep?(sheet: number, row: number, cells: readonly FoundCell[]): void;
}

/**
 * Reads every sheet through, writing each row with a value to the rows blob. With
 * `formulas`, hands each sheet's formula cells to its hooks; when `abandon` says so once
 * the sheets are read, the rows blob is given up (nothing is left of it) and null returned.
 */
async function writeSheets(
  zip: ZipArchive,
  reading: Reading,
  writeRows: (rows: AsyncIterable<Uint8Array>) => Promise<{ size: number }>,
  formulas?: FormulaPass,
): Promise<WrittenSheets | null> {
  const { workbook } = reading;
  const out = new PassThrough();
  // A pass given up destroys the stream, maybe before the rows blob's write reads from it:
  // that write sees the failure when it reads; the stream's own event must not go unheard.
  out.on("error", () => {});
  const written = writeRows(out);
  // The rows blob's write ends with the stream; its own failure shows up here too.
  written.catch(() => {});
  const sheets: SheetSummary[] = [];
  const checkpoints: RowCheckpoints[] = [];
  let offset = 0;
  let pending: string[] = [];
  let pendingBytes = 0;
  let kept: { start: number; end: number } | undefined;
  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = Buffer.from(pending.join(""), "utf8");
    pending = [];
    pendingBytes = 0;
    if (!out.write(chunk)) await Promise.race([once(out, "drain"), written]);
  };
  try {
    for (const [index, sheet] of workbook.sheets.entries()) {
      const marks: number[] = [];
      let rowCount = 0;
      let columnCount = 0;
      let formulaLikeCells = 0;
      const sampleTypes: (CellType | null)[][] = [];
      const sampleTexts: (string | null)[][] = [];
      const found = await readSheetRows(
        zip,
        sheet.part,
        reading,
        (row, cells, rowFormulas) => {
          formulas?.keep?.(index, row, cells);
          const line = storedLine(row, cells, rowFormulas);
          const block = Math.floor((row - 1) / CHECKPOINT_EVERY);
          while (marks.length <= block) marks.push(offset);
          offset += Buffer.byteLength(line);
          pending.push(line);
          pendingBytes += line.length;
          rowCount = row;
          for (const [column, value, code] of cells) {
            columnCount = Math.max(columnCount, column);
            if (code === "s" && looksLikeFormula(value as string)) formulaLikeCells++;
          }
          if (row <= GUESSED_ROWS) {
            const types: (CellType | null)[] = [];
            const texts: (string | null)[] = [];
            for (const [column, value, code] of cells) {
              if (column > GUESSED_COLUMNS) break;
              types[column - 1] = TYPE_OF_CODE[code];
              texts[column - 1] = code === "s" ? (value as string) : String(value);
            }
            sampleTypes[row - 1] = Array.from(types, (type) => type ?? null);
            sampleTexts[row - 1] = Array.from(texts, (text) => text ?? null);
          }
        },
        async () => {
          if (pendingBytes >= WRITE_BYTES) await flush();
        },
        formulas?.hooksFor(index),
      );
      await flush();
      const rows = Array.from({ length: Math.min(rowCount, GUESSED_ROWS) }, (_, r) => sampleTypes[r] ?? []);
      const columnsBelow = Array.from({ length: Math.min(columnCount, GUESSED_COLUMNS) }, (_, column) => {
        const values = new Set<string>();
        for (let r = 1; r < rows.length; r++) {
          const text = sampleTexts[r]?.[column];
          if (text !== null && text !== undefined) values.add(text);
        }
        return values;
      });
      const guess = guessColumns(rows, sampleTexts[0] ?? [], columnsBelow, columnCount);
      sheets.push({
        index,
        name: sheet.name,
        rowCount,
        columnCount,
        headerRow: guess.headerRow,
        columnTypes: guess.columnTypes,
        formulaLikeCells,
        layout: found.layout(columnCount),
      });
      checkpoints.push(checkpointsOf(marks, offset));
    }
    if (formulas?.abandon()) throw new RowsAbandoned();
    if (formulas !== undefined) {
      const start = offset;
      for (const line of keptFormulaLines(formulas.kept())) {
        offset += Buffer.byteLength(line);
        pending.push(line);
        pendingBytes += line.length;
        if (pendingBytes >= WRITE_BYTES) await flush();
      }
      await flush();
      kept = { start, end: offset };
    }
    out.end();
  } catch (error) {
    out.destroy(error instanceof Error ? error : new Error(String(error)));
    if (error instanceof RowsAbandoned) {
      await written.catch(() => {});
      return null;
    }
    throw error;
  }
  const { size } = await written;
  return kept === undefined ? { sheets, checkpoints, size } : { sheets, checkpoints, size, formulas: kept };
}

/**
 * Reads the cells `needed` of every sheet that has some: what a computation starts from.
 * Null when they are more than a computation reads (`COMPUTE_LIMITS.maxCellsRead`).
 */
async function loadCells(zip: ZipArchive, reading: Reading, needed: CellsNeeded): Promise<LoadedCells | null> {
  const loaded = new LoadedCells(reading.workbook.date1904);
  let kept = 0;
  for (const [index, sheet] of reading.workbook.sheets.entries()) {
    if (!needed.touches(index)) continue;
    await readSheetRows(
      zip,
      sheet.part,
      { ...reading, allowance: layoutAllowance() },
      (row, cells) => {
        for (const cell of cells) {
          if (!needed.has(index, row, cell[0])) continue;
          if (++kept > COMPUTE_LIMITS.maxCellsRead) throw new RowsAbandoned();
          loaded.keep(index, row, cell);
        }
      },
      async () => {},
    ).catch((error: unknown) => {
      if (!(error instanceof RowsAbandoned)) throw error;
    });
    if (kept > COMPUTE_LIMITS.maxCellsRead) return null;
  }
  return loaded;
}

/** What the sheets say of their formulas once a workbook has been read (and computed). */
function formulaSummaries(
  sheets: readonly SheetSummary[],
  found: WorkbookFormulas | null,
  graph: FormulaGraph | null,
  uncomputed: ReadonlySet<number>,
  notComputed: ReadonlySet<number>,
): SheetSummary[] {
  return sheets.map((sheet) => {
    if (found === null)
      return { ...sheet, formulaCells: 0, uncomputedFormulas: 0, unsupportedFunctions: [], computed: true };
    let formulaCells = 0;
    let uncomputedFormulas = 0;
    const unsupported = new Set<string>();
    for (const [at, formula] of found.formulas.entries()) {
      if (formula.sheet !== sheet.index) continue;
      formulaCells++;
      const node = graph?.nodes[at];
      for (const name of node?.unsupported ?? []) unsupported.add(name);
      if (found.obstacles.has(at) || node?.obstacle != null || uncomputed.has(at)) uncomputedFormulas++;
    }
    const computed = !(found.tooMany || notComputed.has(sheet.index));
    return {
      ...sheet,
      formulaCells: found.tooMany ? Math.max(formulaCells, COMPUTE_LIMITS.maxFormulas) : formulaCells,
      uncomputedFormulas,
      unsupportedFunctions: [...unsupported].sort().slice(0, 100),
      computed,
    };
  });
}

/**
 * Reads a workbook through: its sheets and their extents, and every row with a value
 * written to the rows blob. With an engine, formulas the workbook holds no result for (as
 * scripts write them) are computed and their results written to the rows blob as stored
 * ones are: the workbook's own bytes never change.
 *
 * That takes passes over the sheets only for such workbooks: the first finds the formulas
 * and gives up its rows blob, the second reads the cells they read, the third writes the
 * rows blob again with the results. Every pass streams; what is held is the formulas and
 * the cells they read, within `COMPUTE_LIMITS`.
 */
export async function analyseXlsx(
  input: {
    size: number;
    openFile: OpenBytes;
    writeRows: (rows: AsyncIterable<Uint8Array>) => Promise<{ size: number }>;
    engine?: FormulaEngine;
    /**
     * The engine, not loaded yet: the workbook is read without it, and again with it from
     * its first formula on. A server that reads only workbooks without formulas never
     * holds it: loaded, it took 36 MiB of the server's memory for as long as it ran.
     */
    loadEngine?: () => Promise<FormulaEngine>;
  },
  version: number,
): Promise<ReadableSheetIndex> {
  const zip = await openZipArchive(input.openFile, input.size);
  // Until a formula is found, when the engine is not loaded yet.
  const detecting = input.engine === undefined && input.loadEngine !== undefined;
  try {
    const workbook = await readWorkbook(zip);
    if (workbook.sheets.length === 0) throw unreadable("it has no worksheet.");
    const reading = (): Reading => ({
      workbook,
      formats: createFormatTable(workbook.styleFormats),
      allowance: layoutAllowance(),
    });
    const first = reading();
    const { engine } = input;
    const found =
      engine === undefined && !detecting
        ? null
        : new WorkbookFormulas(
            (formula, rows, columns) => (engine as FormulaEngine).move(formula, rows, columns),
            await readTables(zip, workbook.sheets),
            workbook.sheets.map((sheet) => sheet.name),
          );
    const missing = () => found !== null && !found.tooMany && found.stored.some((stored) => !stored);
    const index = (written: WrittenSheets, sheets: SheetSummary[]): ReadableSheetIndex => ({
      readable: true,
      version,
      sheets,
      checkpoints: written.checkpoints,
      rowsBytes: written.size,
      xlsx: {
        date1904: workbook.date1904,
        numberFormats: first.formats.codes,
        ...(written.formulas === undefined ? {} : { formulas: written.formulas }),
      },
    });
    // The cells a computation may read, kept as the first pass reads them while they are
    // few: a workbook that needs computing is then read twice, not three times.
    const early: { cells: LoadedCells | null; count: number; needed: boolean } = {
      cells: found === null || detecting ? null : new LoadedCells(workbook.date1904),
      count: 0,
      needed: false,
    };
    const written = await writeSheets(
      zip,
      first,
      input.writeRows,
      found === null
        ? undefined
        : {
            hooksFor: (sheet) =>
              detecting
                ? {
                    found: () => {
                      throw new RowsAbandoned();
                    },
                  }
                : found.hooksFor(sheet),
            abandon: missing,
            kept: () => found.kept(workbook.definedNames),
            keep: (sheet, row, cells) => {
              if (early.cells === null) return;
              early.count += cells.length;
              // Once a formula lacks its result, one always will: asked until then.
              if (early.count > EARLY_CELLS_UNNEEDED && !early.needed) early.needed = missing();
              if (early.count > EARLY_CELLS || (early.count > EARLY_CELLS_UNNEEDED && !early.needed)) {
                early.cells = null;
                return;
              }
              for (const cell of cells) early.cells.keep(sheet, row, cell);
            },
          },
    );
    if (written === null && detecting) {
      // A formula: read again with the engine.
      zip.close();
      return await analyseXlsx(
        { ...input, engine: await (input.loadEngine as () => Promise<FormulaEngine>)(), loadEngine: undefined },
        version,
      );
    }
    if (written !== null) {
      const graph =
        found === null || found.formulas.length === 0 || engine === undefined
          ? null
          : workbookGraph(
              engine,
              workbook.sheets.map((sheet) => sheet.name),
              workbook.definedNames,
              found,
            );
      return index(written, formulaSummaries(written.sheets, found, graph, new Set(), new Set()));
    }
    // Results are missing: compute them from the cells their formulas read.
    const formulas = found as WorkbookFormulas;
    const graph = workbookGraph(
      engine as FormulaEngine,
      workbook.sheets.map((sheet) => sheet.name),
      workbook.definedNames,
      formulas,
    );
    const targets = new Set<number>();
    for (const [at, stored] of formulas.stored.entries()) if (!stored && !formulas.obstacles.has(at)) targets.add(at);
    // By the formula's position among the workbook's (its node's id): the pass that writes
    // them meets the formulas in the same order as the first.
    let results: ReadonlyMap<number, FormulaValue> = new Map();
    const notComputed = new Set<number>();
    let uncomputed: ReadonlySet<number> = new Set();
    const cellsNeeded = () => {
      const needed = new CellsNeeded();
      for (const id of targets) for (const area of (graph.nodes[id] as FormulaNode).areas) needed.add(area);
      return needed;
    };
    const loaded = early.cells ?? (await loadCells(zip, reading(), cellsNeeded()));
    if (loaded === null) {
      for (const id of targets) notComputed.add((graph.nodes[id] as FormulaNode).sheet);
    } else {
      const computation = computeFormulas({
        graph,
        targets,
        stored: loaded,
        settings: { date1904: workbook.date1904 },
        deadline: Date.now() + COMPUTE_LIMITS.maxMilliseconds,
      });
      results = computation.results;
      uncomputed = computation.uncomputed;
      if (computation.timedOut)
        for (const id of computation.uncomputed) notComputed.add((graph.nodes[id] as FormulaNode).sheet);
    }
    let position = -1;
    const again = (await writeSheets(zip, reading(), input.writeRows, {
      hooksFor: () => ({
        found: () => {
          position++;
          const written = formulas.written[position] ?? "";
          return written === "" ? undefined : written;
        },
        result: () => results.get(position),
      }),
      abandon: () => false,
      kept: () => formulas.kept(workbook.definedNames, results),
    })) as WrittenSheets;
    return index(again, formulaSummaries(again.sheets, formulas, graph, uncomputed, notComputed));
  } finally {
    zip.close();
  }
}

/**
 * A formula as a spreadsheet program's formula bar shows it: after `=`, without the
 * `_xlfn.` and `_xlws.` a workbook puts before newer functions' names (text in quotes
 * left as it is).
 */
export function shownFormula(formula: string): string {
  const parts = formula.split('"');
  for (let at = 0; at < parts.length; at += 2) parts[at] = (parts[at] as string).replace(/_xl(?:fn|ws)\./gi, "");
  return `=${parts.join('"')}`;
}

/**
 * The cells of a rectangle of a workbook's sheet, read from its rows blob from the
 * checkpoint before it; formatted, each as the text its number format shows.
 */
export async function xlsxWindow(input: {
  index: ReadableSheetIndex;
  sheet: number;
  rectangle: CellRectangle;
  render: CellRender;
  openRows: OpenBytes;
}): Promise<CellGrid> {
  const { rectangle } = input;
  const cellText =
    input.render === "formatted"
      ? createCellText(input.index.xlsx ?? { date1904: false, numberFormats: [] })
      : undefined;
  const height = rectangle.lastRow - rectangle.firstRow + 1;
  const width = rectangle.lastColumn - rectangle.firstColumn + 1;
  const values: CellValue[][] = Array.from({ length: height }, () => new Array(width).fill(null));
  const types: (CellType | null)[][] = Array.from({ length: height }, () => new Array(width).fill(null));
  for await (const rows of storedRows(input.index, input.sheet, rectangle.firstRow, input.openRows)) {
    for (const stored of rows) {
      if (stored.row > rectangle.lastRow) return { values, types };
      if (stored.row < rectangle.firstRow) continue;
      const cells = storedCells(stored);
      const formats = cellText === undefined ? undefined : storedFormats(stored);
      const formulas = input.render === "formula" ? storedFormulas(stored) : undefined;
      const rowValues = values[stored.row - rectangle.firstRow] as CellValue[];
      const rowTypes = types[stored.row - rectangle.firstRow] as (CellType | null)[];
      for (
        let column = rectangle.firstColumn;
        column <= Math.min(rectangle.lastColumn, cells.values.length);
        column++
      ) {
        const value = cells.values[column - 1] ?? null;
        const type = cells.types[column - 1] ?? null;
        rowValues[column - rectangle.firstColumn] =
          cellText === undefined || value === null || type === null
            ? value
            : cellText(value, type, formats?.[column - 1]);
        rowTypes[column - rectangle.firstColumn] = type;
      }
      // A formula shows as its text, whether or not it has a result (its type stays the result's).
      for (const [column, formula] of formulas ?? []) {
        if (column >= rectangle.firstColumn && column <= rectangle.lastColumn) {
          rowValues[column - rectangle.firstColumn] = shownFormula(formula);
        }
      }
    }
  }
  return { values, types };
}
