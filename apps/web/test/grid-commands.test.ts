// @vitest-environment happy-dom
// (a pasted HTML table is read with DOMParser.)
import type { CellarClient, CellWindow } from "@cellar/client";
import { describe, expect, it } from "vitest";
import type { CellValue } from "../src/app/preview/cell-text.js";
import type { CellWindows } from "../src/app/preview/cell-windows.js";
import {
  clipboardTexts,
  emptyBlock,
  fillBlock,
  fillInput,
  type GridTarget,
  knownEmpty,
  pastedBlock,
  shownBlockHere,
  tooBig,
} from "../src/app/preview/grid-commands.js";
import type { Bounds } from "../src/app/preview/selection.js";

const bounds = (top: number, left: number, bottom: number, right: number): Bounds => ({ top, left, bottom, right });

/** A clipboard's data as a paste event has it. */
const data = (types: Record<string, string>) => ({ getData: (type: string) => types[type] ?? "" }) as DataTransfer;

/** The cells a grid holds, by `row:column`; any other is not loaded. */
const windows = (cells: Record<string, CellValue>) =>
  ({
    cell: (row: number, column: number) => {
      const key = `${row}:${column}`;
      return key in cells ? { value: cells[key] } : undefined;
    },
  }) as unknown as CellWindows;

/** A client whose `values` answers from sheets of cells by render, as the API does (clipped to what it holds). */
function serving(answers: Record<string, CellWindow>, asked: string[] = []) {
  return {
    values: async (_id: string, range: string, options: { render: string; types?: boolean }) => {
      asked.push(`${options.render}${options.types ? "+types" : ""} ${range}`);
      const answer = answers[options.render];
      if (answer === undefined) throw new Error(`not asked for ${options.render}`);
      return answer;
    },
  } as unknown as CellarClient;
}

const target = (csv: boolean, client: CellarClient, cells: Record<string, CellValue> = {}): GridTarget => ({
  client,
  fileId: "f1",
  sheet: "Q1 Budget",
  csv,
  windows: windows(cells),
});

describe("a pasted block", () => {
  it("reads tab-separated text, as typed: nothing empties a cell", () => {
    expect(pastedBlock(data({ "text/plain": "Name\tAmount\r\nRent\t$1,200\r\nTotal\t=SUM(B2)\r\n" }), false)).toEqual([
      ["Name", "Amount"],
      ["Rent", "$1,200"],
      ["Total", "=SUM(B2)"],
    ]);
    expect(pastedBlock(data({ "text/plain": "a\t\tc" }), false)).toEqual([["a", null, "c"]]);
  });

  it("keeps a ' that keeps a cell text in a workbook, and drops it in a CSV (but not before a formula's text)", () => {
    const copied = data({ "text/plain": "'007\t'=A1\tplain\r\n" });
    expect(pastedBlock(copied, false)).toEqual([["'007", "'=A1", "plain"]]);
    expect(pastedBlock(copied, true)).toEqual([["007", "'=A1", "plain"]]);
  });

  it("reads an HTML table rather than the text beside it", () => {
    const copied = data({
      "text/html": "<table><tr><td>Rent</td><td>1200</td></tr><tr><td>Food</td><td></td></tr></table>",
      "text/plain": "not\tthis\r\n",
    });
    expect(pastedBlock(copied, false)).toEqual([
      ["Rent", "1200"],
      ["Food", null],
    ]);
  });

  it("reads LibreOffice's text cells as text: behind a ' in a workbook, as they are in a CSV", () => {
    const copied = data({
      "text/html":
        '<meta name="generator" content="LibreOffice"><table><tr><td>007</td><td sdval="7" sdnum="1033;0;0">7</td></tr></table>',
      "text/plain": "007\t7\r\n",
    });
    expect(pastedBlock(copied, false)).toEqual([["'007", "7"]]);
    expect(pastedBlock(copied, true)).toEqual([["007", "7"]]);
  });

  it("falls back to the text when the HTML holds no table, and is null when there is nothing", () => {
    expect(pastedBlock(data({ "text/html": "<p>hello</p>", "text/plain": "hello" }), false)).toEqual([["hello"]]);
    expect(pastedBlock(data({}), false)).toBeNull();
    expect(pastedBlock(data({ "text/html": "<b>bold</b>" }), true)).toBeNull();
  });
});

describe("a copied block", () => {
  it("is the cells as the grid shows them, when it holds them all", () => {
    const grid = target(false, serving({}), { "2:2": "$1,200.00", "2:3": true, "3:2": null, "3:3": 0.5 });
    expect(shownBlockHere(grid, bounds(2, 2, 3, 3))).toEqual([
      ["$1,200.00", "TRUE"],
      ["", "0.5"],
    ]);
    expect(shownBlockHere(grid, bounds(2, 2, 4, 3))).toBeNull();
  });

  it("goes on the clipboard as tab-separated text and an HTML table", () => {
    const texts = clipboardTexts([
      ["Name", "Note"],
      ["Rent", "two\nlines"],
    ]);
    expect(texts.plain).toBe('Name\tNote\r\nRent\t"two\nlines"\r\n');
    expect(texts.html).toContain("<tr><td>Name</td><td>Note</td></tr>");
    expect(texts.html).toContain("<td>two<br");
  });
});

describe("clearing a block", () => {
  it("writes an empty block of the selection's size", () => {
    expect(emptyBlock(bounds(3, 2, 4, 4))).toEqual([
      [null, null, null],
      [null, null, null],
    ]);
  });

  it("is known to change nothing only when the grid holds every cell and all are empty", () => {
    const grid = target(false, serving({}), { "1:1": null, "1:2": null, "2:1": null, "2:2": "x" });
    expect(knownEmpty(grid, bounds(1, 1, 1, 2))).toBe(true);
    expect(knownEmpty(grid, bounds(1, 1, 2, 2))).toBe(false);
    expect(knownEmpty(grid, bounds(1, 1, 1, 3))).toBe(false);
  });
});

describe("a block too big for one request", () => {
  it("is past the API's 50,000 cells", () => {
    expect(tooBig(bounds(1, 1, 5000, 10), "pasted")).toBeNull();
    expect(tooBig(bounds(1, 1, 5001, 10), "pasted")).toBe(
      `Not pasted: ${(50_010).toLocaleString()} cells, and Cellar handles at most ${(50_000).toLocaleString()} at once.`,
    );
  });
});

describe("what a fill copies", () => {
  it("writes a formula cell's formula", () => {
    expect(fillInput("=SUM(A1:A3)", 6, "number")).toBe("=SUM(A1:A3)");
  });

  it("writes a text that reads as a formula as text, behind a '", () => {
    expect(fillInput("=not a formula", "=not a formula", "string")).toBe("'=not a formula");
    expect(fillInput("007", "007", "string")).toBe("'007");
  });

  it("writes a date as typed in ISO form, and numbers, booleans and empty cells as they are", () => {
    expect(fillInput("2026-01-31T00:00:00", "2026-01-31T00:00:00", "date")).toBe("2026-01-31 00:00:00");
    expect(fillInput(1200, 1200, "number")).toBe(1200);
    expect(fillInput(true, true, "boolean")).toBe(true);
    expect(fillInput(null, null, null)).toBeNull();
  });

  it("fills a workbook's block from its formulas and values, each formula moved to its copy", async () => {
    const asked: string[] = [];
    const client = serving(
      {
        formula: { range: "'Q1 Budget'!B2:C2", values: [["=A2*2", "Rent"]] } as CellWindow,
        raw: { range: "'Q1 Budget'!B2:C2", values: [[20, "Rent"]], types: [["number", "string"]] } as CellWindow,
      },
      asked,
    );
    const filled = await fillBlock(target(false, client), { source: bounds(2, 2, 2, 3), target: bounds(3, 2, 4, 3) });
    expect(filled).toEqual({
      values: [
        ["=A3*2", "'Rent"],
        ["=A4*2", "'Rent"],
      ],
      input: "user",
    });
    expect(asked.sort()).toEqual(["formula 'Q1 Budget'!B2:C2", "raw+types 'Q1 Budget'!B2:C2"]);
  });

  it("fills a CSV's texts as they are, raw, a text starting with = too", async () => {
    const client = serving({ raw: { range: "'Q1 Budget'!A1:B1", values: [["=A1", "007"]] } as CellWindow });
    const filled = await fillBlock(target(true, client), { source: bounds(1, 1, 1, 2), target: bounds(2, 1, 3, 2) });
    expect(filled).toEqual({
      values: [
        ["=A1", "007"],
        ["=A1", "007"],
      ],
      input: "raw",
    });
  });
});
