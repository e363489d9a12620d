import type { CellArea, FormulaEngine, FormulaReading } from "./formula-engine.port.js";

/** The last row and column a workbook's sheet has. */
export const SHEET_ROWS = 1_048_576;
export const SHEET_COLUMNS = 16_384;

/** A formula cell of a workbook: its sheet by position, its row and column from 1, its formula without `=`. */
export interface WorkbookFormula {
  readonly sheet: number;
  readonly row: number;
  readonly column: number;
  readonly formula: string;
}

/** A defined name: what it refers to (`Sheet1!$A$1:$B$9`), for the whole workbook or one sheet (by position). */
export interface DefinedName {
  readonly name: string;
  readonly sheet: number | null;
  readonly refersTo: string;
}

/** A rectangle of one sheet, by the sheet's position. */
export interface SheetArea {
  readonly sheet: number;
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/** A formula cell as the graph knows it. */
export interface FormulaNode extends WorkbookFormula {
  readonly id: number;
  /** What it reads, its defined names resolved; areas on sheets the workbook lacks are left out. */
  readonly areas: readonly SheetArea[];
  /** Why Cellar cannot compute it (a function its engine lacks, a table's reference…), or null. */
  readonly obstacle: string | null;
  /** Functions of the spreadsheet programs its engine lacks, upper case. */
  readonly unsupported: readonly string[];
  /** When it does not parse: why. */
  readonly syntaxProblem: string | null;
  /** Computed again at every edit (`FormulaReading.volatile`). */
  readonly volatile: boolean;
}

/** One empty list for the many nodes with nothing in it. */
const NONE: readonly string[] = Object.freeze([]);

/** Rows a bucket of the area index covers. */
const BLOCK_ROWS = 1024;
/** Areas wider or taller than this many buckets are kept apart, in a list looked through whole. */
const MAX_BUCKETS_PER_AREA = 16;

const cellKey = (sheet: number, row: number, column: number) => (sheet * 1_048_577 + row) * 16_385 + column;
const bucketKey = (sheet: number, column: number, block: number) => (sheet * 16_385 + column) * 1_025 + block;
const areaKey = (area: SheetArea) =>
  `${area.sheet}:${area.firstRow}:${area.lastRow}:${area.firstColumn}:${area.lastColumn}`;
const isCell = (area: SheetArea) => area.firstRow === area.lastRow && area.firstColumn === area.lastColumn;

function contains(area: SheetArea, sheet: number, row: number, column: number): boolean {
  return (
    area.sheet === sheet &&
    row >= area.firstRow &&
    row <= area.lastRow &&
    column >= area.firstColumn &&
    column <= area.lastColumn
  );
}

/** An area and the formulas that read it. */
interface AreaReaders {
  readonly area: SheetArea;
  readonly key: string;
  readonly readers: number[];
}

/**
 * A workbook's formulas and what each reads: which formulas read a cell (to know what
 * an edit makes stale), which formula cells lie in an area (to compute precedents
 * first), in bounded time however the areas overlap. Cellar's own: the engine computes
 * one formula at a time and keeps no workbook.
 *
 * A single cell read is indexed by its cell (most references are one cell). Other areas
 * are indexed by buckets of one column and 1,024 rows; an area spanning more than 16
 * buckets (a whole column, a long lookup table) is kept in a list of its sheet, looked
 * through whole — such areas are few, and each is listed once however many formulas
 * read it. Keys are numbers: string keys for every reference took a fifth of an
 * upload's time and much of its memory.
 */
export class FormulaGraph {
  readonly nodes: FormulaNode[] = [];
  private readonly byCell = new Map<number, number>();
  private readonly sheetIndex: ReadonlyMap<string, number>;
  /** The formulas reading each single cell, by `cellKey`: one id, or several. */
  private readonly cellReaders = new Map<number, number | number[]>();
  private readonly areas = new Map<string, AreaReaders>();
  private readonly buckets = new Map<number, AreaReaders[]>();
  private readonly wide = new Map<number, AreaReaders[]>();
  /** Per sheet, per column: the rows holding formulas, ascending, and their nodes. */
  private columns: Map<number, Map<number, { rows: number[]; ids: number[] }>> | null = null;

  constructor(
    readonly engine: FormulaEngine,
    readonly sheets: readonly string[],
    readonly definedNames: readonly DefinedName[],
    formulas: Iterable<WorkbookFormula>,
  ) {
    this.sheetIndex = new Map(sheets.map((name, index) => [name, index]));
    const resolvedNames = new Map<string, SheetArea[] | null>();
    for (const formula of formulas) this.add(formula, resolvedNames);
  }

  private add(formula: WorkbookFormula, resolvedNames: Map<string, SheetArea[] | null>): void {
    const id = this.nodes.length;
    const sheetName = this.sheets[formula.sheet] ?? "";
    const syntax = this.engine.read(formula.formula, {
      sheet: sheetName,
      row: formula.row,
      column: formula.column,
    });
    let areas: SheetArea[] = [];
    let obstacle: string | null = null;
    let unsupported: readonly string[] = [];
    let syntaxProblem: string | null = null;
    let volatile = false;
    if (!syntax.ok) {
      syntaxProblem = syntax.problem;
      obstacle = "it does not parse";
    } else {
      const reading: FormulaReading = syntax.reading;
      unsupported = reading.unsupported;
      volatile = reading.volatile;
      obstacle =
        reading.obstacle ?? (unsupported.length > 0 ? `Cellar cannot compute ${unsupported.join(", ")}` : null);
      areas = this.onSheets(reading.areas);
      for (const name of reading.names) {
        const resolved = this.resolveName(name, formula.sheet, resolvedNames);
        if (resolved === undefined) continue;
        if (resolved === null) obstacle ??= `the name ${name} stands for more than cells`;
        else areas.push(...resolved);
      }
    }
    const node: FormulaNode = {
      sheet: formula.sheet,
      row: formula.row,
      column: formula.column,
      formula: formula.formula,
      id,
      areas,
      obstacle,
      unsupported: unsupported.length === 0 ? NONE : unsupported,
      syntaxProblem,
      volatile,
    };
    this.nodes.push(node);
    this.byCell.set(cellKey(formula.sheet, formula.row, formula.column), id);
    this.columns = null;
    for (const area of areas) this.indexArea(area, id);
  }

  /** An engine's areas on the workbook's sheets (one whose sheet does not exist is left out: the engine gives `#REF!`). */
  private onSheets(areas: readonly CellArea[]): SheetArea[] {
    const found: SheetArea[] = [];
    for (const area of areas) {
      const sheet = this.sheetIndex.get(area.sheet);
      if (sheet === undefined) continue;
      found.push({
        sheet,
        firstRow: Math.max(1, area.firstRow),
        lastRow: Math.min(SHEET_ROWS, area.lastRow),
        firstColumn: Math.max(1, area.firstColumn),
        lastColumn: Math.min(SHEET_COLUMNS, area.lastColumn),
      });
    }
    return found;
  }

  /**
   * What a defined name stands for, seen from a sheet: the sheet's own name first, then
   * the workbook's. Undefined when no such name exists (the engine gives `#NAME?`), null
   * when it stands for something other than cells (a constant, a formula).
   */
  resolveName(
    name: string,
    sheet: number,
    cache = new Map<string, SheetArea[] | null>(),
  ): SheetArea[] | null | undefined {
    const upper = name.toUpperCase();
    const found =
      this.definedNames.find((defined) => defined.sheet === sheet && defined.name.toUpperCase() === upper) ??
      this.definedNames.find((defined) => defined.sheet === null && defined.name.toUpperCase() === upper);
    if (found === undefined) return undefined;
    const key = `${found.sheet ?? ""}:${upper}`;
    if (cache.has(key)) return cache.get(key) ?? null;
    let resolved: SheetArea[] | null = null;
    const refersTo = found.refersTo.replace(/^=/, "");
    const syntax = this.engine.read(refersTo, { sheet: this.sheets[sheet] ?? "", row: 1, column: 1 });
    if (
      syntax.ok &&
      syntax.reading.functions.length === 0 &&
      syntax.reading.names.length === 0 &&
      syntax.reading.areas.length > 0 &&
      isOnlyAreas(refersTo)
    ) {
      resolved = this.onSheets(syntax.reading.areas);
    }
    cache.set(key, resolved);
    return resolved;
  }

  private indexArea(area: SheetArea, reader: number): void {
    if (isCell(area)) {
      const cell = cellKey(area.sheet, area.firstRow, area.firstColumn);
      const readers = this.cellReaders.get(cell);
      if (readers === undefined) this.cellReaders.set(cell, reader);
      else if (typeof readers === "number") {
        if (readers !== reader) this.cellReaders.set(cell, [readers, reader]);
      } else if (readers[readers.length - 1] !== reader) readers.push(reader);
      return;
    }
    const key = areaKey(area);
    let entry = this.areas.get(key);
    if (entry !== undefined) {
      entry.readers.push(reader);
      return;
    }
    entry = { area, key, readers: [reader] };
    this.areas.set(key, entry);
    const firstBlock = Math.floor((area.firstRow - 1) / BLOCK_ROWS);
    const lastBlock = Math.floor((area.lastRow - 1) / BLOCK_ROWS);
    const buckets = (lastBlock - firstBlock + 1) * (area.lastColumn - area.firstColumn + 1);
    if (buckets > MAX_BUCKETS_PER_AREA) {
      const list = this.wide.get(area.sheet) ?? [];
      list.push(entry);
      this.wide.set(area.sheet, list);
      return;
    }
    for (let column = area.firstColumn; column <= area.lastColumn; column++) {
      for (let block = firstBlock; block <= lastBlock; block++) {
        const bucket = bucketKey(area.sheet, column, block);
        const list = this.buckets.get(bucket);
        if (list === undefined) this.buckets.set(bucket, [entry]);
        else list.push(entry);
      }
    }
  }

  /** The formula at a cell, or undefined. */
  at(sheet: number, row: number, column: number): FormulaNode | undefined {
    const id = this.byCell.get(cellKey(sheet, row, column));
    return id === undefined ? undefined : this.nodes[id];
  }

  /** The formulas that read a cell directly. */
  readersOf(sheet: number, row: number, column: number): number[] {
    const found: number[] = [];
    const readers = this.cellReaders.get(cellKey(sheet, row, column));
    if (typeof readers === "number") found.push(readers);
    else if (readers !== undefined) found.push(...readers);
    const block = Math.floor((row - 1) / BLOCK_ROWS);
    for (const entry of this.buckets.get(bucketKey(sheet, column, block)) ?? []) {
      if (contains(entry.area, sheet, row, column)) found.push(...entry.readers);
    }
    for (const entry of this.wide.get(sheet) ?? []) {
      if (contains(entry.area, sheet, row, column)) found.push(...entry.readers);
    }
    return found;
  }

  /**
   * Every formula that reads one of `cells`, directly or through other formulas: what an
   * edit of those cells makes stale. Ascending ids.
   */
  dependentsOf(cells: Iterable<readonly [sheet: number, row: number, column: number]>): Set<number> {
    const found = new Set<number>();
    const queue: number[] = [];
    const reach = (ids: number[]) => {
      for (const id of ids) {
        if (found.has(id)) continue;
        found.add(id);
        queue.push(id);
      }
    };
    for (const [sheet, row, column] of cells) reach(this.readersOf(sheet, row, column));
    while (queue.length > 0) {
      const node = this.nodes[queue.pop() as number] as FormulaNode;
      reach(this.readersOf(node.sheet, node.row, node.column));
    }
    return found;
  }

  /** The formula cells inside an area, by id. */
  formulasIn(area: SheetArea): number[] {
    this.columns ??= this.indexColumns();
    const columns = this.columns.get(area.sheet);
    if (columns === undefined) return [];
    const found: number[] = [];
    const visit = (column: { rows: number[]; ids: number[] }) => {
      let at = lowerBound(column.rows, area.firstRow);
      while (at < column.rows.length && (column.rows[at] as number) <= area.lastRow) {
        found.push(column.ids[at] as number);
        at++;
      }
    };
    const width = area.lastColumn - area.firstColumn + 1;
    if (width <= columns.size) {
      for (let c = area.firstColumn; c <= area.lastColumn; c++) {
        const column = columns.get(c);
        if (column !== undefined) visit(column);
      }
    } else {
      for (const [c, column] of columns) if (c >= area.firstColumn && c <= area.lastColumn) visit(column);
    }
    return found;
  }

  private indexColumns(): Map<number, Map<number, { rows: number[]; ids: number[] }>> {
    const sheets = new Map<number, Map<number, { rows: number[]; ids: number[] }>>();
    const sorted = [...this.nodes].sort((a, b) => a.sheet - b.sheet || a.column - b.column || a.row - b.row);
    for (const node of sorted) {
      let columns = sheets.get(node.sheet);
      if (columns === undefined) {
        columns = new Map();
        sheets.set(node.sheet, columns);
      }
      let column = columns.get(node.column);
      if (column === undefined) {
        column = { rows: [], ids: [] };
        columns.set(node.column, column);
      }
      column.rows.push(node.row);
      column.ids.push(node.id);
    }
    return sheets;
  }

  /**
   * `targets` in an order where each comes after every target it reads (directly or
   * through other formulas), and the cycles among them: each cycle's cells, in the order
   * they read each other. A target in a cycle, or reading one, is left out of the order.
   * Iterative, so a chain 10,000 formulas deep does not exhaust the stack; an area read
   * by many targets is gone through once.
   */
  order(targets: ReadonlySet<number>): { order: number[]; cycles: number[][] } {
    const state = new Map<number, 1 | 2 | 3>(); // 1 on the path, 2 done, 3 done but stale (in or after a cycle)
    const order: number[] = [];
    const cycles: number[][] = [];
    const areasDone = new Set<string>();
    const path: { id: number; children: number[]; at: number; areas: readonly SheetArea[]; stale: boolean }[] = [];
    const childrenOf = (node: FormulaNode): number[] => {
      const children: number[] = [];
      for (const area of node.areas) {
        if (isCell(area)) {
          const id = this.byCell.get(cellKey(area.sheet, area.firstRow, area.firstColumn));
          if (id !== undefined && targets.has(id)) children.push(id);
          continue;
        }
        const key = areaKey(area);
        if (areasDone.has(key)) continue;
        for (const id of this.formulasIn(area)) if (targets.has(id)) children.push(id);
      }
      return children;
    };
    for (const start of targets) {
      if (state.has(start)) continue;
      const first = this.nodes[start] as FormulaNode;
      state.set(start, 1);
      path.push({ id: start, children: childrenOf(first), at: 0, areas: first.areas, stale: false });
      while (path.length > 0) {
        const top = path[path.length - 1] as (typeof path)[number];
        if (top.at < top.children.length) {
          const child = top.children[top.at++] as number;
          const seen = state.get(child);
          if (seen === undefined) {
            const node = this.nodes[child] as FormulaNode;
            state.set(child, 1);
            path.push({ id: child, children: childrenOf(node), at: 0, areas: node.areas, stale: false });
          } else if (seen === 1) {
            const from = path.findIndex((entry) => entry.id === child);
            const cycle = path.slice(from).map((entry) => entry.id);
            cycles.push(cycle);
            for (const entry of path.slice(from)) entry.stale = true;
            top.stale = true;
          } else if (seen === 3) {
            top.stale = true;
          }
          continue;
        }
        path.pop();
        state.set(top.id, top.stale ? 3 : 2);
        if (top.stale) {
          const below = path[path.length - 1];
          if (below !== undefined) below.stale = true;
        } else {
          order.push(top.id);
          for (const area of top.areas) if (!isCell(area)) areasDone.add(areaKey(area));
        }
      }
    }
    return { order, cycles };
  }
}

/** Whether a name's definition is only references (areas joined by `,`), no constant or operator. */
function isOnlyAreas(refersTo: string): boolean {
  return !/^[\s\d."{-]/.test(refersTo) && !/[+*/^&=<>]/.test(refersTo.replace(/'[^']*'/g, ""));
}

function lowerBound(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
