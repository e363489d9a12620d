import type { CellArea, CellValues, FormulaEngine } from "../formulas/formula-engine.port.js";
import { FormulaUncomputableError } from "../formulas/formula-engine.port.js";
import type { FormulaValue } from "../formulas/formula-values.js";
import type { Closable, ContractSubject, ContractTestApi } from "./contract-api.js";
import { fresh } from "./contract-api.js";

export interface FormulaEngineFixture extends Closable {
  readonly engine: FormulaEngine;
}

/** Cells by `Sheet!A1`, and defined names: what a formula is computed from in these tests. */
export function cellsOf(
  grid: Record<string, FormulaValue>,
  names: Record<string, CellArea> = {},
): CellValues & { readonly reads: string[] } {
  const reads: string[] = [];
  const letters = (column: number) => {
    let text = "";
    for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
      text = String.fromCharCode(65 + ((rest - 1) % 26)) + text;
    }
    return text;
  };
  const lastRow = Math.max(0, ...Object.keys(grid).map((key) => Number(/\d+$/.exec(key)?.[0] ?? 0)));
  return {
    reads,
    value(sheet, row, column) {
      const key = `${sheet}!${letters(column)}${row}`;
      reads.push(key);
      return grid[key] ?? null;
    },
    area(area) {
      reads.push(
        `${area.sheet}!${letters(area.firstColumn)}${area.firstRow}:${letters(area.lastColumn)}${area.lastRow}`,
      );
      const rows: FormulaValue[][] = [];
      for (let row = area.firstRow; row <= Math.min(area.lastRow, lastRow); row++) {
        const values: FormulaValue[] = [];
        for (let column = area.firstColumn; column <= Math.min(area.lastColumn, 30); column++) {
          values.push(grid[`${area.sheet}!${letters(column)}${row}`] ?? null);
        }
        rows.push(values);
      }
      return rows;
    },
    name(name) {
      return names[name.toUpperCase()] ?? null;
    },
  };
}

/**
 * What every `FormulaEngine` owes (its port's guarantees): reading formulas without
 * computing them, computing them as Excel does, and moving their references.
 */
export function formulaEngineContract(t: ContractTestApi, subject: ContractSubject<FormulaEngineFixture>): void {
  const { describe, expect } = t;
  const test = fresh(t, subject);
  const at = { sheet: "Budget", row: 10, column: 4 };
  const settings = { date1904: false };

  describe("a formula engine", () => {
    test("reads the areas a formula names, on its own sheet or another, whole columns and rows included", async ({
      engine,
    }) => {
      const read = engine.read("SUM(B2:C5)+'Q1 Budget'!$A$1*Rates!B:B-SUM(3:4)", at);
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      expect(read.reading.areas).toEqual([
        { sheet: "Budget", firstRow: 2, lastRow: 5, firstColumn: 2, lastColumn: 3 },
        { sheet: "Q1 Budget", firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 },
        { sheet: "Rates", firstRow: 1, lastRow: 1_048_576, firstColumn: 2, lastColumn: 2 },
        { sheet: "Budget", firstRow: 3, lastRow: 4, firstColumn: 1, lastColumn: 16_384 },
      ]);
      expect(read.reading.functions).toEqual(["SUM"]);
    });

    test("reads defined names and functions, newer ones without their _xlfn. prefix, and what it cannot compute", async ({
      engine,
    }) => {
      const read = engine.read('_xlfn.CONCAT("a",TaxRate)&XLOOKUP(1,A1:A3,B1:B3)', at);
      expect(read.ok).toBe(true);
      if (!read.ok) return;
      expect(read.reading.names).toEqual(["TaxRate"]);
      expect(read.reading.functions).toEqual(expect.arrayContaining(["CONCAT", "XLOOKUP"]));
      expect(read.reading.unsupported).toEqual(["XLOOKUP"]);
      const table = engine.read("SUM(Sales[Amount])", at);
      expect(table.ok && table.reading.obstacle).toMatch(/table/);
    });

    test("never throws reading a formula, whatever its text", async ({ engine }) => {
      for (const text of ["", "((((", '"unclosed', "A1+\u0000", "#", "SUM(A1:A2", "¤", "1".repeat(10_000)]) {
        const read = engine.read(text, at);
        expect(typeof read.ok).toBe("boolean");
      }
      expect(engine.read("1".repeat(10_000), at).ok).toBe(false);
    });

    test("checks a typed formula's whole grammar: what does not parse is named, what does passes", async ({
      engine,
    }) => {
      for (const text of ["1+", "SUM(A1", "SUM(A1,,", "(1", "A1 B1 +", '"unclosed', "1".repeat(10_000)]) {
        expect(typeof engine.check(text, at), text).toBe("string");
      }
      for (const text of ["1+2", "SUM(A1:A3)*2", 'IF(A1>0,"yes","no")', "'Q1 Budget'!B2+Rate", "-A1%", "{1,2;3,4}"]) {
        expect(engine.check(text, at), text).toBeNull();
      }
    });

    test("computes arithmetic, text, logic and lookups from the cells it is given", async ({ engine }) => {
      const cells = cellsOf({
        "Budget!A1": 2,
        "Budget!A2": 3,
        "Budget!B1": "apples",
        "Budget!B2": "pears",
        "Rates!A1": 0.25,
      });
      const results = Object.fromEntries(
        [
          "A1*A2+1",
          "SUM(A1:A2)*Rates!A1",
          "SUM(A:A)",
          'IF(A2>A1,"more","less")',
          "VLOOKUP(3,A1:B2,2,FALSE)",
          "MAX(A1:A2)",
          "MATCH(3,A1:A2,0)",
          "LEN(B1)",
          'TEXT(A2/A1,"0.00")',
          "A1&B1",
          "ROUND(1/3,4)",
          "STDEV(1,2,3)",
          "Z99",
        ].map((formula) => [formula, engine.evaluate(formula, at, cells, settings)]),
      );
      expect(results).toEqual({
        "A1*A2+1": 7,
        "SUM(A1:A2)*Rates!A1": 1.25,
        "SUM(A:A)": 5,
        'IF(A2>A1,"more","less")': "more",
        "VLOOKUP(3,A1:B2,2,FALSE)": "pears",
        "MAX(A1:A2)": 3,
        "MATCH(3,A1:A2,0)": 2,
        "LEN(B1)": 6,
        'TEXT(A2/A1,"0.00")': "1.50",
        "A1&B1": "2apples",
        "ROUND(1/3,4)": 0.3333,
        // Excel's older name of STDEV.S, as workbooks still write it.
        "STDEV(1,2,3)": 1,
        // A reference to an empty cell is 0, as in Excel.
        Z99: 0,
      });
    });

    test("gives errors as values: division by zero, a wrong type, a missing lookup, a function or name nobody has", async ({
      engine,
    }) => {
      const cells = cellsOf({ "Budget!A1": 2, "Budget!B1": "x", "Budget!C1": { error: "#N/A" } });
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      expect(value("A1/0")).toEqual({ error: "#DIV/0!" });
      expect(value("A1+B1")).toEqual({ error: "#VALUE!" });
      expect(value("MATCH(9,A1:A1,0)")).toEqual({ error: "#N/A" });
      expect(value("C1+1")).toEqual({ error: "#N/A" });
      expect(value("NOSUCHFUNCTION(1)")).toEqual({ error: "#NAME?" });
      expect(value("NoSuchName*2")).toEqual({ error: "#NAME?" });
      expect(value("IFERROR(A1/0,-1)")).toBe(-1);
    });

    test('compares an empty cell as Excel does: equal to "", to 0 and to FALSE', async ({ engine }) => {
      const cells = cellsOf({ "Budget!A1": "x" });
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      expect(value('B1=""')).toBe(true);
      expect(value("B1=0")).toBe(true);
      expect(value("B1=FALSE")).toBe(true);
      expect(value('B1<>""')).toBe(false);
      expect(value('IF(B1="","none",VLOOKUP(B1,A1:C2,3,FALSE))')).toBe("none");
    });

    test("looks up in a table whose rows come shorter than the table (their last cells empty)", async ({ engine }) => {
      const area = [[1, "one"], [2]];
      const cells: CellValues = { value: () => null, area: () => area, name: () => null };
      expect(engine.evaluate("VLOOKUP(2,A1:C2,3,FALSE)", at, cells, settings)).toBe(0);
      expect(engine.evaluate("VLOOKUP(1,A1:C2,2,FALSE)", at, cells, settings)).toBe("one");
    });

    test("gives an aggregate the first error among the cells it reads, and lets COUNT pass over it", async ({
      engine,
    }) => {
      const cells = cellsOf({ "Budget!A1": 1, "Budget!A2": { error: "#DIV/0!" }, "Budget!A3": 3 });
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      for (const formula of ["SUM(A1:A3)", "AVERAGE(A1:A3)", "MAX(A1:A3)", "MIN(A1:A3)", "PRODUCT(A1:A3)"]) {
        expect(value(formula), formula).toEqual({ error: "#DIV/0!" });
      }
      expect(value("COUNT(A1:A3)")).toBe(2);
      expect(value("SUM(A1,A3)")).toBe(4);
    });

    test("reads a defined name as the cells it stands for", async ({ engine }) => {
      const cells = cellsOf(
        { "Rates!A1": 0.5, "Rates!A2": 1.5 },
        { TAXRATE: { sheet: "Rates", firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 } },
      );
      expect(engine.evaluate("100*TaxRate", at, cells, settings)).toBe(50);
    });

    test("refuses what it cannot compute instead of giving a value it did not compute", async ({ engine }) => {
      const cells = cellsOf({});
      expect(() => engine.evaluate("XLOOKUP(1,A1:A3,B1:B3)", at, cells, settings)).toThrow(FormulaUncomputableError);
      expect(() => engine.evaluate('WEBSERVICE("http://127.0.0.1/")', at, cells, settings)).toThrow(
        FormulaUncomputableError,
      );
    });

    test("computes dates in the workbook's date system", async ({ engine }) => {
      const cells = cellsOf({ "Budget!A1": 46_053 - 1_462 });
      expect(engine.evaluate("DATE(2026,1,31)", at, cells, settings)).toBe(46_053);
      expect(engine.evaluate("DATE(2026,1,31)", at, cells, { date1904: true })).toBe(46_053 - 1_462);
      expect(engine.evaluate("YEAR(A1)", at, cells, { date1904: true })).toBe(2026);
      // A number shown by TEXT is a date only where its format shows one.
      expect(engine.evaluate('TEXT(A1,"yyyy-mm-dd")', at, cells, { date1904: true })).toBe("2026-01-31");
      expect(engine.evaluate('TEXT(12.34,"0.0")', at, cells, { date1904: true })).toBe("12.3");
      expect(engine.evaluate('TEXT(1.5,"[h]:mm")', at, cells, { date1904: true })).toBe("36:00");
    });

    test("reads arguments as Excel does: an empty one is 0, one left out FALSE; VALUE reads text as typed, else #VALUE!", async ({
      engine,
    }) => {
      const cells = cellsOf({});
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      expect(value("IF(FALSE,1,)")).toBe(0);
      expect(value("IF(TRUE,,2)")).toBe(0);
      expect(value("IF(FALSE,1)")).toBe(false);
      expect(value('VALUE("1,234.5")')).toBe(1234.5);
      expect(value('VALUE("12%")')).toBe(0.12);
      expect(value('VALUE("")')).toEqual({ error: "#VALUE!" });
      expect(value('VALUE("apples")')).toEqual({ error: "#VALUE!" });
    });

    test("INDIRECT reads the reference its text names: a cell, a rectangle, another sheet, a defined name", async ({
      engine,
    }) => {
      const cells = cellsOf(
        { "Budget!A1": 2, "Budget!A2": 3, "Budget!B1": "A2", "Rates!C4": 7 },
        { TAX: { sheet: "Rates", firstRow: 4, lastRow: 4, firstColumn: 3, lastColumn: 3 } },
      );
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      expect(value("INDIRECT(B1)*10")).toBe(30);
      expect(value('INDIRECT("A"&(1+1))')).toBe(3);
      expect(value('SUM(INDIRECT("A1:A2"))')).toBe(5);
      expect(value(`INDIRECT("'Rates'!C4")+INDIRECT("Rates!$C$4")`)).toBe(14);
      expect(value('INDIRECT("Tax")')).toBe(7);
      expect(value('INDIRECT("not a reference")')).toEqual({ error: "#REF!" });
      expect(value("INDIRECT(12)")).toEqual({ error: "#REF!" });
      // Its formula is computed again at every edit: what it reads is known only then.
      const read = engine.read('INDIRECT("A1")', at);
      expect(read.ok && read.reading.volatile && read.reading.unsupported.length === 0).toBe(true);
    });

    test("TEXT shows a value by any format a cell can have, as Excel's TEXT does", async ({ engine }) => {
      const cells = cellsOf({ "Budget!A1": 1234.5, "Budget!A2": -1.5, "Budget!A3": "12" });
      const value = (formula: string) => engine.evaluate(formula, at, cells, settings);
      expect(value('TEXT(A1,"£#,##0.00")')).toBe("£1,234.50");
      expect(value(`TEXT(A1,"[>1000]""big"";""small""")`)).toBe("big");
      expect(value('TEXT(1.5,"[h]:mm")')).toBe("36:00");
      expect(value('TEXT(A2/24,"[h]:mm")')).toBe("-1:30");
      expect(value('TEXT(A3,"0.0")')).toBe("12.0");
      expect(value(`TEXT("pear",";;;""fruit: ""@")`)).toBe("fruit: pear");
      expect(value('TEXT(A1,"")')).toBe("");
      expect(value('TEXT(TRUE,"0")')).toBe("TRUE");
    });

    test("reads absolute whole columns as the columns they name", async ({ engine }) => {
      const cells = cellsOf({ "Rates!A1": 1, "Rates!B1": "one", "Rates!A2": 2, "Rates!B2": "two" });
      expect(engine.evaluate("VLOOKUP(2,Rates!$A:$B,2,FALSE)", at, cells, settings)).toBe("two");
      expect(engine.evaluate("SUM(Rates!$A:$A)", at, cells, settings)).toBe(3);
    });

    test("follows rows inserted and deleted as Excel does: moved, grown, shrunk, #REF! where all is gone", async ({
      engine,
    }) => {
      const rows = (kind: "insert_rows" | "delete_rows", at: number, count: number) =>
        ({ kind, sheet: "Budget", at, count }) as const;
      const restructure = (formula: string, change: Parameters<FormulaEngine["restructure"]>[2], own = "Budget") =>
        engine.restructure(formula, own, change);
      // Two rows before row 3: A3 and after move, $ or not; a range across row 3 grows.
      expect(restructure("SUM(A1:A5)+$B$3+B2*C$7+Budget!D4", rows("insert_rows", 3, 2))).toBe(
        "SUM(A1:A7)+$B$5+B2*C$9+Budget!D6",
      );
      // Whole columns stay; whole rows move; another sheet's references stay.
      expect(restructure("SUM(A:A)+SUM(4:6)+Rates!A9", rows("insert_rows", 3, 1))).toBe("SUM(A:A)+SUM(5:7)+Rates!A9");
      // Seen from another sheet: only references to Budget move.
      expect(restructure("Budget!A9+A9+'Budget'!B9", rows("insert_rows", 1, 1), "Rates")).toBe(
        "Budget!A10+A9+'Budget'!B10",
      );
      // Rows 3 to 5 deleted: after them back by 3, a range across them shrinks, one inside them is #REF!.
      expect(restructure("SUM(A1:A10)+A4+Budget!A4+B8+SUM(C3:C5)", rows("delete_rows", 3, 3))).toBe(
        "SUM(A1:A7)+#REF!+Budget!#REF!+B5+SUM(#REF!)",
      );
      expect(restructure("SUM(A4:A9)", rows("delete_rows", 3, 3))).toBe("SUM(A3:A6)");
      // Text, names and functions are left alone, spaces too; a moved reference is written as Excel writes it.
      expect(restructure('IF( a5 > 1, "A5", Tax )', rows("insert_rows", 1, 1))).toBe('IF( A6 > 1, "A5", Tax )');
    });

    test("follows columns inserted and deleted, and sheets renamed and deleted", async ({ engine }) => {
      const columns = (kind: "insert_columns" | "delete_columns", at: number, count: number) =>
        ({ kind, sheet: "Budget", at, count }) as const;
      expect(engine.restructure("SUM(A1:D1)+$C$2+C:E+3:3", "Budget", columns("insert_columns", 2, 1))).toBe(
        "SUM(A1:E1)+$D$2+D:F+3:3",
      );
      expect(engine.restructure("SUM(A1:F1)+C1+E:E", "Budget", columns("delete_columns", 2, 2))).toBe(
        "SUM(A1:D1)+#REF!+C:C",
      );
      const renamed = { kind: "rename_sheet", sheet: "budget", to: "Q1 Budget" } as const;
      expect(engine.restructure("Budget!A1+A1+SUM(Budget!B1:B3)+Rates!C1", "Rates", renamed)).toBe(
        "'Q1 Budget'!A1+A1+SUM('Q1 Budget'!B1:B3)+Rates!C1",
      );
      const deleted = { kind: "delete_sheet", sheet: "Budget" } as const;
      expect(engine.restructure("Budget!A1+SUM('Budget'!B1:B3)+A1", "Rates", deleted)).toBe("#REF!+SUM(#REF!)+A1");
      // What a change leaves as it was keeps its text exactly.
      expect(engine.restructure("a1 +  $B$2", "Rates", columns("insert_columns", 1, 1))).toBe("a1 +  $B$2");
    });

    test("moves relative references, keeps absolute ones, and breaks those moved off the sheet", async ({ engine }) => {
      expect(engine.move("SUM(A1:$B2)+Rates!C$3*'Q1 Budget'!$D4+A:A", 2, 1)).toBe(
        "SUM(B3:$B4)+Rates!D$3*'Q1 Budget'!$D6+B:B",
      );
      expect(engine.move('A2&"A1"', -1, 0)).toBe('A1&"A1"');
      expect(engine.move("A1*2", -1, 0)).toBe("#REF!*2");
    });
  });
}
