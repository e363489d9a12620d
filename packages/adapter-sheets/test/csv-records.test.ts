import { seededRandom } from "@cellar/core/testing";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { fieldBytes } from "../src/csv/csv-fields.js";
import { type CsvRecord, CsvRecordScanner } from "../src/csv/csv-records.js";

const LIMITS = { maxFields: 16_384, maxRecordUnits: 1 << 20 };

/** Every record of `bytes` as decoded fields, with its offset, fed in chunks of the given sizes. */
function scanAll(bytes: Uint8Array, chunkSizes: () => number, delimiter = ","): { offset: number; fields: string[] }[] {
  const records: { offset: number; fields: string[] }[] = [];
  const decoder = new TextDecoder();
  const scanner = new CsvRecordScanner(
    delimiter.charCodeAt(0),
    {
      record(record: CsvRecord) {
        const fields: string[] = [];
        for (let i = 0; i < record.fieldCount; i++) fields.push(decoder.decode(fieldBytes(record, i)));
        records.push({ offset: record.offset, fields });
      },
    },
    LIMITS,
    { startOffset: 0, unitBytes: 1 },
  );
  for (let at = 0; at < bytes.length; ) {
    const size = Math.max(1, chunkSizes());
    scanner.push(bytes.subarray(at, at + size));
    at += size;
  }
  scanner.end();
  return records;
}

const PIECES = ["a", "b", "7", " ", '"', ",", "\n", "\r\n", "é", "€", "📊", "=1+2", ";", "\t"];

describe("CSV records", () => {
  it("agree with csv-parse field for field on generated files fed in any chunks, and resume at any record's offset", () => {
    const random = seededRandom(20_261_123);
    for (let file = 0; file < 300; file++) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
        Array.from({ length: 1 + Math.floor(random() * 5) }, () =>
          Array.from({ length: Math.floor(random() * 4) }, () => PIECES[Math.floor(random() * PIECES.length)]).join(""),
        ),
      );
      // RFC 4180: a field with a quote, delimiter or line end is quoted (others now and
      // then too), its quotes doubled; a row of one empty field is written `""`, or it
      // could not be told from a line end at the end of the file.
      const lineEnd = random() < 0.5 ? "\n" : "\r\n";
      const quote = (field: string) =>
        /["\r\n,]/.test(field) || random() < 0.2 ? `"${field.replaceAll('"', '""')}"` : field;
      const line = (row: string[]) => (row.length === 1 && row[0] === "" ? '""' : row.map(quote).join(","));
      const text = rows.map(line).join(lineEnd) + (random() < 0.5 ? lineEnd : "");
      const bytes = new TextEncoder().encode(text);
      const expected: string[][] = parse(text, { relax_column_count: true });
      const scanned = scanAll(bytes, () => Math.ceil(random() * 9));
      expect(scanned.map((r) => r.fields)).toEqual(expected);
      expect(scanned.map((r) => r.fields)).toEqual(rows);
      // A scan started at any record's offset, as a window starts at a checkpoint, reads
      // the same records from there on.
      const from = Math.floor(random() * scanned.length);
      const offset = scanned[from]?.offset ?? 0;
      const resumed = scanAll(bytes.subarray(offset), () => Math.ceil(random() * 9));
      expect(resumed.map((r) => r.fields)).toEqual(scanned.slice(from).map((r) => r.fields));
    }
  });

  it("read the lenient cases as spreadsheets do", () => {
    const whole = (text: string) => scanAll(new TextEncoder().encode(text), () => 1_000).map((r) => r.fields);
    // A quote inside an unquoted field is an ordinary character.
    expect(whole('ab"c,d\n')).toEqual([['ab"c', "d"]]);
    // What follows a closing quote is kept.
    expect(whole('"ab"c,d\n')).toEqual([["abc", "d"]]);
    // An empty line is a record of one empty field; a line end at the end adds none.
    expect(whole("a\n\nb\n")).toEqual([["a"], [""], ["b"]]);
    // CR LF, LF and a lone CR all end a record.
    expect(whole("a\r\nb\rc\nd")).toEqual([["a"], ["b"], ["c"], ["d"]]);
    // A quoted field runs over line ends; an unterminated one runs to the end.
    expect(whole('"x\ny",z\n"open\n')).toEqual([["x\ny", "z"], ["open\n"]]);
  });

  it("give each record's byte offset, line ends included", () => {
    const scanned = scanAll(new TextEncoder().encode('é,"a\r\nb"\r\nx\ny'), () => 2);
    expect(scanned.map((r) => r.offset)).toEqual([0, 11, 13]);
  });

  it("refuse a row with more columns, or more units, than the limits", () => {
    const many = new TextEncoder().encode(`${",".repeat(20)}\n`);
    const scanner = (limits: { maxFields: number; maxRecordUnits: number }) =>
      new CsvRecordScanner(44, { record() {} }, limits, { startOffset: 0, unitBytes: 1 });
    expect(() => scanner({ maxFields: 10, maxRecordUnits: 1_000 }).push(many)).toThrow(/more than 10 columns/);
    const long = scanner({ maxFields: 10, maxRecordUnits: 100 });
    expect(() => {
      for (let i = 0; i < 20; i++) long.push(new TextEncoder().encode("aaaaaaaaaa"));
    }).toThrow(/longer than 100 bytes/);
  });
});
