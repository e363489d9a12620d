import { readFileSync } from "node:fs";
import type { OpenBytes, ReadableSheetIndex } from "@cellar/core";
import { SpreadsheetUnreadableError } from "@cellar/core";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { CSV_CHECKPOINT_EVERY, createSpreadsheetReader, SHEET_READER_VERSION } from "../src/index.js";
import { storedBytes } from "./support/stored-bytes.js";

const reader = createSpreadsheetReader();

/** Stored bytes in uneven chunks, noting what was read. */
const stored = (bytes: Uint8Array) => storedBytes(bytes, (at) => 1 + ((at * 7919) % 5_000));

async function analyse(bytes: Uint8Array): Promise<ReadableSheetIndex> {
  const index = await reader.analyse({
    kind: "csv",
    size: bytes.length,
    openFile: stored(bytes).open,
    writeRows: async () => ({ size: 0 }),
  });
  if (!index.readable) throw new Error(index.reason);
  return index;
}

async function cells(
  bytes: Uint8Array,
  rectangle: { firstRow: number; lastRow: number; firstColumn: number; lastColumn: number },
) {
  const index = await analyse(bytes);
  const file = stored(bytes);
  const grid = await reader.window({
    kind: "csv",
    index,
    sheet: 0,
    rectangle,
    size: bytes.length,
    openFile: file.open,
    openRows: file.open,
  });
  return { ...grid, index, reads: file.reads };
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const withBom = (bom: readonly number[], body: Uint8Array) => Uint8Array.from([...bom, ...body]);

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));

describe("CSV files saved by LibreOffice (test/fixtures)", () => {
  it.each([
    ["libreoffice-utf-8-comma.csv", { encoding: "utf-8", delimiter: ",", bom: false }],
    ["utf-8-bom-comma.csv", { encoding: "utf-8", delimiter: ",", bom: true }],
    ["libreoffice-windows-1252-semicolon.csv", { encoding: "windows-1252", delimiter: ";", bom: false }],
    ["libreoffice-utf-16le-tab.csv", { encoding: "utf-16le", delimiter: "\t", bom: true }],
  ])("%s: its dialect, extent and cells, a quoted line break included", async (name, csv) => {
    const bytes = fixture(name);
    const { values, index } = await cells(bytes, { firstRow: 1, lastRow: 3, firstColumn: 1, lastColumn: 3 });
    expect(index.csv).toEqual(csv);
    expect(index.sheets[0]).toMatchObject({ rowCount: 3, columnCount: 3, headerRow: true });
    expect(values).toEqual([
      ["Article", "Prix", "Note"],
      ["Café crème", "3,50 €", 'ligne 1\nligne 2; avec "guillemets"'],
      ["Thé", "2,00 €", null],
    ]);
  });
});

describe("CSV analysis", () => {
  it("reads UTF-8 with a byte-order mark, a header row and column types", async () => {
    const index = await analyse(
      withBom([0xef, 0xbb, 0xbf], utf8("Name,Amount,Due,Paid\nAda,12.50,2026-01-31,true\nBo,7,2026-02-01,false\n")),
    );
    expect(index.version).toBe(SHEET_READER_VERSION);
    expect(index.csv).toEqual({ encoding: "utf-8", delimiter: ",", bom: true });
    expect(index.sheets).toEqual([
      {
        index: 0,
        name: "Sheet1",
        rowCount: 3,
        columnCount: 4,
        headerRow: true,
        columnTypes: ["string", "number", "date", "boolean"],
        formulaLikeCells: 0,
      },
    ]);
  });

  it("reads Windows-1252 with `;` when the bytes are not UTF-8, and answers its text decoded", async () => {
    const bytes = iconv.encode("Article;Prix\nCafé;3,50 €\n“Thé”;2,00 €\n", "windows-1252");
    const { values, index } = await cells(bytes, { firstRow: 1, lastRow: 3, firstColumn: 1, lastColumn: 2 });
    expect(index.csv).toEqual({ encoding: "windows-1252", delimiter: ";", bom: false });
    expect(values).toEqual([
      ["Article", "Prix"],
      ["Café", "3,50 €"],
      ["“Thé”", "2,00 €"],
    ]);
  });

  it.each([
    ["utf-16le", [0xff, 0xfe]],
    ["utf-16be", [0xfe, 0xff]],
  ] as const)("reads %s with its byte-order mark, tab-delimited as spreadsheets save it", async (encoding, bom) => {
    const text = 'Région\tTotal\n"Île-de-\nFrance"\t12\n📊\t3\n';
    const le = Buffer.from(text, "utf16le");
    const body = encoding === "utf-16le" ? le : Buffer.from(le).swap16();
    const bytes = withBom(bom, body);
    const { values, types, index } = await cells(bytes, { firstRow: 1, lastRow: 3, firstColumn: 1, lastColumn: 2 });
    expect(index.csv).toEqual({ encoding, delimiter: "\t", bom: true });
    expect(values).toEqual([
      ["Région", "Total"],
      ["Île-de-\nFrance", "12"],
      ["📊", "3"],
    ]);
    expect(types).toEqual([
      ["string", "string"],
      ["string", "string"],
      ["string", "string"],
    ]);
  });

  it("counts the extent by cells with a value: trailing empty cells and rows do not count", async () => {
    const index = await analyse(utf8('a,b,,\n,,,\n"",x\n\n,,,,\n'));
    expect(index.sheets[0]).toMatchObject({ rowCount: 3, columnCount: 2 });
    const empty = await analyse(utf8("\n,,\n"));
    expect(empty.sheets[0]).toMatchObject({ rowCount: 0, columnCount: 0 });
  });

  it("counts text cells a spreadsheet would run as formulas, but not numbers", async () => {
    const index = await analyse(utf8('=SUM(A1:A2),+1,-5,-x,@cmd,"\tx",=,plain,"=1+1"\n'));
    expect(index.sheets[0]?.formulaLikeCells).toBe(6);
  });

  it("answers a window as a rectangle, ragged rows padded with null, values as text", async () => {
    const { values, types } = await cells(utf8("a,b,c\n1\n,,3,4\n"), {
      firstRow: 1,
      lastRow: 3,
      firstColumn: 2,
      lastColumn: 3,
    });
    expect(values).toEqual([
      ["b", "c"],
      [null, null],
      [null, "3"],
    ]);
    expect(types).toEqual([
      ["string", "string"],
      [null, null],
      [null, "string"],
    ]);
  });

  it("reads a deep window from the checkpoint before it, not from the top", async () => {
    const rows = 10 * CSV_CHECKPOINT_EVERY;
    const text = Array.from({ length: rows }, (_, i) => `${i + 1},"row ${i + 1}\nsecond line",${i % 7}`).join("\r\n");
    const bytes = utf8(text);
    const firstRow = 8 * CSV_CHECKPOINT_EVERY + 10;
    const { values, reads, index } = await cells(bytes, {
      firstRow,
      lastRow: firstRow + 2,
      firstColumn: 1,
      lastColumn: 2,
    });
    expect(values).toEqual([0, 1, 2].map((k) => [String(firstRow + k), `row ${firstRow + k}\nsecond line`]));
    expect(index.checkpoints[0]?.offsets).toHaveLength(10);
    const read = reads[0];
    expect(read?.range?.start).toBe(index.checkpoints[0]?.offsets[8]);
    // At most a checkpoint's worth of rows before the window (and one chunk after it).
    expect(read?.bytes).toBeLessThan(bytes.length / 8);
  });

  it("refuses a row longer than it reads, within bounded memory", async () => {
    const mib = new Uint8Array(1024 ** 2).fill(0x61);
    const open: OpenBytes = async () =>
      (async function* () {
        for (let i = 0; i < 100; i++) yield mib;
      })();
    const started = performance.now();
    await expect(
      reader.analyse({ kind: "csv", size: 100 * mib.length, openFile: open, writeRows: async () => ({ size: 0 }) }),
    ).rejects.toThrow(SpreadsheetUnreadableError);
    expect(performance.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it("refuses a cell longer than it reads", async () => {
    await expect(analyse(utf8(`a,${"x".repeat(200 * 1024)}\n`))).rejects.toThrow(/more than 131072 bytes/);
  });
});
