import type { CellValue, CellWrite, ReadableSheetIndex } from "@cellar/core";
import { seededRandom } from "@cellar/core/testing";
import iconv from "iconv-lite";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader, createSpreadsheetWriter } from "../src/index.js";
import { storedBytes } from "./support/stored-bytes.js";

const reader = createSpreadsheetReader();
const writer = createSpreadsheetWriter();

/** Stored bytes in uneven chunks. */
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

/** Every cell of the sheet's extent, as the reader answers them. */
async function grid(bytes: Uint8Array, index: ReadableSheetIndex): Promise<CellValue[][]> {
  const sheet = index.sheets[0];
  if (sheet === undefined || sheet.rowCount === 0) return [];
  const file = stored(bytes);
  const window = await reader.window({
    kind: "csv",
    index,
    sheet: 0,
    rectangle: { firstRow: 1, lastRow: sheet.rowCount, firstColumn: 1, lastColumn: sheet.columnCount },
    size: bytes.length,
    openFile: file.open,
    openRows: file.open,
  });
  return window.values;
}

/**
 * `writes` made into `bytes`: the new bytes and index, and whether the writer gave them as
 * bytes added (checked to be the same content and index when it did).
 */
async function write(bytes: Uint8Array, index: ReadableSheetIndex, writes: CellWrite[]) {
  const start = () =>
    writer.write({
      kind: "csv",
      index,
      size: bytes.length,
      openFile: stored(bytes).open,
      sheets: [{ sheet: 0, writes }],
    });
  const written = start();
  const content = Buffer.concat(await collect(written.content));
  const again = start();
  const added = (await again.added?.()) ?? null;
  if (added !== null) {
    expect(Buffer.concat([bytes, ...(await collect(added))]).equals(content)).toBe(true);
    expect(again.index()).toEqual(written.index());
  }
  return { bytes: new Uint8Array(content), index: written.index(), added: added !== null };
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return chunks;
}

/** The reader's view of a written value: text, or null when it leaves the cell empty. */
const asRead = (value: CellValue): CellValue =>
  value === null || value === "" ? null : typeof value === "boolean" ? (value ? "TRUE" : "FALSE") : String(value);

/** `cells` with `writes` applied, trimmed to the last row and column holding a value. */
function expectedGrid(cells: CellValue[][], writes: CellWrite[]): CellValue[][] {
  const rows = cells.map((row) => [...row]);
  for (const { rectangle, values } of writes) {
    for (const [r, line] of values.entries()) {
      for (const [c, value] of line.entries()) {
        const row = rectangle.firstRow + r - 1;
        while (rows.length <= row) rows.push([]);
        const target = rows[row] as CellValue[];
        while (target.length <= rectangle.firstColumn + c - 1) target.push(null);
        target[rectangle.firstColumn + c - 1] = asRead(value);
      }
    }
  }
  let lastRow = -1;
  let lastColumn = -1;
  for (const [r, row] of rows.entries()) {
    for (const [c, value] of row.entries()) {
      if (value !== null) {
        lastRow = Math.max(lastRow, r);
        lastColumn = Math.max(lastColumn, c);
      }
    }
  }
  return rows
    .slice(0, lastRow + 1)
    .map((row) =>
      Array.from({ length: lastColumn + 1 }, (_, c) => (row[c] === undefined ? null : (row[c] as CellValue))),
    );
}

type Encoding = "utf-8" | "utf-8-bom" | "utf-16le" | "utf-16be" | "windows-1252";

function encoded(text: string, encoding: Encoding): Uint8Array {
  switch (encoding) {
    case "utf-8":
      return new Uint8Array(Buffer.from(text));
    case "utf-8-bom":
      return new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]));
    case "utf-16le":
      return new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    case "utf-16be":
      return new Uint8Array(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, "utf16le").swap16()]));
    case "windows-1252":
      return new Uint8Array(iconv.encode(text, "windows-1252"));
  }
}

describe("writing a CSV's cells, over generated files and edits", () => {
  it("reads back exactly the old cells with the writes applied, and any index it makes is the reader's", async () => {
    const random = seededRandom(20261126);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const words = [
      "apples",
      "Zürich café",
      "=SUM(A1:A2)",
      "-12.5",
      "+7",
      "@home",
      'say "hi"',
      "a,b",
      "two\nlines",
      "x;y",
      "tab\there",
      "€ 3",
      "",
    ];
    let indexesMade = 0;
    for (let round = 0; round < 120; round++) {
      const encoding = pick<Encoding>(["utf-8", "utf-8-bom", "utf-16le", "utf-16be", "windows-1252"]);
      const delimiter = pick([",", ";", "\t"]);
      const lineEnd = pick(["\n", "\r\n", "\r"]);
      const rowCount = pick([1, 3, 40, 1030, 2500]);
      const field = () => {
        const word = pick(words);
        return /[",;\t\r\n]/.test(word) ? `"${word.replaceAll('"', '""')}"` : word;
      };
      const lines = Array.from({ length: rowCount }, (_, r) =>
        r === 0
          ? ["id", "name", "note"].join(delimiter)
          : Array.from({ length: 1 + Math.floor(random() * 4) }, field).join(delimiter),
      );
      // Rows without a value at the end, sometimes; a last line end, sometimes.
      if (random() < 0.3) lines.push("", delimiter.repeat(2));
      const text = lines.join(lineEnd) + (random() < 0.7 ? lineEnd : "");
      const before = encoded(text, encoding);
      const index = await analyse(before);
      const sheet = index.sheets[0] as NonNullable<ReadableSheetIndex["sheets"][0]>;
      const writes: CellWrite[] = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const rows = 1 + Math.floor(random() * 3);
        const columns = 1 + Math.floor(random() * 3);
        const firstRow = 1 + Math.floor(random() * (sheet.rowCount + 4));
        const firstColumn = 1 + Math.floor(random() * 5);
        // Every word is one Windows-1252 holds too.
        const value = (): CellValue => pick<CellValue>([null, true, 42, -0.5, 1e21, ...words]);
        return {
          rectangle: { firstRow, lastRow: firstRow + rows - 1, firstColumn, lastColumn: firstColumn + columns - 1 },
          values: Array.from({ length: rows }, () => Array.from({ length: columns }, value)),
        };
      });
      const context = `round ${round}: ${encoding}, ${JSON.stringify(delimiter)}, ${JSON.stringify(lineEnd)}, ${rowCount} rows, writes ${JSON.stringify(writes.map((w) => w.rectangle))}`;
      const after = await write(before, index, writes);
      const reread = await analyse(after.bytes);
      expect(await grid(after.bytes, reread), context).toEqual(expectedGrid(await grid(before, index), writes));
      expect(reread.csv, context).toEqual(index.csv);
      if (after.index !== null) {
        indexesMade++;
        expect(after.index, context).toEqual(reread);
      }
    }
    // Edits past the guessed rows of a long file, within its columns, make their index.
    expect(indexesMade).toBeGreaterThan(5);
  });

  it("writes a row far past the end as that many line ends, and refuses a new row longer than the reader reads", async () => {
    const before = new Uint8Array(Buffer.from("a,b\r\n1,2\r\n"));
    const index = await analyse(before);
    const far = await write(before, index, [
      { rectangle: { firstRow: 100_000, lastRow: 100_000, firstColumn: 2, lastColumn: 2 }, values: [["far"]] },
    ]);
    expect(Buffer.from(far.bytes).toString()).toBe(`a,b\r\n1,2\r\n${"\r\n".repeat(99_997)},far\r\n`);
    expect(far.index).toEqual(await analyse(far.bytes));
    const wide = Array.from({ length: 40 }, () => "x".repeat(120 * 1024));
    await expect(
      write(before, index, [
        { rectangle: { firstRow: 4, lastRow: 4, firstColumn: 1, lastColumn: 40 }, values: [wide] },
      ]),
    ).rejects.toMatchObject({ code: "validation_error" });
  });

  it("appends to a long file keep an index equal to the reader's, edit after edit, without a read-through", async () => {
    let bytes = new Uint8Array(Buffer.from(Array.from({ length: 3000 }, (_, k) => `${k},item ${k},=x${k}\n`).join("")));
    let index = await analyse(bytes);
    for (let round = 0; round < 30; round++) {
      const sheet = index.sheets[0] as NonNullable<ReadableSheetIndex["sheets"][0]>;
      const firstRow = sheet.rowCount + 1;
      const written = await write(bytes, index, [
        {
          rectangle: { firstRow, lastRow: firstRow, firstColumn: 1, lastColumn: 3 },
          values: [[firstRow, `row ${round}`, "=y"]],
        },
      ]);
      expect(written.index, `append ${round}`).not.toBeNull();
      expect(written.added, `append ${round} is only added`).toBe(true);
      bytes = written.bytes;
      index = written.index as ReadableSheetIndex;
    }
    expect(index).toEqual(await analyse(bytes));
    expect(index.sheets[0]).toMatchObject({ rowCount: 3030, formulaLikeCells: 3030 });
  });
});
