import { describe, expect, it } from "vitest";
import {
  fillCells,
  fillDown,
  filledValues,
  fillHandleTarget,
  fillRight,
  shiftFormulaReferences,
} from "../src/app/preview/fill.js";

const bounds = (top: number, left: number, bottom: number, right: number) => ({ top, left, bottom, right });

describe("fill down and fill right", () => {
  it("fills a selection's rows below its first with the first (Ctrl+D)", () => {
    expect(fillDown(bounds(2, 2, 5, 3))).toEqual({ source: bounds(2, 2, 2, 3), target: bounds(3, 2, 5, 3) });
  });

  it("fills a one-row selection with the row above it, and does nothing on the first row", () => {
    expect(fillDown(bounds(4, 1, 4, 3))).toEqual({ source: bounds(3, 1, 3, 3), target: bounds(4, 1, 4, 3) });
    expect(fillDown(bounds(1, 1, 1, 3))).toBeNull();
  });

  it("fills right the same way (Ctrl+R)", () => {
    expect(fillRight(bounds(2, 2, 3, 5))).toEqual({ source: bounds(2, 2, 3, 2), target: bounds(2, 3, 3, 5) });
    expect(fillRight(bounds(2, 4, 3, 4))).toEqual({ source: bounds(2, 3, 3, 3), target: bounds(2, 4, 3, 4) });
    expect(fillRight(bounds(2, 1, 3, 1))).toBeNull();
  });
});

describe("the fill handle", () => {
  const source = bounds(3, 3, 4, 4);

  it("fills along the axis the pointer is further out on, as far as the pointer", () => {
    expect(fillHandleTarget(source, { row: 9, column: 5 })).toEqual(bounds(5, 3, 9, 4));
    expect(fillHandleTarget(source, { row: 1, column: 4 })).toEqual(bounds(1, 3, 2, 4));
    expect(fillHandleTarget(source, { row: 5, column: 8 })).toEqual(bounds(3, 5, 4, 8));
    expect(fillHandleTarget(source, { row: 3, column: 1 })).toEqual(bounds(3, 1, 4, 2));
    // As far out down as right: down.
    expect(fillHandleTarget(source, { row: 6, column: 6 })).toEqual(bounds(5, 3, 6, 4));
  });

  it("fills nothing while the pointer is on the source", () => {
    expect(fillHandleTarget(source, { row: 4, column: 3 })).toBeNull();
  });
});

describe("which cell each filled cell copies", () => {
  it("repeats a source of several rows as a pattern, each cell with its offset from its source", () => {
    const cells = fillCells({ source: bounds(1, 1, 2, 1), target: bounds(3, 1, 7, 1) });
    expect(cells.map(([cell]) => cell?.sourceRow)).toEqual([1, 2, 1, 2, 1]);
    expect(cells.map(([cell]) => cell?.rowOffset)).toEqual([2, 2, 4, 4, 6]);
    expect(cells[0]?.[0]).toEqual({ row: 3, column: 1, sourceRow: 1, sourceColumn: 1, rowOffset: 2, columnOffset: 0 });
  });

  it("fills up or left from the source's far end, as Excel does", () => {
    const up = fillCells({ source: bounds(4, 2, 6, 2), target: bounds(1, 2, 3, 2) });
    expect(up.map(([cell]) => cell?.sourceRow)).toEqual([4, 5, 6]);
    expect(up.map(([cell]) => cell?.rowOffset)).toEqual([-3, -3, -3]);
    // Left of C1:D1, B copies D (next to it) and A copies C.
    const left = fillCells({ source: bounds(1, 3, 1, 4), target: bounds(1, 1, 1, 2) });
    expect(left[0]?.map((cell) => [cell.sourceColumn, cell.columnOffset])).toEqual([
      [3, -2],
      [4, -2],
    ]);
  });

  it("gives the values written: formulas moved by their offset, other values as they are", () => {
    const source: Record<string, string | number | boolean | null> = {
      "1:1": "=A2*2",
      "1:2": 42,
      "1:3": "'=not a formula",
      "2:1": "=SUM($A$1:A1)",
      "2:2": null,
      "2:3": true,
    };
    const fill = { source: bounds(1, 1, 2, 3), target: bounds(3, 1, 5, 3) };
    expect(filledValues(fill, (row, column) => source[`${row}:${column}`] ?? null)).toEqual([
      ["=A4*2", 42, "'=not a formula"],
      ["=SUM($A$1:A3)", null, true],
      ["=A6*2", 42, "'=not a formula"],
    ]);
  });

  it("moves formulas with the function given (the server's engine, say)", () => {
    const calls: [string, number, number][] = [];
    const values = filledValues(
      fillRight(bounds(1, 1, 1, 3)) ?? fail(),
      () => "=B1",
      (formula, rows, columns) => {
        calls.push([formula, rows, columns]);
        return `moved ${rows},${columns}`;
      },
    );
    expect(values).toEqual([["moved 0,1", "moved 0,2"]]);
    expect(calls).toEqual([
      ["=B1", 0, 1],
      ["=B1", 0, 2],
    ]);
  });
});

function fail(): never {
  throw new Error("expected a fill");
}

describe("a formula's references moved", () => {
  const cases: [formula: string, rows: number, columns: number, moved: string][] = [
    // Relative references move; $-anchored parts stay.
    ["=A1+B2", 1, 0, "=A2+B3"],
    ["=A1+B2", 0, 1, "=B1+C2"],
    ["=$A$1+A$1+$A1+A1", 1, 1, "=$A$1+B$1+$A2+B2"],
    ["=a1+b$2", 1, 1, "=B2+C$2"],
    ["=Z1", 0, 1, "=AA1"],
    // Ranges, whole columns and whole rows.
    ["=SUM(A1:B2)", 2, 1, "=SUM(B3:C4)"],
    ["=SUM($A$1:A1)", 3, 0, "=SUM($A$1:A4)"],
    ["=SUM(A:A)", 5, 1, "=SUM(B:B)"],
    ["=SUM($A:B)", 0, 1, "=SUM($A:C)"],
    ["=SUM(1:1)", 2, 0, "=SUM(3:3)"],
    ["=SUM($1:2)", 2, 3, "=SUM($1:4)"],
    // Strings are text, a reference in them too.
    ['="A1"&A1', 1, 0, '="A1"&A2'],
    ['="say ""A1"" "&B1', 1, 0, '="say ""A1"" "&B2'],
    // References on other sheets move too.
    ["=Sheet2!A1", 1, 0, "=Sheet2!A2"],
    ["='Q1 Budget'!$B$2+'Q1 Budget'!B2", 1, 1, "='Q1 Budget'!$B$2+'Q1 Budget'!C3"],
    ["='It''s'!A1:B2", 1, 0, "='It''s'!A2:B3"],
    ["=SUM(Jan:Mar!B2)", 1, 0, "=SUM(Jan:Mar!B3)"],
    ["=Données!A1", 0, 1, "=Données!B1"],
    ["=[1]Sheet1!A1", 1, 0, "=[1]Sheet1!A2"],
    ["=Sheet2!A:A", 0, 2, "=Sheet2!C:C"],
    // Functions and names that look like references are not.
    ["=LOG10(A1)+ATAN2(B1,C1)", 1, 0, "=LOG10(A2)+ATAN2(B2,C2)"],
    ["=TAX2023(A1)", 1, 0, "=TAX2023(A2)"],
    ["=XFE1+A1048577+ABCD1+A0", 1, 1, "=XFE1+A1048577+ABCD1+A0"],
    ["=_xlfn.XLOOKUP(A1,B:B,C:C)", 1, 1, "=_xlfn.XLOOKUP(B2,C:C,D:D)"],
    ["=my.name+A1_x+R1C1+TRUE", 1, 1, "=my.name+A1_x+R1C1+TRUE"],
    ["=Sheet2!Total+A1", 1, 0, "=Sheet2!Total+A2"],
    // Numbers, errors, structured references.
    ["=1E10+A1*1.5E+3-0.5", 1, 0, "=1E10+A2*1.5E+3-0.5"],
    ["=IFERROR(A1,#N/A)+#REF!", 1, 0, "=IFERROR(A2,#N/A)+#REF!"],
    ["=Table1[[#This Row],[Amount]]*B2", 1, 0, "=Table1[[#This Row],[Amount]]*B3"],
    ["=A1%+SUM(B1#)", 1, 0, "=A2%+SUM(B2#)"],
    // Off the sheet: #REF!, a whole range so.
    ["=A1", -1, 0, "=#REF!"],
    ["=SUM(A1:B2)", -1, 0, "=SUM(#REF!)"],
    ["=SUM(A2:B3)+A1", -1, 0, "=SUM(A1:B2)+#REF!"],
    ["=Sheet2!A1", 0, -1, "=Sheet2!#REF!"],
    ["=XFD1", 0, 1, "=#REF!"],
    ["=A1048576", 1, 0, "=#REF!"],
    ["=SUM(A:B)", 0, -1, "=SUM(#REF!)"],
    ["=SUM(1:1048576)", 1, 0, "=SUM(#REF!)"],
    ["=$A$1", -5, -5, "=$A$1"],
    // Nothing to move.
    ["=A1", 0, 0, "=A1"],
  ];

  it.each(cases)("%s moved %i down and %i right is %s", (formula, rows, columns, moved) => {
    expect(shiftFormulaReferences(formula, rows, columns)).toBe(moved);
  });

  it("leaves an unfinished string or sheet name as it is", () => {
    expect(shiftFormulaReferences('="A1', 1, 0)).toBe('="A1');
    expect(shiftFormulaReferences("='Sheet A1", 1, 0)).toBe("='Sheet A1");
  });
});
