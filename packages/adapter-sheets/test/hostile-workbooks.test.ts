import { randomBytes } from "node:crypto";
import type { ReadableSheetIndex } from "@cellar/core";
import { describe, expect, it } from "vitest";
import yazl from "yazl";
import { createSpreadsheetReader, PRESENTATION_LIMITS } from "../src/index.js";
import { analysedWorkbook, storedBytes } from "./support/stored-bytes.js";
import { MAIN, parts, stylesWith, zipOf } from "./support/workbooks.js";

const reader = createSpreadsheetReader();

async function analyse(bytes: Uint8Array) {
  return reader.analyse({
    kind: "xlsx",
    size: bytes.length,
    openFile: storedBytes(bytes).open,
    writeRows: async (source) => {
      let size = 0;
      for await (const chunk of source) size += chunk.length;
      return { size };
    },
  });
}

/** Read through within seconds and memory kept within bounds; its index, and a window of its first sheet. */
async function expectRead(bytes: Uint8Array) {
  const before = process.memoryUsage().rss;
  const started = performance.now();
  const analysed = await analysedWorkbook(reader, bytes);
  const { index } = analysed;
  const window = (lastRow: number, lastColumn: number) =>
    analysed.window(0, "formatted", { firstRow: 1, lastRow, firstColumn: 1, lastColumn });
  expect(performance.now() - started).toBeLessThan(15_000);
  expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
  return { index, window };
}

/** Refused within seconds, with a reason, and memory kept within bounds. */
async function expectRefused(bytes: Uint8Array, reason: RegExp) {
  const before = process.memoryUsage().rss;
  const started = performance.now();
  await expect(analyse(bytes)).rejects.toThrow(reason);
  // Seconds, even with the whole suite running beside it on two cores.
  expect(performance.now() - started).toBeLessThan(15_000);
  expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 ** 2);
}

describe("hostile workbooks are refused cleanly", { timeout: 60_000 }, () => {
  it("a ZIP bomb: a part that would inflate hundreds of times its size", async () => {
    const bomb = await zipOf(
      parts({ sheetXml: [`<worksheet ${MAIN}><sheetData>${"<row/>".repeat(4 * 1024 ** 2)}</sheetData></worksheet>`] }),
    );
    await expectRefused(bomb, /ZIP bomb/);
  });

  it("a ZIP bomb: a part that would inflate past the absolute limit, whatever its ratio", async () => {
    // The directory says 2 GiB; the bytes are never inflated to find out.
    const honest = await zipOf(parts());
    const lying = Buffer.from(honest);
    const name = Buffer.from("xl/worksheets/sheet1.xml");
    // The central directory's entry for the sheet: its uncompressed size is 24 bytes after the signature.
    for (
      let at = lying.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
      at >= 0;
      at = lying.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at - 1)
    ) {
      if (lying.subarray(at + 46, at + 46 + name.length).equals(name)) lying.writeUInt32LE(2 ** 31, at + 24);
    }
    await expectRefused(lying, /would inflate|cannot be read|cannot be inflated/);
  });

  it("XML with a DOCTYPE, and an external entity", async () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&e;</t></is></c></row></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [xxe] })), /document type/);
    const undeclared = `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&e;</t></is></c></row></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [undeclared] })), /not well-formed/);
  });

  it("a text node longer than any cell, compressible (500 MiB) or not", async () => {
    // 500 MiB of one letter deflates about a thousand times: refused from the directory.
    const huge = new yazl.ZipFile();
    for (const [name, content] of Object.entries(parts({ sheetXml: [""] }))) {
      if (name !== "xl/worksheets/sheet1.xml") huge.addBuffer(Buffer.from(content), name);
    }
    const block = Buffer.alloc(1024 ** 2, 0x61);
    const sheet = new (await import("node:stream")).PassThrough();
    huge.addReadStream(sheet, "xl/worksheets/sheet1.xml");
    huge.end();
    const written = (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of huge.outputStream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    })();
    sheet.write(`<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>`);
    for (let i = 0; i < 500; i++) if (!sheet.write(block)) await new Promise((resolve) => sheet.once("drain", resolve));
    sheet.end("</t></is></c></row></sheetData></worksheet>");
    await expectRefused(await written, /ZIP bomb/);
    // 2 Mi random letters barely deflate: refused while parsing, before the text is held.
    const letters = Buffer.from(Array.from(randomBytes(2 * 1024 ** 2), (byte) => 97 + (byte % 26)));
    const long = `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>${letters}</t></is></c></row></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [long] })), /longer than/);
  });

  it("millions of shared strings", async () => {
    const declared = `<sst ${MAIN} uniqueCount="5000000"><si><t>a</t></si></sst>`;
    await expectRefused(await zipOf(parts({ extra: { "xl/sharedStrings.xml": declared } })), /shared strings/);
    const many = Array.from({ length: 1_000_001 }, (_, i) => `<si><t>${i.toString(36)}</t></si>`).join("");
    await expectRefused(
      await zipOf(parts({ extra: { "xl/sharedStrings.xml": `<sst ${MAIN}>${many}</sst>` } })),
      /shared strings|ZIP bomb/,
    );
  });

  it("a sheet 16,385 columns wide", async () => {
    const wide = `<worksheet ${MAIN}><sheetData><row r="1"><c r="XFE1"><v>1</v></c></row></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [wide] })), /past column XFD/);
    const counted = `<worksheet ${MAIN}><sheetData><row r="1">${"<c><v>1</v></c>".repeat(16_385)}</row></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [counted] })), /past column XFD/);
  });

  it("a workbook whose sheet part is missing", async () => {
    await expectRefused(await zipOf({ ...parts(), "xl/worksheets/sheet1.xml": undefined }), /sheet1\.xml is missing/);
  });

  it("rows out of order", async () => {
    const backwards = `<worksheet ${MAIN}><sheetData><row r="5"/><row r="2"/></sheetData></worksheet>`;
    await expectRefused(await zipOf(parts({ sheetXml: [backwards] })), /out of order/);
  });

  it("more number formats than any spreadsheet program makes", async () => {
    const codes = Array.from({ length: 4_097 }, (_, i) => `0.${"0".repeat(i % 10)}" ${i}"`);
    await expectRefused(await zipOf(parts({ extra: { "xl/styles.xml": stylesWith(codes) } })), /number formats/);
  });

  it("number formats that are huge, malformed or repeat their text show as General, and the window is answered", async () => {
    const codes = [
      "0".repeat(500_000),
      "#,##0.00".repeat(40),
      "[[[[",
      '0.00"',
      "0;0;0;0;0;0",
      "@".repeat(250),
      `# ${"?".repeat(120)}/${"?".repeat(120)}`,
      `0.${"0".repeat(250)}E+00`,
      "[Red]".repeat(50),
    ];
    const cells = (row: number) =>
      codes.map((_, i) => `<c r="${String.fromCharCode(65 + i)}${row}" s="${i + 1}"><v>1234.5</v></c>`).join("");
    const text = `<c r="A2" s="6" t="inlineStr"><is><t>${"x".repeat(30_000)}</t></is></c>`;
    const rows = Array.from({ length: 5_000 }, (_, r) => `<row r="${r + 3}">${cells(r + 3)}</row>`);
    const sheet = `<worksheet ${MAIN}><sheetData><row r="1">${cells(1)}</row><row r="2">${text}</row>${rows.join("")}</sheetData></worksheet>`;
    const { index, window } = await expectRead(
      await zipOf(parts({ sheetXml: [sheet], extra: { "xl/styles.xml": stylesWith(codes) } })),
    );
    // The code longer than Excel allows is not kept at all.
    expect((index as ReadableSheetIndex).xlsx?.numberFormats).not.toContain(codes[0]);
    const started = performance.now();
    const { values } = await window(5_002, codes.length);
    expect(performance.now() - started).toBeLessThan(10_000);
    const general = ["1234.5", "1234.5", "1234.5", "1234.5", "1234.5", "1234.5"];
    expect(values[0]?.slice(0, 6)).toEqual(general);
    expect(String(values[0]?.[6]).replace(/ +/g, " ").trim()).toBe("1234 1/2");
    expect(values[5_001]?.slice(0, 6)).toEqual(general);
    expect(values[1]?.[0]).toHaveLength(30_000);
  });

  it("a hundred thousand merged areas and columns of ever-changing widths, kept within bounds", async () => {
    const merges = Array.from({ length: 100_000 }, (_, i) => `<mergeCell ref="A${2 * i + 1}:B${2 * i + 1}"/>`).join("");
    const cols = Array.from(
      { length: 16_384 },
      (_, i) => `<col min="${i + 1}" max="${i + 1}" width="${10 + (i % 2)}" customWidth="1"/>`,
    ).join("");
    const sheet = `<worksheet ${MAIN}><cols>${cols}</cols><sheetData><row r="1"><c r="XFD1"><v>1</v></c></row></sheetData><mergeCells>${merges}</mergeCells></worksheet>`;
    const { index } = await expectRead(await zipOf(parts({ sheets: ["One", "Two"], sheetXml: [sheet, sheet] })));
    const [one, two] = (index as ReadableSheetIndex).sheets;
    expect(one?.layout?.merged).toHaveLength(PRESENTATION_LIMITS.maxMergedRanges);
    expect(two?.layout?.merged).toEqual([]);
    expect(one?.layout?.columnWidths).toHaveLength(PRESENTATION_LIMITS.maxColumnRuns);
    expect(two?.layout?.columnWidths).toEqual([]);
    // The index every request of the file reads stays small.
    expect(JSON.stringify(index).length).toBeLessThan(2 * 1024 ** 2);
  });

  it("is not fooled by __proto__ and constructor as sheet names and cell text", async () => {
    const cellText = `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>__proto__</t></is></c><c r="B1" t="inlineStr"><is><t>constructor</t></is></c></row></sheetData></worksheet>`;
    const index = await analyse(
      await zipOf(parts({ sheets: ["__proto__", "constructor"], sheetXml: [cellText, cellText] })),
    );
    if (!index.readable) throw new Error(index.reason);
    expect(index.sheets.map((sheet) => [sheet.name, sheet.rowCount, sheet.columnCount])).toEqual([
      ["__proto__", 1, 2],
      ["constructor", 1, 2],
    ]);
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });
});
