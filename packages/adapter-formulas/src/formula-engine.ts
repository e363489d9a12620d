import {
  type CellArea,
  type CellPlace,
  type CellValues,
  type FormulaEngine,
  type FormulaSyntax,
  FormulaUncomputableError,
  type FormulaValue,
  formulaError,
  isFormulaError,
  typedEntry,
  type WorkbookSettings,
} from "@cellar/core";
import * as formulajs from "@formulajs/formulajs";
import FormulaParser, { type FunctionArgument } from "fast-formula-parser";
import { format as formatNumber, isDateFormat, isValidFormat } from "numfmt";
import { EXCEL_FUNCTIONS_UNCOMPUTED, VOLATILE_FUNCTIONS } from "./excel-functions.js";
import { moveReferences, readTokens, referenceOf, restructureReferences, tokensOf } from "./formula-text.js";

const { FormulaError, DepParser } = FormulaParser;

/** The engine's name and version, as docs/performance.md compares it. */
export const FORMULA_ENGINE_NAME = "fast-formula-parser 1.0.19 with @formulajs/formulajs 4";

/** The longest formula Excel keeps, in characters. */
const MAX_FORMULA_CHARACTERS = 8_192;

/**
 * Whether a number format shows a date (a year, a day or a month, not only a time or an
 * elapsed `[h]`): how the number counts its days then depends on the date system.
 */
export function showsDate(format: unknown): boolean {
  if (typeof format !== "string") return false;
  const codes = format
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    // Elapsed hours, minutes or seconds count time; other brackets (a colour, a condition) count nothing.
    .replace(/\[(?:h+|m+|s+)\]/gi, "h")
    .replace(/\[[^\]]*\]/g, "")
    .toLowerCase();
  if (/[yd]/.test(codes) || /mmm/.test(codes)) return true;
  // `m` is minutes beside hours or seconds, else a month.
  return /m/.test(codes) && !/[hs]/.test(codes) && codes !== "general";
}

/** Functions whose result is the first error among the cells they read, as in Excel. */
const ERROR_PROPAGATING_AGGREGATES = [
  "SUM",
  "AVERAGE",
  "MAX",
  "MIN",
  "PRODUCT",
  "SUMPRODUCT",
  "SUMSQ",
  "MEDIAN",
  "MODE",
  "MODE.SNGL",
  "STDEV",
  "STDEV.S",
  "STDEV.P",
  "STDEVP",
  "VAR",
  "VAR.S",
  "VAR.P",
  "VARP",
  "LARGE",
  "SMALL",
  "AVEDEV",
  "DEVSQ",
  "GEOMEAN",
  "HARMEAN",
  "CONCAT",
  "AND",
  "OR",
  "XOR",
];

/** The first error among a function's arguments, in a range's cells too; null when none. */
function firstError(args: readonly unknown[]): InstanceType<typeof FormulaError> | null {
  for (const argument of args) {
    const value = (argument as { value?: unknown } | null | undefined)?.value;
    if (value instanceof FormulaError) return value;
    if (!Array.isArray(value)) continue;
    for (const row of value) {
      if (row instanceof FormulaError) return row;
      if (!Array.isArray(row)) continue;
      for (const cell of row) if (cell instanceof FormulaError) return cell;
    }
  }
  return null;
}

/** Excel's TEXT: its range of dates, its Lotus leap day of 1900, nothing for a fill (`*`). */
const TEXT_OPTIONS = { dateSpanLarge: false, leap1900: true, throws: false, invalid: "#VALUE!" } as const;

/** Serial day numbers between the 1900 and 1904 date systems. */
const DAYS_1900_TO_1904 = 1_462;

const ENGINE_ERRORS = new Map<string, InstanceType<typeof FormulaError>>([
  ["#DIV/0!", FormulaError.DIV0],
  ["#N/A", FormulaError.NA],
  ["#NAME?", FormulaError.NAME],
  ["#NULL!", FormulaError.NULL],
  ["#NUM!", FormulaError.NUM],
  ["#REF!", FormulaError.REF],
  ["#VALUE!", FormulaError.VALUE],
]);

/** An area as fast-formula-parser refers to it: a cell, or a rectangle from one corner to the other. */
function engineReference(area: CellArea) {
  return area.firstRow === area.lastRow && area.firstColumn === area.lastColumn
    ? { sheet: area.sheet, row: area.firstRow, col: area.firstColumn }
    : {
        sheet: area.sheet,
        from: { row: area.firstRow, col: area.firstColumn },
        to: { row: area.lastRow, col: area.lastColumn },
      };
}

/** A value as fast-formula-parser takes it: an error as its own error object. */
function toEngine(value: FormulaValue): unknown {
  return isFormulaError(value) ? (ENGINE_ERRORS.get(value.error) ?? FormulaError.VALUE) : value;
}

/** A result as Cellar keeps it; a reference to an empty cell gives 0, as in Excel. */
function fromEngine(result: unknown): FormulaValue {
  if (result === null || result === undefined) return 0;
  if (typeof result === "number") {
    if (Number.isNaN(result)) return { error: "#VALUE!" };
    if (!Number.isFinite(result)) return { error: "#NUM!" };
    return result === 0 ? 0 : result;
  }
  if (typeof result === "string" || typeof result === "boolean") return result;
  if (result instanceof Error) {
    const text = (result as { error?: string }).error ?? result.message;
    return formulaError(text) ?? { error: "#VALUE!" };
  }
  if (Array.isArray(result)) return fromEngine((result[0] as unknown[] | undefined)?.[0]);
  return { error: "#VALUE!" };
}

/**
 * A formulajs function as fast-formula-parser calls its own: arguments by value (a range
 * as its rows), errors as its error objects.
 */
function fromFormulajs(implementation: (...args: unknown[]) => unknown) {
  return (...args: FunctionArgument[]) => {
    const values = args.map((arg) => (arg.omitted ? undefined : arg.value));
    for (const value of values) if (value instanceof FormulaError) throw value;
    const result = implementation(...values);
    if (result instanceof Error) throw ENGINE_ERRORS.get(result.message) ?? FormulaError.VALUE;
    return result;
  };
}

/**
 * fast-formula-parser's functions, and formulajs's where it has none. formulajs keeps
 * Excel's dotted names as properties (`STDEV.S` is `STDEV.S`, `F.DIST.RT` is `F.DIST.RT`).
 */
function functionTable(parser: FormulaParser): {
  extra: Record<string, (...args: FunctionArgument[]) => unknown>;
  known: Set<string>;
} {
  // Some of fast-formula-parser's functions are placeholders that give nothing (MAX,
  // MATCH, LEN among them): called with zeros, as its own supportedFunctions() tells them.
  // WEBSERVICE is never called: a workbook does not make Cellar fetch anything.
  const known = new Set<string>();
  for (const [name, implementation] of Object.entries(parser.functions)) {
    if (name === "WEBSERVICE") continue;
    try {
      if ((implementation as (...args: number[]) => unknown)(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) !== undefined)
        known.add(name);
    } catch (error) {
      if (error instanceof Error) known.add(name);
    }
  }
  const extra: Record<string, (...args: FunctionArgument[]) => unknown> = {};
  const visit = (name: string, value: unknown, depth: number) => {
    if (typeof value === "function" && !known.has(name)) {
      extra[name] = fromFormulajs(value as (...args: unknown[]) => unknown);
    }
    if (depth >= 3 || (typeof value !== "function" && (typeof value !== "object" || value === null))) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === key.toUpperCase() && /^[A-Z0-9]+$/.test(key)) visit(`${name}.${key}`, inner, depth + 1);
    }
  };
  for (const [name, value] of Object.entries(formulajs as unknown as Record<string, unknown>)) {
    if (name === name.toUpperCase() && /^[A-Z][A-Z0-9]*$/.test(name)) visit(name, value, 1);
  }
  // Excel's older names, which workbooks still use: formulajs keeps them only as groups.
  for (const [legacy, current] of [
    ["STDEV", "STDEV.S"],
    ["VAR", "VAR.S"],
    ["MODE", "MODE.SNGL"],
  ] as const) {
    const implementation = extra[current];
    if (!known.has(legacy) && implementation !== undefined) extra[legacy] = implementation;
  }
  return { extra, known };
}

/**
 * Cellar's formula engine. fast-formula-parser (MIT) parses and computes each formula
 * with its own functions, formulajs (MIT) lends the functions it lacks; Cellar gives it
 * the cells (`CellValues`) and orders the computation (core's `FormulaGraph`).
 *
 * A formula is read (`read`) from fast-formula-parser's own lexer: its references,
 * names and functions, in a microsecond or two, where a full parse takes ten; `check`
 * parses it whole, for formulas people type.
 */
export function createFormulaEngine(): FormulaEngine {
  let cells: CellValues | null = null;
  let date1904 = false;
  let position: CellPlace = { sheet: "", row: 1, column: 1 };
  const cellsNow = (): CellValues => {
    if (cells === null) throw new Error("unreachable: a formula evaluated outside evaluate()");
    return cells;
  };
  const engineAreas = new WeakMap<object, unknown[][]>();
  const probe = new FormulaParser({});
  const { extra, known } = functionTable(probe);
  // Names of the functions a workbook written in 1904 mode reads or gives dates with: moved
  // to and from the 1900 system the libraries compute in.
  const dateArguments = ["YEAR", "MONTH", "DAY", "WEEKDAY", "WEEKNUM", "ISOWEEKNUM", "EDATE", "EOMONTH"];
  const dateResults = ["DATE", "DATEVALUE", "TODAY", "NOW", "EDATE", "EOMONTH", "WORKDAY", "WORKDAY.INTL"];
  const parser = new FormulaParser({
    functions: { ...extra, WEBSERVICE: () => undefined },
    onCell: (ref) => toEngine(cellsNow().value(ref.sheet, ref.row, ref.col)),
    onRange: (ref) => {
      const area = cellsNow().area({
        sheet: ref.sheet,
        firstRow: ref.from.row,
        lastRow: ref.to.row,
        firstColumn: ref.from.col,
        lastColumn: ref.to.col,
      });
      // An area read again (a lookup table 20,000 VLOOKUPs read) comes as the same rows:
      // converted once. Copied per read, it took two thirds of a 100,000-formula upload.
      let converted = engineAreas.get(area);
      if (converted === undefined) {
        // Rows come as long as their last value; the library's lookups count a table's
        // columns from its rows, so a table's rows are made whole (a whole row's are not).
        const width = ref.to.col - ref.from.col + 1;
        const short = width <= 1_024 && area.some((row) => row.length < width);
        converted =
          short || area.some((row) => row.some(isFormulaError))
            ? area.map((row) => {
                const values = row.map(toEngine);
                while (short && values.length < width) values.push(null);
                return values;
              })
            : area;
        engineAreas.set(area, converted);
      }
      return converted;
    },
    onVariable: (name, sheet) => {
      const area = cellsNow().name(name, sheet);
      return area === null ? null : engineReference(area);
    },
  });
  const table = parser.functions as Record<string, (...args: unknown[]) => unknown>;
  // INDIRECT: the reference its text names, read by the lexer Cellar reads formulas with
  // (no library has it). A1 style only; R1C1 keeps the stored result. What it reaches is
  // known only once computed: core computes such a cell first when a formula reads it.
  table.INDIRECT = (_context: unknown, text: unknown, style: unknown) => {
    const written = (text as FunctionArgument | undefined)?.value;
    const a1 = (style as FunctionArgument | null | undefined)?.value;
    if (written instanceof FormulaError) throw written;
    if (a1 === false || a1 === 0) throw new FormulaUncomputableError("Cellar cannot compute INDIRECT in R1C1 style");
    if (typeof written !== "string") throw FormulaError.REF;
    const reference = referenceOf(written);
    if (reference === null) throw FormulaError.REF;
    if ("name" in reference) {
      const area = cellsNow().name(reference.name, position.sheet);
      if (area === null) throw FormulaError.REF;
      return { ref: engineReference(area) };
    }
    return { ref: engineReference({ sheet: reference.sheet ?? position.sheet, ...reference.area }) };
  };
  known.add("INDIRECT");
  for (const name of new Set([...dateArguments, ...dateResults])) {
    const original = table[name];
    if (original === undefined) continue;
    table[name] = (...args: unknown[]) => {
      if (!date1904) return original(...args);
      if (dateArguments.includes(name)) {
        const first = args[0] as FunctionArgument | undefined;
        if (first !== undefined && typeof first.value === "number") {
          args[0] = { ...first, value: first.value + DAYS_1900_TO_1904 };
        }
      }
      const result = original(...args);
      return dateResults.includes(name) && typeof result === "number" ? result - DAYS_1900_TO_1904 : result;
    };
  }
  // Excel's IF: an argument left empty (`IF(A1,,2)`) is 0; one left out (`IF(A1,2)`) is FALSE.
  const libraryIf = table.IF as (...args: unknown[]) => unknown;
  // (IF's arguments come as written: an empty one is null, one left out undefined.)
  const zeroIfEmpty = (argument: unknown) => (argument === null ? { value: 0, isArray: false } : argument);
  table.IF = (context: unknown, test: unknown, ifTrue: unknown, ifFalse: unknown) =>
    libraryIf(context, test, zeroIfEmpty(ifTrue), zeroIfEmpty(ifFalse));
  // An error among the cells an aggregate reads is its result, as in Excel (the library
  // skips it: SUM over a #DIV/0! gave the sum of the rest). COUNT, the IS… functions,
  // lookups and the conditional ones (SUMIF…) still pass over errors as Excel does.
  for (const name of ERROR_PROPAGATING_AGGREGATES) {
    const aggregate = table[name];
    if (aggregate === undefined) continue;
    table[name] = (...args: unknown[]) => {
      const error = firstError(args);
      if (error !== null) throw error;
      return aggregate(...args);
    };
  }
  // A lookup that finds an empty cell gives 0, as in Excel (the library's null is #NULL!).
  for (const name of ["VLOOKUP", "HLOOKUP", "LOOKUP", "INDEX"]) {
    const lookup = table[name];
    if (lookup === undefined) continue;
    table[name] = (...args: unknown[]) => {
      const found = lookup(...args);
      return found === null ? 0 : found;
    };
  }
  // Excel's TEXT, by numfmt (MIT), the library Cellar shows cells with: a number by its
  // format's sections, conditions, elapsed times and currencies, text by its text section,
  // a boolean as TRUE or FALSE. The library's own formatter missed a third of the corpus's
  // formats (`£`, `[h]`, `[>100]`, `;;;@`).
  table.TEXT = (...args: unknown[]) => {
    const value = (args[0] as FunctionArgument | undefined)?.value;
    const format = (args[1] as FunctionArgument | undefined)?.value;
    if (value instanceof FormulaError) throw value;
    if (format instanceof FormulaError) throw format;
    if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
    const code = typeof format === "number" ? String(format) : typeof format === "string" ? format : "";
    if (code === "") return "";
    if (code.length > 255 || !isValidFormat(code)) throw FormulaError.VALUE;
    let shown: number | string = value === null || value === undefined ? 0 : (value as number | string);
    if (typeof shown === "string" && shown.trim() !== "") {
      const typed = typedEntry(shown.startsWith("'") || shown.startsWith("=") ? "x" : shown, date1904);
      if (typed.kind === "value" && typeof typed.value === "number") shown = typed.value;
    }
    if (typeof shown === "number" && date1904 && showsDate(code)) shown += DAYS_1900_TO_1904;
    // A negative time in a format of one section shows as its length with a minus
    // (`-123:04.0`), where the library shows the number as General.
    if (typeof shown === "number" && shown < 0 && isDateFormat(code) && !/;/.test(code.replace(/"[^"]*"/g, ""))) {
      return `-${formatNumber(code, -shown, TEXT_OPTIONS)}`;
    }
    return formatNumber(code, shown, TEXT_OPTIONS);
  };
  // Excel's VALUE reads text as a cell would take it typed (`1,234`, `12%`, `$5`, a date), else #VALUE!.
  table.VALUE = (...args: unknown[]) => {
    const value = (args[0] as FunctionArgument | undefined)?.value;
    if (value instanceof FormulaError) throw value;
    if (typeof value === "number") return value;
    if (typeof value === "string") {
      const typed = typedEntry(value.startsWith("'") || value.startsWith("=") ? "x" : value, date1904);
      if (typed.kind === "value" && typeof typed.value === "number") return typed.value;
    }
    throw FormulaError.VALUE;
  };
  const dependencies = new DepParser({ onVariable: () => ({ row: 1, col: 1 }) });

  const engine = {
    name: FORMULA_ENGINE_NAME,

    read(formula: string, at: CellPlace): FormulaSyntax {
      if (formula.length > MAX_FORMULA_CHARACTERS) {
        return { ok: false, problem: `it is longer than ${MAX_FORMULA_CHARACTERS} characters` };
      }
      const tokens = tokensOf(formula);
      if (typeof tokens === "string") return { ok: false, problem: tokens };
      if (tokens.length === 0) return { ok: false, problem: "it is empty" };
      const lexed = readTokens(tokens);
      const unsupported = lexed.functions.filter(
        (name) => !known.has(name) && !(name in extra) && EXCEL_FUNCTIONS_UNCOMPUTED.has(name),
      );
      const areas: CellArea[] = lexed.references.map((reference) => ({
        sheet: reference.sheet ?? at.sheet,
        ...reference.area,
      }));
      return {
        ok: true,
        reading: {
          areas,
          names: lexed.names,
          functions: lexed.functions,
          unsupported,
          obstacle: lexed.brackets ? "it refers to a table or another workbook" : null,
          volatile: lexed.functions.some((name) => VOLATILE_FUNCTIONS.has(name)),
        },
      };
    },

    check(formula: string, at: CellPlace): string | null {
      const read = engine.read(formula, at);
      if (!read.ok) return read.problem;
      try {
        dependencies.parse(formula, { sheet: at.sheet, row: at.row, col: at.column });
        return null;
      } catch (error) {
        return parseProblem(error);
      }
    },

    evaluate(formula: string, at: CellPlace, values: CellValues, settings: WorkbookSettings): FormulaValue {
      cells = values;
      date1904 = settings.date1904;
      position = at;
      try {
        return fromEngine(parser.parse(formula, { sheet: at.sheet, row: at.row, col: at.column }));
      } catch (error) {
        // A function no spreadsheet program knows is #NAME?, as in Excel. One Excel has but
        // the libraries lack, or grammar the parser cannot follow, leaves the stored result.
        const details = (error as { details?: { message?: string } }).details;
        const missing = /Function (\S+) is not implemented/.exec(details?.message ?? "")?.[1];
        if (missing !== undefined) {
          const name = missing.toUpperCase();
          if (!known.has(name) && !EXCEL_FUNCTIONS_UNCOMPUTED.has(name)) return { error: "#NAME?" };
          throw new FormulaUncomputableError(`Cellar cannot compute ${name}`);
        }
        throw new FormulaUncomputableError(parseProblem(error));
      } finally {
        cells = null;
      }
    },

    move: moveReferences,
    restructure: restructureReferences,
  };
  return engine;
}

/** A parse error's message, safe to show: where the formula stops making sense. */
function parseProblem(error: unknown): string {
  if (error instanceof RangeError) return "it is nested too deeply";
  const message = error instanceof Error ? error.message : String(error);
  const position = /position \d+:(\d+)/.exec(message)?.[1];
  return position === undefined ? "it does not parse" : `it does not parse at character ${position}`;
}
