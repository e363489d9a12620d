import { randomBytes } from "node:crypto";
import { crc32, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  crc32Combine,
  decodeSegmentTable,
  deflateSegment,
  encodeSegmentTable,
  inflateSegment,
  type Segment,
  segmentsAtRows,
  wholeOf,
} from "../src/xlsx/deflate-segments.js";

async function* chunked(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function sheetXml(rows: number, prefix = ""): Buffer {
  const body: string[] = [];
  for (let r = 1; r <= rows; r++) {
    body.push(
      `<${prefix}row r="${r}"><${prefix}c r="A${r}" t="inlineStr"><${prefix}is><${prefix}t>row ${r} of the sheet</${prefix}t></${prefix}is></${prefix}c><${prefix}c r="B${r}"><${prefix}v>${r * 3}</${prefix}v></${prefix}c></${prefix}row>`,
    );
  }
  const ns = prefix === "" ? "xmlns" : `xmlns:${prefix.slice(0, -1)}`;
  return Buffer.from(
    `<?xml version="1.0"?><${prefix}worksheet ${ns}="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><${prefix}dimension ref="A1:B${rows}"/><${prefix}sheetData>${body.join("")}</${prefix}sheetData><${prefix}pageMargins left="0.7"/></${prefix}worksheet>`,
  );
}

async function segmentsOf(xml: Buffer, every: number, chunk: number) {
  const found: { xml: Buffer; firstRow: number }[] = [];
  for await (const segment of segmentsAtRows(chunked(xml, chunk), { every, firstRow: 0 })) found.push(segment);
  return found;
}

describe("deflate segments", () => {
  it("crc32Combine gives the CRC-32 of two runs joined, for lengths from 0 up", () => {
    for (const [a, b] of [
      [0, 0],
      [1, 0],
      [0, 1],
      [7, 13],
      [1000, 65_537],
      [3, 1_048_583],
    ] as const) {
      const first = randomBytes(a);
      const second = randomBytes(b);
      expect(crc32Combine(crc32(first), crc32(second), b)).toBe(crc32(Buffer.concat([first, second])));
    }
  });

  it("cuts a sheet where rows start, every so many bytes, in whatever chunks it comes; the segments join to it", async () => {
    for (const prefix of ["", "x:"]) {
      const xml = sheetXml(5000, prefix);
      for (const chunk of [1, 977, 64 * 1024]) {
        if (chunk === 1 && prefix === "x:") continue;
        const segments = await segmentsOf(chunk === 1 ? xml.subarray(0, 40_000) : xml, 32 * 1024, chunk);
        const whole = chunk === 1 ? xml.subarray(0, 40_000) : xml;
        expect(Buffer.concat(segments.map((s) => s.xml)).equals(whole)).toBe(true);
        expect(segments[0]?.firstRow).toBe(0);
        for (const segment of segments.slice(1)) {
          expect(segment.xml.toString("latin1", 0, 40)).toMatch(new RegExp(`^<${prefix}row r="${segment.firstRow}"`));
        }
        for (const segment of segments.slice(0, -1)) expect(segment.xml.length).toBeGreaterThanOrEqual(32 * 1024);
        if (chunk !== 1) expect(segments.length).toBeGreaterThan(5);
      }
    }
  });

  it("makes one segment of a sheet without rows, and cuts nowhere past the rows' end", async () => {
    const empty = Buffer.from(`<worksheet><sheetData/>${"<x/>".repeat(30_000)}</worksheet>`);
    expect(await segmentsOf(empty, 1024, 500)).toHaveLength(1);
    const tail = Buffer.from(
      `<worksheet><sheetData><row r="1"/></sheetData><extLst>${'<row r="9"/>'.repeat(10_000)}</extLst></worksheet>`,
    );
    expect(await segmentsOf(tail, 1024, 700)).toHaveLength(1);
  });

  it("segments deflated apart make one stream, each inflating on its own; the table describes the part", async () => {
    const xml = sheetXml(20_000);
    const cut = await segmentsOf(xml, 64 * 1024, 16 * 1024);
    const deflated = await Promise.all(cut.map((s, i) => deflateSegment(s.xml, i === cut.length - 1, 1)));
    expect(inflateRawSync(Buffer.concat(deflated)).equals(xml)).toBe(true);
    const segments: Segment[] = cut.map((s, i) => ({
      compressedLength: (deflated[i] as Buffer).length,
      rawLength: s.xml.length,
      crc32: crc32(s.xml),
      firstRow: s.firstRow,
    }));
    for (const [i, segment] of segments.entries()) {
      const alone = await inflateSegment(deflated[i] as Buffer, segment, i === segments.length - 1);
      expect(alone?.equals(cut[i]?.xml as Buffer)).toBe(true);
    }
    const whole = wholeOf(segments);
    expect(whole.crc32).toBe(crc32(xml));
    const part = { compressedSize: whole.compressedLength, uncompressedSize: xml.length, crc32: whole.crc32 };
    expect(decodeSegmentTable(encodeSegmentTable(segments), part)).toEqual(segments);
    // A table of another part, or a segment that is not what it says, is not taken.
    expect(decodeSegmentTable(encodeSegmentTable(segments), { ...part, compressedSize: part.compressedSize + 1 })).toBe(
      null,
    );
    expect(decodeSegmentTable(encodeSegmentTable(segments).subarray(0, 40), part)).toBe(null);
    expect(await inflateSegment(deflated[1] as Buffer, segments[2] as Segment, false)).toBe(null);
    const cutShort = (deflated[1] as Buffer).subarray(0, -5);
    expect(await inflateSegment(cutShort, segments[1] as Segment, false)).toBe(null);
  });
});
