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

/** A node's state in a computation: in the order and not yet computed, being computed, done. */
const ORDERED = 1;
const ON_STACK = 2;
const ATTEMPTED = 3;

/** Formulas computed first, one waiting on the next, through references made as they compute. */
const MAX_DYNAMIC_DEPTH = 1_024;

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
  const computable = new Set<number>();
  for (const id of input.targets) if ((graph.nodes[id] as FormulaNode).obstacle === null) computable.add(id);
  const { order, cycles } = graph.order(computable);
  const sheetIndex = new Map(graph.sheets.map((name, index) => [name, index]));
  const areaCache = new Map<string, FormulaValue[][]>();
  // Each node's state, by id (typed, not sets: a set operation per formula was a tenth of
  // an upload's computing). A reference made as the formula computes
  // (`INDIRECT("A"&ROW())`) is not in the graph's order: a target it reaches before that
  // target's turn is computed first, and the formula again after it (`needed`).
  const state = new Uint8Array(graph.nodes.length);
  for (const id of order) state[id] = ORDERED;
  let needed: number | null = null;
  const notYet = (id: number) => state[id] === ORDERED || state[id] === ON_STACK;

  const cells: CellValues = {
    value(sheetName, row, column) {
      const sheet = sheetIndex.get(sheetName);
      if (sheet === undefined) return { error: "#REF!" };
      const node = graph.at(sheet, row, column);
      if (node !== undefined && results.has(node.id)) return results.get(node.id) as FormulaValue;
      if (node !== undefined && notYet(node.id)) needed ??= node.id;
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
      let whole = true;
      for (const id of graph.formulasIn(onSheet)) {
        if (!results.has(id)) {
          if (notYet(id)) {
            needed ??= id;
            whole = false;
          }
          continue;
        }
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
      if (whole) areaCache.set(key, values);
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

  const uncomputed = () => {
    const left = new Set<number>();
    for (const id of input.targets) if (!results.has(id)) left.add(id);
    return left;
  };
  let evaluations = 0;
  const stack: number[] = [];
  for (const start of order) {
    if (state[start] !== ORDERED) continue;
    stack.push(start);
    state[start] = ON_STACK;
    while (stack.length > 0) {
      // The clock is read every 256 formulas: often enough to stop near the deadline.
      if (input.deadline !== undefined && evaluations++ % 256 === 0 && Date.now() > input.deadline) {
        return { results, cycles, uncomputed: uncomputed(), timedOut: true };
      }
      const id = stack[stack.length - 1] as number;
      const node = graph.nodes[id] as FormulaNode;
      needed = null;
      let result: FormulaValue | undefined;
      try {
        result = graph.engine.evaluate(
          node.formula,
          { sheet: graph.sheets[node.sheet] as string, row: node.row, column: node.column },
          cells,
          input.settings,
        );
      } catch (error) {
        if (!(error instanceof FormulaUncomputableError)) throw error;
        // Left as stored; a formula reading it reads that.
      }
      const first = needed as number | null;
      if (first !== null && state[first] === ON_STACK) {
        // It reaches, through references made as they compute, a formula waiting on it:
        // a cycle, as Excel finds it only by computing. All of it is left as stored.
        const from = stack.indexOf(first);
        cycles.push(stack.slice(from));
        for (const waiting of stack.splice(from)) state[waiting] = ATTEMPTED;
        continue;
      }
      if (first !== null && stack.length < MAX_DYNAMIC_DEPTH) {
        stack.push(first);
        state[first] = ON_STACK;
        continue;
      }
      // Computed, or left as stored (a formula it cannot compute, or references made as
      // it computes deeper than the bound).
      if (first === null && result !== undefined) results.set(id, result);
      state[id] = ATTEMPTED;
      stack.pop();
    }
  }
  return { results, cycles, uncomputed: uncomputed(), timedOut: false };
}
