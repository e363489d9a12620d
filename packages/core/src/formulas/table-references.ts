import { columnLetters } from "../sheets/a1-range.js";

/** A table of a workbook (Excel's "Format as Table"): where it lies, its header and totals rows, its columns' names. */
export interface WorkbookTable {
  /** Its name in formulas (`displayName`), unique in the workbook. */
  readonly name: string;
  /** The sheet it lies on, by position. */
  readonly sheet: number;
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
  /** 0 or 1. */
  readonly headerRows: number;
  /** 0 or 1. */
  readonly totalsRows: number;
  /** Its columns' names, first to last. */
  readonly columns: readonly string[];
}

type Part = "#All" | "#Data" | "#Headers" | "#Totals" | "#This Row";
const PARTS: readonly Part[] = ["#All", "#Data", "#Headers", "#Totals", "#This Row"];

/**
 * A formula with its tables' structured references (`Sales[Amount]`, `Sales[#Totals]`,
 * `Sales[[#This Row],[Price]]`, `[@Price]` inside the table) written as the cells they
 * stand for (`'Q1'!$C$2:$C$9`), as the table lies now: what a formula engine that knows no
 * tables computes. A reference that names nothing there becomes `#REF!`, as in Excel.
 * Unchanged when the formula has none (a `[1]` of another workbook stays as it is).
 */
export function withTableReferences(
  formula: string,
  tables: readonly WorkbookTable[],
  sheets: readonly string[],
  at: { readonly sheet: number; readonly row: number; readonly column: number },
): string {
  const upper = formula.toUpperCase();
  if (!formula.includes("[") && !tables.some((table) => upper.includes(table.name.toUpperCase()))) return formula;
  const byName = new Map(tables.map((table) => [table.name.toUpperCase(), table]));
  const own = tables.find(
    (table) =>
      table.sheet === at.sheet &&
      at.row >= table.firstRow &&
      at.row <= table.lastRow &&
      at.column >= table.firstColumn &&
      at.column <= table.lastColumn,
  );
  let out = "";
  let i = 0;
  while (i < formula.length) {
    const char = formula[i] as string;
    if (char === '"' || char === "'") {
      const end = closingQuote(formula, i, char);
      out += formula.slice(i, end);
      i = end;
      continue;
    }
    const previous = out[out.length - 1] ?? "";
    if (/[A-Za-z_\\]/.test(char) && !/[A-Za-z0-9_.\\!$]/.test(previous)) {
      const name = /^[A-Za-z_\\][A-Za-z0-9_.\\]*/.exec(formula.slice(i))?.[0] as string;
      const table = byName.get(name.toUpperCase());
      const after = i + name.length;
      if (table !== undefined && formula[after] === "[") {
        const end = closingBracket(formula, after);
        out += end === -1 ? "#REF!" : reference(table, formula.slice(after + 1, end - 1), sheets, at);
        i = end === -1 ? formula.length : end;
        continue;
      }
      if (table !== undefined && formula[after] !== "(" && formula[after] !== "!") {
        out += reference(table, "", sheets, at);
        i = after;
        continue;
      }
      out += name;
      i = after;
      continue;
    }
    // `[@Price]`, `[Price]` within the table's own cells (not `[1]`, another workbook).
    if (
      char === "[" &&
      own !== undefined &&
      !/[\]A-Za-z0-9_.!']/.test(previous) &&
      !/^\[\d+\]/.test(formula.slice(i))
    ) {
      const end = closingBracket(formula, i);
      if (end !== -1) {
        out += reference(own, formula.slice(i + 1, end - 1), sheets, at);
        i = end;
        continue;
      }
    }
    out += char;
    i++;
  }
  return out;
}

/** Where a quoted text or sheet name opening at `start` ends (after its closing quote; a doubled one is inside it). */
function closingQuote(text: string, start: number, quote: string): number {
  let at = start + 1;
  for (;;) {
    const next = text.indexOf(quote, at);
    if (next === -1) return text.length;
    if (text[next + 1] === quote) at = next + 2;
    else return next + 1;
  }
}

/** Where the bracket opening at `start` closes (after it), a `'` escaping the next character; -1 when it never does. */
function closingBracket(text: string, start: number): number {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const char = text[at];
    if (char === "'") {
      at++;
      continue;
    }
    if (char === "[") depth++;
    else if (char === "]") {
      depth--;
      if (depth === 0) return at + 1;
    }
  }
  return -1;
}

/** A column's name as a reference writes it: `'` before `[`, `]`, `#` and `'`. */
function unescaped(name: string): string {
  return name.replace(/'(.)/g, "$1");
}

/**
 * What the inside of a table's brackets stands for: parts (`#Data`…) and columns, as A1.
 * `@` is `#This Row`; no part means the data rows.
 */
function reference(
  table: WorkbookTable,
  inside: string,
  sheets: readonly string[],
  at: { readonly row: number },
): string {
  const items: string[] = [];
  let body = inside.trim();
  if (body.startsWith("@")) {
    items.push("#This Row");
    body = body.slice(1).trim();
  }
  if (body.startsWith("[")) {
    // `[[#Headers],[Price]:[Tax]]`: items in brackets, separated by commas.
    let at = 0;
    while (at < body.length) {
      if (body[at] === "[") {
        const end = closingBracket(body, at);
        if (end === -1) return "#REF!";
        let item = body.slice(at + 1, end - 1);
        at = end;
        // A column range: `[Price]:[Tax]`.
        while (body[at] === " ") at++;
        if (body[at] === ":" && body[at + 1] === "[") {
          const close = closingBracket(body, at + 1);
          if (close === -1) return "#REF!";
          item = `${item}\u0000${body.slice(at + 2, close - 1)}`;
          at = close;
        }
        items.push(item);
      } else {
        at++;
      }
    }
  } else if (body !== "") {
    items.push(body);
  }
  const parts = new Set<Part>();
  let columns: [number, number] | null = null;
  for (const item of items) {
    const part = PARTS.find((each) => each.toUpperCase() === item.trim().toUpperCase());
    if (part !== undefined) {
      parts.add(part);
      continue;
    }
    const [first, last = first] = item.split("\u0000").map((name) => columnOf(table, unescaped(name as string)));
    if (first === undefined || last === undefined || first < 0 || last < 0) return "#REF!";
    columns = [Math.min(first, last), Math.max(first, last)];
  }
  const dataFirst = table.firstRow + table.headerRows;
  const dataLast = table.lastRow - table.totalsRows;
  let rows: [number, number];
  if (parts.has("#This Row")) {
    if (at.row < dataFirst || at.row > dataLast) return "#VALUE!";
    rows = [at.row, at.row];
  } else if (parts.has("#All") || (parts.has("#Headers") && parts.has("#Totals"))) {
    rows = [table.firstRow, table.lastRow];
  } else if (parts.has("#Headers")) {
    if (table.headerRows === 0) return "#REF!";
    rows = [table.firstRow, parts.has("#Data") ? dataLast : table.firstRow];
  } else if (parts.has("#Totals")) {
    if (table.totalsRows === 0) return "#REF!";
    rows = [parts.has("#Data") ? dataFirst : table.lastRow, table.lastRow];
  } else {
    rows = [dataFirst, dataLast];
  }
  if (rows[1] < rows[0]) return "#REF!";
  const [firstColumn, lastColumn] = columns ?? [0, table.lastColumn - table.firstColumn];
  const sheet = sheets[table.sheet] ?? "";
  const quoted = /^[A-Za-z_][A-Za-z0-9_.]*$/.test(sheet) ? sheet : `'${sheet.replaceAll("'", "''")}'`;
  const cell = (row: number, column: number) => `$${columnLetters(table.firstColumn + column)}$${row}`;
  const start = cell(rows[0], firstColumn);
  const end = cell(rows[1], lastColumn);
  return `${quoted}!${start === end ? start : `${start}:${end}`}`;
}

/** A column's position in its table (from 0), by name, as Excel compares them (case aside); -1 when none. */
function columnOf(table: WorkbookTable, name: string): number {
  const upper = name.toUpperCase();
  return table.columns.findIndex((column) => column.toUpperCase() === upper);
}
