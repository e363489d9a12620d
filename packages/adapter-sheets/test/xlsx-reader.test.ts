import { readFileSync } from "node:fs";
import type { ReadableSheetIndex } from "@cellar/core";
import { serialToIso } from "@cellar/core";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader } from "../src/index.js";
import { kindOfFormat } from "../src/xlsx/workbook-parts.js";
import { storedBytes } from "./support/stored-bytes.js";
import { MAIN, parts, zipOf } from "./support/workbooks.js";

const reader = createSpreadsheetReader();

/** A workbook read through, with its rows blob kept in memory. */
async function readWorkbook(bytes: Uint8Array) {
  let rows = new Uint8Array(0);
  const index = await reader.analyse({
    kind: "xlsx",
    size: bytes.length,
    openFile: storedBytes(bytes, () => 4096).open,
    writeRows: async (source) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of source) chunks.push(chunk);
      rows = Buffer.concat(chunks);
      return { size: rows.length };
    },
  });
  if (!index.readable) throw new Error(index.reason);
  const window = (sheet: number, firstRow: number, lastRow: number, firstColumn: number, lastColumn: number) =>
    reader.window({
      kind: "xlsx",
      index: index as ReadableSheetIndex,
      sheet,
      rectangle: { firstRow, lastRow, firstColumn, lastColumn },
      size: bytes.length,
      openFile: storedBytes(bytes, () => 4096).open,
      openRows: storedBytes(rows, () => 4096).open,
    });
  return { index, window, rows };
}

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));

describe("a workbook saved by LibreOffice (test/fixtures/libreoffice-book.xlsx)", () => {
  it("lists its sheets in order with their extents, formatting alone not counting", async () => {
    const { index } = await readWorkbook(fixture("libreoffice-book.xlsx"));
    expect(index.sheets.map(({ name, rowCount, columnCount }) => ({ name, rowCount, columnCount }))).toEqual([
      { name: "Budget", rowCount: 4, columnCount: 5 },
      { name: "Données 'été' 📊", rowCount: 100, columnCount: 26 },
      { name: "Empty", rowCount: 0, columnCount: 0 },
    ]);
    expect(index.sheets[0]).toMatchObject({
      headerRow: true,
      columnTypes: ["string", "number", "date", "number", "number"],
      formulaLikeCells: 1,
    });
  });

  it("answers numbers, dates, formulas' cached results, errors and merged cells as stored", async () => {
    const { window } = await readWorkbook(fixture("libreoffice-book.xlsx"));
    expect(await window(0, 1, 4, 1, 5)).toEqual({
      values: [
        ["Item", "Amount", "Due", "Paid", "Double"],
        ["Rent", 1200, "2026-01-31", 1, 2400],
        ["Food & “drinks”", 300.5, "1999-12-31", 0, "#DIV/0!"],
        ["Merged total", null, null, "=not a formula", 1500.5],
      ],
      types: [
        ["string", "string", "string", "string", "string"],
        ["string", "number", "date", "number", "number"],
        ["string", "number", "date", "number", "error"],
        ["string", null, null, "string", "number"],
      ],
    });
  });

  it("answers times and dates with times, Unicode sheet names, and sparse cells far away", async () => {
    const { window } = await readWorkbook(fixture("libreoffice-book.xlsx"));
    expect((await window(1, 1, 2, 1, 3)).values).toEqual([
      ["Ville", "Heure", "Arrivée"],
      ["Zürich", "13:45:00", "2026-01-31T13:45:00"],
    ]);
    expect((await window(1, 99, 100, 25, 26)).values).toEqual([
      [null, null],
      [null, "far away"],
    ]);
  });
});

describe("cells of every stored type", () => {
  it("reads booleans, formula strings, ISO dates, errors and escaped characters as §6 says", async () => {
    const sheet = `<worksheet ${MAIN}><sheetData><row r="2"><c r="A2" t="b"><v>1</v></c><c r="B2" t="b"><v>0</v></c><c r="C2" t="str"><f>A1&amp;"x"</f><v>=x</v></c><c r="D2" t="d"><v>2026-01-31T13:45:00</v></c><c r="E2" t="e"><v>#N/A</v></c><c r="F2" t="inlineStr"><is><t>a_x000D_b _x005F_x0041_</t></is></c><c r="G2"><f>1/0</f></c></row></sheetData></worksheet>`;
    const { index, window } = await readWorkbook(await zipOf(parts({ sheetXml: [sheet] })));
    expect(index.sheets[0]).toMatchObject({ rowCount: 2, columnCount: 6, formulaLikeCells: 1 });
    expect(await window(0, 2, 2, 1, 7)).toEqual({
      values: [[true, false, "=x", "2026-01-31T13:45:00", "#N/A", "a\rb _x0041_", null]],
      types: [["boolean", "boolean", "string", "date", "error", "string", null]],
    });
    // Row 1 holds nothing: a window over it answers null cells for it.
    expect((await window(0, 1, 2, 1, 3)).values).toEqual([
      [null, null, null],
      [true, false, "=x"],
    ]);
  });
});

describe("workbook number formats and serial dates", () => {
  it.each([
    ["General", "number"],
    ["0.00", "number"],
    ['#,##0 "days"', "number"],
    ["yyyy\\-mm\\-dd", "date"],
    ["d/m/yy", "date"],
    ["mmm yyyy", "date"],
    ["hh:mm:ss", "time"],
    ["[h]:mm", "time"],
    ["mm:ss", "time"],
    ["h:mm AM/PM", "time"],
    ["yyyy-mm-dd hh:mm", "datetime"],
    ["[$-409]mmmm d, yyyy;@", "date"],
    ["[Red]0.00", "number"],
  ] as const)("%s shows a %s", (code, kind) => {
    expect(kindOfFormat(code)).toBe(kind);
  });

  it("turns serials into ISO 8601 in both date systems, Lotus's leap day included", () => {
    expect(serialToIso(46053, "date", false)).toBe("2026-01-31");
    expect(serialToIso(46053.5729166667, "datetime", false)).toBe("2026-01-31T13:45:00");
    expect(serialToIso(0.5729166667, "time", false)).toBe("13:45:00");
    expect(serialToIso(1, "date", false)).toBe("1900-01-01");
    expect(serialToIso(59, "date", false)).toBe("1900-02-28");
    expect(serialToIso(60, "date", false)).toBe("1900-02-29");
    expect(serialToIso(61, "date", false)).toBe("1900-03-01");
    expect(serialToIso(0, "date", true)).toBe("1904-01-01");
    // A fraction of a second before midnight rounds up to the next day.
    expect(serialToIso(44591.99999999, "datetime", false)).toBe("2022-01-31T00:00:00");
  });
});
