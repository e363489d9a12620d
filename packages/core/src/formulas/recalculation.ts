import type { FormulaGraph, FormulaNode, SheetArea } from "./dependency-graph.js";
import {
  type CellArea,
  type CellValues,
  FormulaUncomputableError,
  type WorkbookSettings,
} from "./formula-engine.port.js";
import type { FormulaValue } from "./formula-values.js";

/**
 * The limits of computing one workbook, past which its formulas keep their stored results
 * and its sheets say `computed: false` (decisions §8).
 */
export const COMPUTE_LIMITS = {
  /** Formula cells a workbook may hold and be computed. */
  maxFormulas: 200_000,
  /** Time one computation (an upload's, an edit's) may take. */
  maxMilliseconds: 10_000,
  /** Cells one computation may read from the stored workbook (a lookup table counts whole). */
  maxCellsRead: 4_000_000,
} as const;

/**
 * The stored cells a computation starts from: each as the workbook holds it (a formula's
 * stored result), by sheet position. Synchronous: whoever computes loads what the
 * formulas read first (`FormulaGraph` says which areas).
 */
export interface StoredCells {
  value(sheet: number, row: number, column: number): FormulaValue;
  /** Row by row; rows past the sheet's last may be left out, and a row may be shorter than the area (the rest is empty). */
  area(area: SheetArea): FormulaValue[][];
}

export interface Computation {
  /** Each computed formula's result, by node id. */
  readonly results: Map<number, FormulaValue>;
  /** The cycles met: each its formulas' ids, in the order they read each other. */
  readonly cycles: number[][];
  /** Targets left uncomputed: in or after a cycle, or with an obstacle (a function the engine lacks…). */
  readonly uncomputed: Set<number>;
  /** Whether the time allowed ran out: the rest of the targets were left uncomputed. */
  readonly timedOut: boolean;
}

/**
 * Computes `targets` of a graph, each after every target it reads, with the engine; a
 * formula that reads a cell no target is reads it as stored. Formulas with an obstacle
 * keep their stored result, and so do those that read them only if they are not targets.
 */
export function computeFormulas(input: {
  graph: FormulaGraph;
  targets: ReadonlySet<number>;
  stored: StoredCells;
  settings: WorkbookSettings;
  /** `Date.now()` past which the computation stops. */
  deadline?: number;
}): Computation {
  const { graph, stored } = input;
  const results = new Map<number, FormulaValue>();
  const uncomputed = new Set<number>();
  const computable = new Set<number>();
  for (const id of input.targets) {
    if ((graph.nodes[id] as FormulaNode).obstacle === null) computable.add(id);
    else uncomputed.add(id);
  }
  const { order, cycles } = graph.order(computable);
  for (const id of computable) uncomputed.add(id);
  const sheetIndex = new Map(graph.sheets.map((name, index) => [name, index]));
  const areaCache = new Map<string, FormulaValue[][]>();

  const cells: CellValues = {
    value(sheetName, row, column) {
      const sheet = sheetIndex.get(sheetName);
      if (sheet === undefined) return { error: "#REF!" };
      const node = graph.at(sheet, row, column);
      if (node !== undefined && results.has(node.id)) return results.get(node.id) as FormulaValue;
      return stored.value(sheet, row, column);
    },
    area(area: CellArea) {
      const sheet = sheetIndex.get(area.sheet);
      if (sheet === undefined) return [[{ error: "#REF!" }]];
      const onSheet: SheetArea = { ...area, sheet };
      // Every target inside was computed before the formula reading it: the area's
      // values no longer change, and the next formula reading it takes them as they are.
      const key = `${sheet}:${area.firstRow}:${area.lastRow}:${area.firstColumn}:${area.lastColumn}`;
      const cached = areaCache.get(key);
      if (cached !== undefined) return cached;
      let values = stored.area(onSheet);
      let copied = false;
      for (const id of graph.formulasIn(onSheet)) {
        if (!results.has(id)) continue;
        // The stored cells' arrays are theirs: copied before a computed result goes in.
        if (!copied) {
          values = values.map((row) => row.slice());
          copied = true;
        }
        const node = graph.nodes[id] as FormulaNode;
        const r = node.row - area.firstRow;
        while (values.length <= r) values.push([]);
        const row = values[r] as FormulaValue[];
        while (row.length < node.column - area.firstColumn) row.push(null);
        row[node.column - area.firstColumn] = results.get(id) as FormulaValue;
      }
      areaCache.set(key, values);
      return values;
    },
    name(name, sheetName) {
      const sheet = sheetIndex.get(sheetName) ?? 0;
      const resolved = graph.resolveName(name, sheet);
      const first = resolved?.[0];
      if (first === undefined) return null;
      return { ...first, sheet: graph.sheets[first.sheet] as string };
    },
  };

  let timedOut = false;
  for (const [position, id] of order.entries()) {
    // The clock is read every 256 formulas: often enough to stop near the deadline.
    if (input.deadline !== undefined && position % 256 === 0 && Date.now() > input.deadline) {
      timedOut = true;
      break;
    }
    const node = graph.nodes[id] as FormulaNode;
    try {
      results.set(
        id,
        graph.engine.evaluate(
          node.formula,
          { sheet: graph.sheets[node.sheet] as string, row: node.row, column: node.column },
          cells,
          input.settings,
        ),
      );
      uncomputed.delete(id);
    } catch (error) {
      if (!(error instanceof FormulaUncomputableError)) throw error;
      // Left as stored; a formula reading it reads that.
    }
  }
  return { results, cycles, uncomputed, timedOut };
}
