import { promisify } from "node:util";
import { constants, crc32, deflateRaw, inflateRaw } from "node:zlib";
import { MAX_XML_RUN } from "../limits.js";

/**
 * An edited sheet's part is deflated in segments: runs of about this many bytes of XML,
 * each cut where a row starts and deflated on its own (a fresh dictionary, ended by a full
 * flush), so that a later edit inflates and deflates again only the segments it touches
 * and names the others as the stored bytes they are. What a segment deflates to is most
 * of what a one-cell edit stores: of the bench's 250,000-row workbook (ten columns of
 * numbers, dates and text), 1 MiB of XML deflated to 148 KiB, past the 128 KiB an edit
 * may store; 512 KiB deflates to 75 KiB. Smaller segments cost a longer table (16 bytes
 * each) and more breaks in the stream, each losing its dictionary.
 */
export const SEGMENT_XML_BYTES = 512 * 1024;

/** A segmented part's segments are listed in its central directory entry, in an extra field of this id. */
export const SEGMENT_TABLE_ID = 0xce11;
const TABLE_VERSION = 1;
/** Per segment: its deflated length, its XML's length and CRC-32, and the row it starts at. */
const SEGMENT_RECORD_BYTES = 16;
const TABLE_HEAD_BYTES = 1 + 4 * 4;

/** One segment of a part's deflated stream. */
export interface Segment {
  readonly compressedLength: number;
  readonly rawLength: number;
  readonly crc32: number;
  /**
   * The row the segment starts at; it holds the rows from it to the next segment's first
   * (excluded). The first segment (0) starts with the part and holds the rows before the
   * second's.
   */
  readonly firstRow: number;
}

/**
 * The extra field's data for a part deflated as `segments`: it names the part's deflated
 * and inflated sizes and CRC-32 too, so a table carried into an archive whose part was
 * compressed again (a ZIP tool that keeps extra fields) is seen not to describe it.
 */
export function encodeSegmentTable(segments: readonly Segment[]): Buffer {
  const whole = wholeOf(segments);
  const table = Buffer.alloc(TABLE_HEAD_BYTES + SEGMENT_RECORD_BYTES * segments.length);
  table.writeUInt8(TABLE_VERSION, 0);
  table.writeUInt32LE(whole.compressedLength, 1);
  table.writeUInt32LE(whole.rawLength, 5);
  table.writeUInt32LE(whole.crc32, 9);
  table.writeUInt32LE(segments.length, 13);
  for (const [i, segment] of segments.entries()) {
    const at = TABLE_HEAD_BYTES + i * SEGMENT_RECORD_BYTES;
    table.writeUInt32LE(segment.compressedLength, at);
    table.writeUInt32LE(segment.rawLength, at + 4);
    table.writeUInt32LE(segment.crc32, at + 8);
    table.writeUInt32LE(segment.firstRow, at + 12);
  }
  return table;
}

/** The most segments a table holds: an extra field is at most 65,535 bytes. */
export const MAX_SEGMENTS = Math.floor((0xffff - 4 - TABLE_HEAD_BYTES) / SEGMENT_RECORD_BYTES);

/**
 * The segments a part's extra field lists, when they describe the part as the central
 * directory has it (sizes, CRC-32, rows in order), else null: the part is then written
 * whole. A table is only a map: each segment an edit inflates is checked again against it.
 */
export function decodeSegmentTable(
  data: Buffer,
  part: { compressedSize: number; uncompressedSize: number; crc32: number },
): Segment[] | null {
  if (data.length < TABLE_HEAD_BYTES || data.readUInt8(0) !== TABLE_VERSION) return null;
  const count = data.readUInt32LE(13);
  if (count < 1 || data.length !== TABLE_HEAD_BYTES + count * SEGMENT_RECORD_BYTES) return null;
  if (
    data.readUInt32LE(1) !== part.compressedSize ||
    data.readUInt32LE(5) !== part.uncompressedSize ||
    data.readUInt32LE(9) !== part.crc32
  ) {
    return null;
  }
  const segments: Segment[] = [];
  for (let i = 0; i < count; i++) {
    const at = TABLE_HEAD_BYTES + i * SEGMENT_RECORD_BYTES;
    const segment = {
      compressedLength: data.readUInt32LE(at),
      rawLength: data.readUInt32LE(at + 4),
      crc32: data.readUInt32LE(at + 8),
      firstRow: data.readUInt32LE(at + 12),
    };
    const previous = segments.at(-1);
    if (segment.compressedLength === 0 || (previous !== undefined && segment.firstRow <= previous.firstRow))
      return null;
    segments.push(segment);
  }
  const whole = wholeOf(segments);
  if (
    whole.compressedLength !== part.compressedSize ||
    whole.rawLength !== part.uncompressedSize ||
    whole.crc32 !== part.crc32
  ) {
    return null;
  }
  return segments;
}

/** The part the segments make: lengths summed, CRC-32 combined. */
export function wholeOf(segments: readonly Segment[]): { compressedLength: number; rawLength: number; crc32: number } {
  let compressedLength = 0;
  let rawLength = 0;
  let crc = 0;
  for (const segment of segments) {
    compressedLength += segment.compressedLength;
    crc = crc32Combine(crc, segment.crc32, segment.rawLength);
    rawLength += segment.rawLength;
  }
  return { compressedLength, rawLength, crc32: crc };
}

/**
 * The CRC-32 of two runs of bytes one after the other, from each one's CRC-32 and the
 * second's length: zlib's `crc32_combine` (its GF(2) matrix arithmetic), which Node's
 * zlib does not expose. Runs in O(log length).
 */
export function crc32Combine(first: number, second: number, secondLength: number): number {
  if (secondLength <= 0) return first >>> 0;
  const times = (matrix: Uint32Array, vector: number): number => {
    let sum = 0;
    for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) if (v & 1) sum ^= matrix[i] as number;
    return sum >>> 0;
  };
  const square = (into: Uint32Array, matrix: Uint32Array) => {
    for (let n = 0; n < 32; n++) into[n] = times(matrix, matrix[n] as number);
  };
  const even = new Uint32Array(32);
  const odd = new Uint32Array(32);
  // The operator for one zero bit: the CRC-32 polynomial, then shifts.
  odd[0] = 0xedb88320;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row;
  square(even, odd); // two zero bits
  square(odd, even); // four
  let crc = first >>> 0;
  let length = secondLength;
  // Zero bytes applied to the first CRC, a power of two at a time.
  for (;;) {
    square(even, odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    square(odd, even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ second) >>> 0;
}

const deflateRawAsync = promisify(deflateRaw);
const inflateRawAsync = promisify(inflateRaw);

/**
 * A segment's XML deflated on its own: ended by a full flush (byte-aligned, no final
 * block) unless it is the part's last. On zlib's thread pool.
 */
export async function deflateSegment(xml: Buffer, last: boolean, level: number): Promise<Buffer> {
  return deflateRawAsync(xml, { level, finishFlush: last ? constants.Z_FINISH : constants.Z_FULL_FLUSH });
}

/** The bytes a segment ends with when it is not the part's last: the empty stored block of a full flush. */
export const FLUSH_MARK = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/**
 * A stored segment's XML, checked against its table entry: it must inflate on its own to
 * exactly its length and CRC-32 and, unless last, end at a full flush; else the part is
 * not what its table says (null), and is written whole.
 */
export async function inflateSegment(compressed: Buffer, segment: Segment, last: boolean): Promise<Buffer | null> {
  if (!last && !compressed.subarray(-FLUSH_MARK.length).equals(FLUSH_MARK)) return null;
  try {
    const xml = await inflateRawAsync(compressed, {
      finishFlush: last ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      maxOutputLength: segment.rawLength + 1,
    });
    return xml.length === segment.rawLength && crc32(xml) === segment.crc32 ? xml : null;
  } catch {
    return null;
  }
}

/** Where the rows are in a stream of a sheet's XML: before them (its head), among them, or past them. */
type RowsStage = { stage: "head" } | { stage: "rows"; prefix: string } | { stage: "tail" };

/**
 * A sheet's XML cut into segments of about `every` bytes, each cut made where a row with
 * its number (`<row r="N"`) starts, between the sheetData start and end tags: the cut's
 * row is the segment's first. The first segment starts at `firstRow` (0 for a whole part,
 * which starts with its head); `prefix` given, the XML starts among the rows.
 */
export async function* segmentsAtRows(
  xml: AsyncIterable<Uint8Array>,
  options: { every?: number; firstRow: number; prefix?: string },
): AsyncGenerator<{ xml: Buffer; firstRow: number }> {
  const every = options.every ?? SEGMENT_XML_BYTES;
  let where: RowsStage = options.prefix === undefined ? { stage: "head" } : { stage: "rows", prefix: options.prefix };
  let firstRow = options.firstRow;
  let held: Buffer[] = [];
  let heldBytes = 0;
  /** Within the joined held bytes, where the next search starts (what is before was searched). */
  let searched = 0;
  for await (const chunk of xml) {
    held.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    heldBytes += chunk.length;
    if (where.stage === "tail" || (where.stage === "rows" && heldBytes < every)) continue;
    for (;;) {
      const joined = held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held);
      held = [joined];
      if (where.stage === "head") {
        const open = /<([\w.-]+:)?sheetData\b[^>]*>/.exec(joined.toString("latin1", searched));
        if (open === null) {
          searched = Math.max(0, joined.length - MAX_XML_RUN);
          break;
        }
        where = open[0].endsWith("/>") ? { stage: "tail" } : { stage: "rows", prefix: open[1] ?? "" };
        searched += open.index + open[0].length;
        continue;
      }
      if (where.stage !== "rows" || joined.length < every) break;
      const cut = rowCut(joined, where.prefix, searched, Math.max(searched, every - 1));
      if (cut === "end") {
        where = { stage: "tail" };
        break;
      }
      if (cut === null) {
        // A row's tag may be split by the chunk's end: looked for again from before it.
        searched = Math.max(searched, joined.length - 64);
        break;
      }
      yield { xml: joined.subarray(0, cut.at), firstRow };
      firstRow = cut.row;
      held = [joined.subarray(cut.at)];
      heldBytes = held[0]?.length ?? 0;
      searched = 0;
    }
  }
  yield { xml: held.length === 1 ? (held[0] as Buffer) : Buffer.concat(held), firstRow };
}

/**
 * The first row start tag with its number at or after `from`, or "end" when the rows
 * end first (looked for from `searched`), or null when neither is in `xml` yet.
 */
function rowCut(
  xml: Buffer,
  prefix: string,
  searched: number,
  from: number,
): { at: number; row: number } | "end" | null {
  const close = xml.indexOf(`</${prefix}sheetData`, searched);
  if (close !== -1 && close < from) return "end";
  const tag = `<${prefix}row r="`;
  for (let at = xml.indexOf(tag, from); at !== -1; at = xml.indexOf(tag, at + 1)) {
    if (close !== -1 && close < at) return "end";
    const end = xml.indexOf(0x22, at + tag.length);
    if (end === -1) return null;
    const digits = xml.toString("latin1", at + tag.length, end);
    if (/^[1-9]\d{0,6}$/.test(digits)) return { at, row: Number(digits) };
  }
  return close !== -1 ? "end" : null;
}
