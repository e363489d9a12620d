import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import yazl from "yazl";
import { createSpreadsheetReader } from "../src/index.js";
import { storedBytes } from "./support/stored-bytes.js";
import { MAIN, parts, zipOf } from "./support/workbooks.js";

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
