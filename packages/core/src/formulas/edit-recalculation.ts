import type { FormulaResult, SheetWrites } from "../edits/spreadsheet-writer.port.js";
import { type FieldProblem, invalidFields } from "../shared/errors.js";
import { formatA1Range } from "../sheets/a1-range.js";
import { isoToSerial } from "../sheets/serial-dates.js";
import type { ReadableSheetIndex } from "../sheets/sheet-index.js";
import type { CellGrid, CellRectangle } from "../sheets/spreadsheet-reader.port.js";
import { FormulaGraph, type FormulaNode, type SheetArea, type WorkbookFormula } from "./dependency-graph.js";
import type { FormulaEngine } from "./formula-engine.port.js";
import { type FormulaValue, formulaError } from "./formula-values.js";
import type { KeptFormulas } from "./kept-formulas.js";
import { COMPUTE_LIMITS, computeFormulas, type StoredCells } from "./recalculation.js";

/**
 * A workbook's formulas as an edit left them, graphed: what the next edit of that content
 * starts from without reading and graphing them again, when it writes no formula and
 * over none (`writesOverFormulas`).
 */
export interface GraphedFormulas {
  readonly graph: FormulaGraph;
  /** Parallel to the graph's nodes: whether the workbook holds no result for it. */
  readonly unstored: readonly boolean[];
}

/** What an edit's recalculation gives: the results to write, by sheet, and how many formulas it computed. */
export interface EditRecalculation {
  readonly results: ReadonlyMap<number, readonly FormulaResult[]>;
  readonly recomputed: number;
  /** The new content's formulas, once these results are written into it. */
  readonly next: GraphedFormulas;
  /** Whether the time allowed (`COMPUTE_LIMITS`) ran out, or the cells read were too many: some results are left as they were. */
  readonly incomplete: boolean;
}

/** Rows between two needed areas of a sheet that are read together rather than apart. */
const BAND_GAP_ROWS = 64;

const cellKey = (sheet: number, row: number, column: number) => (sheet * 1_048_577 + row) * 16_385 + column;

/**
 * Recomputes what an edit makes stale (decisions §8): every formula that reads a written
 * cell, directly or through other formulas and defined names, on any sheet; the formulas
 * the edit writes; and those whose results the workbook does not hold yet (computed at
 * upload), so that the new version stores them all. Reads only the cells those formulas
 * read, through `read`, a band of rows at a time.
 *
 * Throws `validation_error`, before anything is written, when a written formula does not
 * parse or makes a formula depend on itself, naming the cells.
 */
export async function recalculateEdit(input: {
  engine: FormulaEngine;
  /** The workbook's formulas: as kept beside it, or as the edit before left them. */
  formulas: KeptFormulas | GraphedFormulas;
  index: ReadableSheetIndex;
  sheets: readonly SheetWrites[];
  /** The stored cells of a rectangle of a sheet (within its extent), as `render: "raw"` gives them. */
  read: (sheet: number, rectangle: CellRectangle) => Promise<CellGrid>;
  /** The name of the field the writes came in, for errors (`values`, `data`). */
  field: string;
}): Promise<EditRecalculation> {
  const { engine, index } = input;
  const sheetNames = index.sheets.map((sheet) => sheet.name);
  const cellName = (sheet: number, row: number, column: number) =>
    formatA1Range({
      sheet: sheetNames[sheet] ?? "",
      firstRow: row,
      lastRow: row,
      firstColumn: column,
      lastColumn: column,
    });

  // What each written cell now holds: a value, or a formula (a node of the graph).
  const writtenValues = new Map<number, FormulaValue>();
  const writtenFormulas = new Map<number, WorkbookFormula>();
  const writtenCells: [number, number, number][] = [];
  const lastRows = index.sheets.map((sheet) => sheet.rowCount);
  const lastColumns = index.sheets.map((sheet) => sheet.columnCount);
  for (const { sheet, writes } of input.sheets) {
    for (const { rectangle, values, formulas } of writes) {
      lastRows[sheet] = Math.max(lastRows[sheet] ?? 0, rectangle.lastRow);
      lastColumns[sheet] = Math.max(lastColumns[sheet] ?? 0, rectangle.lastColumn);
      for (const [r, line] of values.entries()) {
        for (const [c, value] of line.entries()) {
          const row = rectangle.firstRow + r;
          const column = rectangle.firstColumn + c;
          const key = cellKey(sheet, row, column);
          const formula = formulas?.[r]?.[c];
          if (formula === null || formula === undefined) {
            writtenValues.set(key, value);
            writtenFormulas.delete(key);
          } else {
            writtenFormulas.set(key, { sheet, row, column, formula });
            writtenValues.set(key, null);
          }
          writtenCells.push([sheet, row, column]);
        }
      }
    }
  }

  let graph: FormulaGraph;
  let unstored: boolean[];
  /** By formula: the result computed at upload for an unstored one, to write in as it is unless the edit changes it. */
  const known: (FormulaValue | undefined)[] = [];
  let firstWritten: number;
  if ("graph" in input.formulas) {
    if (writesOverFormulas(input.formulas.graph, input.sheets)) {
      throw new Error("an edit writing formulas, or over them, starts from the formulas kept beside the workbook");
    }
    graph = input.formulas.graph;
    unstored = [...input.formulas.unstored];
    firstWritten = graph.nodes.length;
  } else {
    const kept = input.formulas;
    const formulas: WorkbookFormula[] = [];
    unstored = [];
    for (const [at, formula] of kept.formulas.entries()) {
      if (writtenValues.has(cellKey(formula.sheet, formula.row, formula.column))) continue;
      formulas.push(formula);
      unstored.push(kept.unstored[at] === true);
      known.push(kept.unstored[at] === true ? kept.results?.[at] : undefined);
    }
    firstWritten = formulas.length;
    for (const formula of writtenFormulas.values()) {
      formulas.push(formula);
      unstored.push(true);
    }
    graph = new FormulaGraph(engine, sheetNames, kept.names, formulas);
  }
  // Once written, every result is stored: one the engine could not compute has none to wait for.
  const next: GraphedFormulas = { graph, unstored: new Array<boolean>(graph.nodes.length).fill(false) };

  const problems: FieldProblem[] = [];
  for (let id = firstWritten; id < graph.nodes.length; id++) {
    const node = graph.nodes[id] as FormulaNode;
    const problem =
      node.syntaxProblem ??
      engine.check(node.formula, { sheet: sheetNames[node.sheet] ?? "", row: node.row, column: node.column });
    if (problem !== null) {
      const cell = cellName(node.sheet, node.row, node.column);
      problems.push({ field: input.field, message: `${cell}: the formula does not parse: ${problem}`, cell });
    }
  }
  if (problems.length > 0) throw invalidFields(problems);

  const targets = graph.dependentsOf(writtenCells);
  // What this edit changes is computed; an unstored result it leaves alone is written as kept.
  const unchanged = new Map<number, FormulaValue>();
  // Volatile formulas are computed again at every edit, as Excel does, and so is what reads them.
  const volatileCells: [number, number, number][] = [];
  for (const [id, node] of graph.nodes.entries()) {
    if (unstored[id]) {
      const result = known[id];
      if (result === undefined) targets.add(id);
      else unchanged.set(id, result);
    }
    if (node.volatile) {
      targets.add(id);
      volatileCells.push([node.sheet, node.row, node.column]);
    }
  }
  for (const id of graph.dependentsOf(volatileCells)) targets.add(id);
  for (const id of targets) unchanged.delete(id);
  if (targets.size === 0) return { results: resultsBySheet(graph, unchanged), recomputed: 0, incomplete: false, next };

  const cells = await loadCells(graph, targets, input.read, {
    stored: index.sheets,
    lastRows,
    lastColumns,
    writtenValues,
    date1904: index.xlsx?.date1904 ?? false,
  });
  if (cells === null) return { results: new Map(), recomputed: 0, incomplete: true, next: { graph, unstored } };
  const computation = computeFormulas({
    graph,
    targets,
    stored: cells,
    settings: { date1904: index.xlsx?.date1904 ?? false },
    deadline: Date.now() + COMPUTE_LIMITS.maxMilliseconds,
  });
  for (const cycle of computation.cycles) {
    if (!cycle.some((id) => id >= firstWritten)) continue;
    const names = cycle.map((id) => {
      const node = graph.nodes[id] as FormulaNode;
      return cellName(node.sheet, node.row, node.column);
    });
    problems.push({
      field: input.field,
      message: `a circular reference: ${[...names, names[0]].join(" → ")} would each depend on itself`,
      cell: names[0] as string,
    });
  }
  if (problems.length > 0) throw invalidFields(problems);

  const results = resultsBySheet(graph, new Map([...unchanged, ...computation.results]));
  return {
    results,
    recomputed: computation.results.size,
    incomplete: computation.timedOut,
    next: computation.timedOut ? { graph, unstored } : next,
  };
}

/** Results by formula as the writer takes them: by sheet, each with its cell. */
function resultsBySheet(
  graph: FormulaGraph,
  byFormula: ReadonlyMap<number, FormulaValue>,
): Map<number, FormulaResult[]> {
  const results = new Map<number, FormulaResult[]>();
  for (const [id, value] of byFormula) {
    const node = graph.nodes[id] as FormulaNode;
    const list = results.get(node.sheet) ?? [];
    list.push({ row: node.row, column: node.column, value });
    results.set(node.sheet, list);
  }
  return results;
}

/** Whether writes put a formula into a cell, or a value over one of `graph`'s formulas: the graph changes. */
export function writesOverFormulas(graph: FormulaGraph, sheets: readonly SheetWrites[]): boolean {
  for (const { sheet, writes } of sheets) {
    for (const { rectangle, formulas } of writes) {
      if (formulas?.some((line) => line.some((formula) => formula !== null))) return true;
      if (graph.formulasIn({ sheet, ...rectangle }).length > 0) return true;
    }
  }
  return false;
}

/** A band of a sheet's rows, loaded: rows `firstRow`…, columns `firstColumn`…. */
interface Band {
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
  readonly values: FormulaValue[][];
}

/**
 * The cells the targets read, loaded by bands: each sheet's needed areas, clipped to its
 * extent, merged where their rows meet or nearly do. Null when they hold more cells than
 * a computation reads (`COMPUTE_LIMITS.maxCellsRead`).
 */
async function loadCells(
  graph: FormulaGraph,
  targets: ReadonlySet<number>,
  read: (sheet: number, rectangle: CellRectangle) => Promise<CellGrid>,
  context: {
    /** Each sheet's extent before the edit. */
    stored: readonly { rowCount: number; columnCount: number }[];
    /** And with the edit's writes. */
    lastRows: readonly number[];
    lastColumns: readonly number[];
    writtenValues: ReadonlyMap<number, FormulaValue>;
    date1904: boolean;
  },
): Promise<StoredCells | null> {
  const areasBySheet = new Map<number, SheetArea[]>();
  for (const id of targets) {
    for (const area of (graph.nodes[id] as FormulaNode).areas) {
      const lastRow = Math.min(area.lastRow, context.lastRows[area.sheet] ?? 0);
      const lastColumn = Math.min(area.lastColumn, context.lastColumns[area.sheet] ?? 0);
      if (area.firstRow > lastRow || area.firstColumn > lastColumn) continue;
      const list = areasBySheet.get(area.sheet) ?? [];
      list.push({ ...area, lastRow, lastColumn });
      areasBySheet.set(area.sheet, list);
    }
  }
  const bands = new Map<number, Band[]>();
  let cellsRead = 0;
  for (const [sheet, areas] of areasBySheet) {
    areas.sort((a, b) => a.firstRow - b.firstRow);
    const merged: Omit<Band, "values">[] = [];
    for (const area of areas) {
      const last = merged[merged.length - 1];
      if (last !== undefined && area.firstRow <= last.lastRow + BAND_GAP_ROWS) {
        merged[merged.length - 1] = {
          firstRow: last.firstRow,
          lastRow: Math.max(last.lastRow, area.lastRow),
          firstColumn: Math.min(last.firstColumn, area.firstColumn),
          lastColumn: Math.max(last.lastColumn, area.lastColumn),
        };
      } else {
        merged.push({
          firstRow: area.firstRow,
          lastRow: area.lastRow,
          firstColumn: area.firstColumn,
          lastColumn: area.lastColumn,
        });
      }
    }
    const loaded: Band[] = [];
    for (const band of merged) {
      cellsRead += (band.lastRow - band.firstRow + 1) * (band.lastColumn - band.firstColumn + 1);
      if (cellsRead > COMPUTE_LIMITS.maxCellsRead) return null;
      // Only what the stored sheet holds (a window lies within its extent): past it, cells are empty.
      const stored = {
        ...band,
        lastRow: Math.min(band.lastRow, context.stored[sheet]?.rowCount ?? 0),
        lastColumn: Math.min(band.lastColumn, context.stored[sheet]?.columnCount ?? 0),
      };
      const grid =
        stored.lastRow < stored.firstRow || stored.lastColumn < stored.firstColumn
          ? { values: [], types: [] }
          : await read(sheet, stored);
      loaded.push({
        ...band,
        values: grid.values.map((line, r) =>
          line.map((value, c) => {
            const type = grid.types[r]?.[c] ?? null;
            if (type === "date" && typeof value === "string") return isoToSerial(value, context.date1904) ?? value;
            if (type === "error" && typeof value === "string") return formulaError(value) ?? value;
            return value;
          }),
        ),
      });
    }
    bands.set(sheet, loaded);
  }
  const value = (sheet: number, row: number, column: number): FormulaValue => {
    const written = context.writtenValues.get(cellKey(sheet, row, column));
    if (written !== undefined) return written;
    const list = bands.get(sheet);
    if (list === undefined) return null;
    let low = 0;
    let high = list.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const band = list[middle] as Band;
      if (row < band.firstRow) high = middle - 1;
      else if (row > band.lastRow) low = middle + 1;
      else return band.values[row - band.firstRow]?.[column - band.firstColumn] ?? null;
    }
    return null;
  };
  return {
    value,
    area(area) {
      const lastRow = Math.min(area.lastRow, context.lastRows[area.sheet] ?? 0);
      const lastColumn = Math.min(area.lastColumn, context.lastColumns[area.sheet] ?? 0);
      const rows: FormulaValue[][] = [];
      for (let row = area.firstRow; row <= lastRow; row++) {
        const line: FormulaValue[] = [];
        for (let column = area.firstColumn; column <= lastColumn; column++) line.push(value(area.sheet, row, column));
        rows.push(line);
      }
      return rows;
    },
  };
}
