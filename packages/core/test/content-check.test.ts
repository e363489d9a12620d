import { describe, expect, it } from "vitest";
import { createContentCheck, XLSX_LIMITS } from "../src/files/content-check.js";
import type { FileKind } from "../src/files/file.entity.js";
import { buildZip, WORKBOOK_ENTRIES, workbook } from "../src/testing/index.js";

/** Feeds `bytes` to a check in chunks of `chunkSize`, as a stream would. */
function check(kind: FileKind, bytes: Uint8Array, chunkSize = 7): void {
  const contentCheck = createContentCheck(kind);
  for (let at = 0; at < bytes.length; at += chunkSize) contentCheck.update(bytes.subarray(at, at + chunkSize));
  contentCheck.finish(bytes.length);
}

const refusedAs = (pattern: RegExp) =>
  expect.objectContaining({ code: "unsupported_media_type", message: expect.stringMatching(pattern) });

describe("content checks", () => {
  it("accept CSV text, including UTF-8 beyond ASCII", () => {
    expect(() => check("csv", Buffer.from("name,amount\nZoë,12\n東京,3\n"))).not.toThrow();
  });

  it("refuse a .csv holding a NUL byte, as soon as it arrives", () => {
    const contentCheck = createContentCheck("csv");
    contentCheck.update(Buffer.from("a,b\n"));
    expect(() => contentCheck.update(Buffer.from([0x31, 0x00]))).toThrow(refusedAs(/NUL/));
  });

  it("accept UTF-16 CSV that starts with its byte-order mark, whatever the chunk size, and only then NUL bytes", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\tb\n1\t2\n", "utf16le")]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("a\tb\n", "utf16le").swap16()]);
    for (const size of [1, 2, 3, 64]) {
      expect(() => check("csv", le, size)).not.toThrow();
      expect(() => check("csv", be, size)).not.toThrow();
    }
    // Without the mark, UTF-16 is refused as it always was.
    expect(() => check("csv", Buffer.from("a\tb\n", "utf16le"))).toThrow(refusedAs(/NUL/));
  });

  it("store .sheet files as given", () => {
    expect(() => check("sheet", Buffer.from([0, 1, 2, 255]))).not.toThrow();
  });

  it("accept an .xlsx that is a ZIP with a workbook, whatever the chunk size", () => {
    for (const size of [1, 3, 64, 65_536]) expect(() => check("xlsx", workbook(), size)).not.toThrow();
  });

  it("accept entry names in any letter case", () => {
    const zip = buildZip([{ name: "[content_types].XML" }, { name: "XL/Workbook.xml" }]);
    expect(() => check("xlsx", zip)).not.toThrow();
  });

  it("accept a ZIP with a trailing comment", () => {
    expect(() => check("xlsx", buildZip(WORKBOOK_ENTRIES, { comment: "made by a spreadsheet" }))).not.toThrow();
  });

  it("accept a ZIP64 workbook", () => {
    expect(() => check("xlsx", buildZip(WORKBOOK_ENTRIES, { zip64: true }))).not.toThrow();
  });

  it("refuse an .xlsx that does not start like a ZIP", () => {
    expect(() => check("xlsx", Buffer.from("name,amount\n1,2\n"))).toThrow(refusedAs(/not a ZIP/));
  });

  it("refuse an .xlsx shorter than a ZIP signature", () => {
    expect(() => check("xlsx", Buffer.from("PK"))).toThrow(refusedAs(/not a ZIP/));
  });

  it("refuse a ZIP that is not a workbook", () => {
    const zip = buildZip([{ name: "[Content_Types].xml" }, { name: "word/document.xml" }]);
    expect(() => check("xlsx", zip)).toThrow(refusedAs(/not an Excel workbook/));
  });

  it("refuse a ZIP cut short before its central directory", () => {
    const zip = workbook();
    expect(() => check("xlsx", zip.subarray(0, zip.length - 30))).toThrow(refusedAs(/not a valid ZIP/));
  });

  it("refuse a ZIP whose end record points outside the file", () => {
    const zip = workbook();
    zip.writeUInt32LE(zip.length * 4, zip.length - 6);
    expect(() => check("xlsx", zip)).toThrow(refusedAs(/not a valid ZIP|too large/));
  });

  it("refuse a ZIP whose directory says it has more entries than it holds", () => {
    const zip = buildZip(WORKBOOK_ENTRIES, { declaredEntries: 9 });
    expect(() => check("xlsx", zip)).toThrow(refusedAs(/not a valid ZIP/));
  });

  it(`refuse a ZIP declaring more than ${XLSX_LIMITS.maxEntries} entries, from the directory alone`, () => {
    const zip = buildZip(WORKBOOK_ENTRIES, { zip64: true, declaredEntries: 100_000 });
    expect(() => check("xlsx", zip)).toThrow(refusedAs(/more than 10000 entries/));
  });

  it("refuse a ZIP bomb declaring a huge uncompressed size, without inflating it", () => {
    const bomb = buildZip([...WORKBOOK_ENTRIES, { name: "xl/sharedStrings.xml", declaredSize: 0xfffffffe }]);
    expect(() => check("xlsx", bomb)).toThrow(refusedAs(/uncompressed/));
    const zip64Bomb = buildZip([...WORKBOOK_ENTRIES, { name: "xl/huge.xml", declaredSize: 2 ** 40 }]);
    expect(() => check("xlsx", zip64Bomb)).toThrow(refusedAs(/uncompressed/));
  });

  it("refuse a workbook whose central directory is larger than the tail it keeps", () => {
    const names = Array.from({ length: 9_000 }, (_, i) => ({ name: `xl/media/${"x".repeat(480)}${i}.png`, data: "" }));
    const zip = buildZip([...WORKBOOK_ENTRIES, ...names]);
    expect(() => check("xlsx", zip, 1 << 20)).toThrow(refusedAs(/too large to check/));
  });
});
