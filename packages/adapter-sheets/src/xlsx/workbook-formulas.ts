import {
  COMPUTE_LIMITS,
  type DefinedName,
  type FormulaEngine,
  FormulaGraph,
  type FormulaValue,
  formulaError,
  isoToSerial,
  type KeptFormulas,
  type SheetArea,
  type StoredCells,
  type WorkbookFormula,
  type WorkbookTable,
  withTableReferences,
} from "@cellar/core";
import type { FoundCell } from "./stored-rows.js";

/** A cell's `<f>` as the sheet holds it: its kind (`normal`, `shared`, `array`, `dataTable`), and its text. */
export interface FormulaElement {
  readonly type: string;
  readonly si: string | undefined;
  readonly ref: string | undefined;
  readonly text: string[];
}

/** What a sheet's reading tells of its formulas, and asks of their computed results. */
export interface FormulaHooks {
  /** A formula cell, and whether the workbook holds its result; gives its formula's text for the cell (without `=`), when it has one. */
  found(row: number, column: number, element: FormulaElement, stored: boolean): string | undefined;
  /** The result Cellar computed for a formula the workbook holds none for; undefined when none. */
  result?(row: number, column: number): FormulaValue | undefined;
}

/** The longest formula text kept; Excel's own limit. */
const MAX_FORMULA_CHARACTERS = 8_192;

/** A workbook's formula cells, found as its sheets are read; shared formulas spelled out for each cell. */
export class WorkbookFormulas {
  readonly formulas: WorkbookFormula[] = [];
  /** Parallel to `formulas`: whether the workbook holds the result. */
  readonly stored: boolean[] = [];
  /** Parallel to `formulas`: each as written (a table's references as such), as `render=formula` shows it. */
  readonly written: string[] = [];
  /** Formulas Cellar cannot compute whatever their functions (an array formula, a data table), by position in `formulas`. */
  readonly obstacles = new Map<number, string>();
  /** More formula cells than a workbook is computed with: the rest are not kept. */
  tooMany = false;
  private readonly shared = new Map<string, { row: number; column: number; text: string }>();

  constructor(
    /** How a shared formula's text moves to each of its cells (`FormulaEngine.move`). */
    private readonly move: FormulaEngine["move"],
    /** The workbook's tables and sheets' names: structured references are computed as the cells they stand for. */
    private readonly tables: readonly WorkbookTable[] = [],
    private readonly sheetNames: readonly string[] = [],
  ) {}

  /** Hooks for the sheet at `sheet` (sheets are read one after another). */
  hooksFor(sheet: number): FormulaHooks {
    this.shared.clear();
    return {
      found: (row, column, element, stored) => {
        let text = element.text.join("").slice(0, MAX_FORMULA_CHARACTERS + 1);
        let obstacle: string | null = null;
        if (element.type === "shared" && element.si !== undefined) {
          const master = this.shared.get(element.si);
          if (text !== "" && master === undefined) {
            this.shared.set(element.si, { row, column, text });
          } else if (master !== undefined && text === "") {
            text = this.move(master.text, row - master.row, column - master.column);
          } else if (text === "") {
            obstacle = "it is part of a shared formula whose first cell is missing";
          }
        } else if (element.type === "array") {
          if (element.ref?.includes(":") && !isOneCell(element.ref)) {
            obstacle = "it is an array formula over several cells";
          }
        } else if (element.type === "dataTable") {
          obstacle = "it is a data table";
        }
        const formula = text.replace(/^=/, "");
        if (this.formulas.length >= COMPUTE_LIMITS.maxFormulas) this.tooMany = true;
        if (this.tooMany) return formula === "" ? undefined : formula;
        const at = this.formulas.length;
        // Kept as computed (a table's references as its cells); shown as written.
        const computed =
          this.tables.length === 0
            ? formula
            : withTableReferences(formula, this.tables, this.sheetNames, { sheet, row, column });
        this.formulas.push({ sheet, row, column, formula: computed });
        this.written.push(formula);
        this.stored.push(stored);
        if (obstacle !== null || text === "") this.obstacles.set(at, obstacle ?? "it has no formula text");
        return formula === "" ? undefined : formula;
      },
    };
  }

  /** What the rows blob keeps of them (`KeptFormulas`), with the results computed for those the bytes hold none for. */
  kept(names: readonly DefinedName[], results?: ReadonlyMap<number, FormulaValue>): KeptFormulas {
    return {
      formulas: this.formulas,
      unstored: this.stored.map((stored) => !stored),
      ...(results === undefined
        ? {}
        : { results: this.stored.map((stored, at) => (stored ? undefined : results.get(at))) }),
      names,
      complete: !this.tooMany,
    };
  }
}

function isOneCell(ref: string): boolean {
  const [first, last] = ref.split(":");
  return first === last;
}

/** Rows of each column an area reads, merged: which cells a computation must load. */
export class CellsNeeded {
  private readonly columns = new Map<number, Map<number, [number, number][]>>();
  private readonly rowsOfAll = new Map<number, [number, number][]>();
  private merged = false;

  add(area: SheetArea): void {
    this.merged = false;
    const interval: [number, number] = [area.firstRow, area.lastRow];
    if (area.lastColumn - area.firstColumn >= 64) {
      const list = this.rowsOfAll.get(area.sheet) ?? [];
      list.push(interval);
      this.rowsOfAll.set(area.sheet, list);
      return;
    }
    let columns = this.columns.get(area.sheet);
    if (columns === undefined) {
      columns = new Map();
      this.columns.set(area.sheet, columns);
    }
    for (let column = area.firstColumn; column <= area.lastColumn; column++) {
      const list = columns.get(column) ?? [];
      list.push([...interval]);
      columns.set(column, list);
    }
  }

  private merge(): void {
    if (this.merged) return;
    const mergeList = (list: [number, number][]) => {
      list.sort((a, b) => a[0] - b[0]);
      const out: [number, number][] = [];
      for (const interval of list) {
        const last = out[out.length - 1];
        if (last !== undefined && interval[0] <= last[1] + 1) last[1] = Math.max(last[1], interval[1]);
        else out.push(interval);
      }
      return out;
    };
    for (const columns of this.columns.values()) for (const [c, list] of columns) columns.set(c, mergeList(list));
    for (const [sheet, list] of this.rowsOfAll) this.rowsOfAll.set(sheet, mergeList(list));
    this.merged = true;
  }

  /** Whether a sheet has any cell needed. */
  touches(sheet: number): boolean {
    return this.columns.has(sheet) || this.rowsOfAll.has(sheet);
  }

  has(sheet: number, row: number, column: number): boolean {
    this.merge();
    const within = (list: [number, number][] | undefined) => {
      if (list === undefined) return false;
      let low = 0;
      let high = list.length - 1;
      while (low <= high) {
        const middle = (low + high) >>> 1;
        const [first, last] = list[middle] as [number, number];
        if (row < first) high = middle - 1;
        else if (row > last) low = middle + 1;
        else return true;
      }
      return false;
    };
    return within(this.columns.get(sheet)?.get(column)) || within(this.rowsOfAll.get(sheet));
  }

  /** How many cells are needed, within each sheet's extent (`rows`, `columns` per sheet). */
  count(extents: readonly { rows: number; columns: number }[]): number {
    this.merge();
    let cells = 0;
    const rowsWithin = (list: [number, number][], rows: number) =>
      list.reduce((sum, [first, last]) => sum + Math.max(0, Math.min(last, rows) - first + 1), 0);
    for (const [sheet, columns] of this.columns) {
      const extent = extents[sheet] ?? { rows: 0, columns: 0 };
      for (const [column, list] of columns) if (column <= extent.columns) cells += rowsWithin(list, extent.rows);
    }
    for (const [sheet, list] of this.rowsOfAll) {
      const extent = extents[sheet] ?? { rows: 0, columns: 0 };
      cells += rowsWithin(list, extent.rows) * extent.columns;
    }
    return cells;
  }
}

/** The cells a computation reads, as the workbook stores them, held in memory: sparse rows per sheet. */
export class LoadedCells implements StoredCells {
  private readonly sheets = new Map<number, Map<number, FormulaValue[]>>();
  private readonly lastRows = new Map<number, number>();

  constructor(private readonly date1904: boolean) {}

  /** Keeps a found cell's value as a formula reads it: a date as its serial number, an error as an error. */
  keep(sheet: number, row: number, cell: FoundCell): void {
    const [column, value, code, format] = cell;
    let kept: FormulaValue;
    if (code === "d") {
      const serial = format?.includes(":") ? Number(format.slice(format.indexOf(":") + 1)) : null;
      kept = serial ?? isoToSerial(value as string, this.date1904) ?? (value as string);
    } else if (code === "e") {
      kept = formulaError(value as string) ?? (value as string);
    } else {
      kept = value;
    }
    let rows = this.sheets.get(sheet);
    if (rows === undefined) {
      rows = new Map();
      this.sheets.set(sheet, rows);
    }
    let line = rows.get(row);
    if (line === undefined) {
      line = [];
      rows.set(row, line);
    }
    while (line.length < column - 1) line.push(null);
    line[column - 1] = kept;
    if (row > (this.lastRows.get(sheet) ?? 0)) this.lastRows.set(sheet, row);
  }

  value(sheet: number, row: number, column: number): FormulaValue {
    return this.sheets.get(sheet)?.get(row)?.[column - 1] ?? null;
  }

  area(area: SheetArea): FormulaValue[][] {
    const rows = this.sheets.get(area.sheet);
    if (rows === undefined) return [];
    const last = Math.min(area.lastRow, this.lastRows.get(area.sheet) ?? 0);
    const out: FormulaValue[][] = [];
    for (let row = area.firstRow; row <= last; row++) {
      const line = rows.get(row);
      out.push(line === undefined ? [] : line.slice(area.firstColumn - 1, area.lastColumn));
    }
    return out;
  }
}

/** The graph of a workbook's formulas: what its computation orders. */
export function workbookGraph(
  engine: FormulaEngine,
  sheets: readonly string[],
  definedNames: readonly DefinedName[],
  found: WorkbookFormulas,
): FormulaGraph {
  return new FormulaGraph(engine, sheets, definedNames, found.formulas);
}
