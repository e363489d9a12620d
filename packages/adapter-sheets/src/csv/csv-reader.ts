import {
  type CellGrid,
  type CellRectangle,
  type CellType,
  type CellValue,
  type CsvDelimiter,
  type CsvEncoding,
  fileNameKey,
  type OpenBytes,
  type ReadableSheetIndex,
  SpreadsheetUnreadableError,
} from "@cellar/core";
import { GUESSED_COLUMNS, GUESSED_ROWS, guessColumns, typeOfText } from "../column-guess.js";
import { CSV_CHECKPOINT_EVERY, CSV_LIMITS, CSV_SHEET_NAME } from "../limits.js";
import { decoderFor, detectDelimiter, encodingFromBom, Utf8Check } from "./csv-dialect.js";
import { fieldBytes, fieldIsEmpty, firstUnit, looksLikeFormula, mayLookLikeFormula } from "./csv-fields.js";
import { type CsvRecord, CsvRecordScanner } from "./csv-records.js";

/** Bytes read before the delimiter is chosen. */
const SAMPLE_BYTES = 64 * 1024;
/** Bytes of each sampled cell kept for the header and column guesses. */
const SAMPLED_CELL_BYTES = 256;

interface Dialect {
  readonly bomEncoding: CsvEncoding | null;
  readonly bomBytes: number;
  readonly delimiter: CsvDelimiter;
}

/** Stops a scan from inside its sink once a window has all its rows. */
class WindowComplete extends Error {}

/**
 * Feeds a byte stream to a record scanner: bytes as they are for UTF-8 and Windows-1252,
 * 16-bit little-endian units for UTF-16 (big-endian swapped), a byte-order mark skipped.
 */
async function scan(
  chunks: AsyncIterable<Uint8Array>,
  scanner: CsvRecordScanner,
  wide: "le" | "be" | null,
  skip: number,
  onBytes?: (bytes: Uint8Array) => void,
): Promise<void> {
  for await (const _ of scanning(chunks, scanner, wide, skip, onBytes)) {
    // Each step has fed the scanner one chunk.
  }
}

/** `scan`, a chunk at a time: it yields after each chunk, so a consumer can take the records it produced. */
export async function* scanning(
  chunks: AsyncIterable<Uint8Array>,
  scanner: CsvRecordScanner,
  wide: "le" | "be" | null,
  skip: number,
  onBytes?: (bytes: Uint8Array) => void,
): AsyncGenerator<void> {
  let toSkip = skip;
  let odd: number | null = null;
  for await (const raw of chunks) {
    let chunk = raw;
    if (toSkip > 0) {
      const skipped = Math.min(toSkip, chunk.length);
      chunk = chunk.subarray(skipped);
      toSkip -= skipped;
    }
    if (chunk.length === 0) continue;
    onBytes?.(chunk);
    if (wide === null) {
      scanner.push(chunk);
      yield;
      continue;
    }
    const bytes: Uint8Array = odd === null ? chunk : Buffer.concat([Uint8Array.of(odd), chunk]);
    const unitCount = bytes.length >> 1;
    const units = new Uint16Array(unitCount);
    for (let k = 0; k < unitCount; k++) {
      const a = bytes[2 * k] as number;
      const b = bytes[2 * k + 1] as number;
      units[k] = wide === "le" ? a | (b << 8) : (a << 8) | b;
    }
    odd = bytes.length % 2 === 1 ? (bytes[bytes.length - 1] as number) : null;
    scanner.push(units);
    yield;
  }
  scanner.end();
}

export function limitsFor(unitBytes: 1 | 2) {
  return { maxFields: CSV_LIMITS.maxColumns, maxRecordUnits: Math.floor(CSV_LIMITS.maxRowBytes / unitBytes) };
}

/** The first chunks of a stream, at least `bytes` of them (or all there is), and the rest of it. */
async function splitHead(chunks: AsyncIterable<Uint8Array>, bytes: number) {
  const iterator = chunks[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let length = 0;
  let done = false;
  while (length < bytes) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    length += next.value.length;
  }
  async function* whole(): AsyncGenerator<Uint8Array> {
    yield* head;
    if (done) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head: Buffer.concat(head), whole: whole() };
}

function dialectOf(head: Uint8Array): Dialect {
  const bom = encodingFromBom(head);
  const body = head.subarray(bom?.bomBytes ?? 0);
  // Only where the delimiters and quotes are matters: Latin-1 shows every ASCII byte as it is.
  const sample =
    bom?.encoding === "utf-16le" || bom?.encoding === "utf-16be"
      ? new TextDecoder(bom.encoding).decode(body.subarray(0, body.length & ~1))
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("latin1");
  return { bomEncoding: bom?.encoding ?? null, bomBytes: bom?.bomBytes ?? 0, delimiter: detectDelimiter(sample) };
}

export const wideness = (encoding: CsvEncoding | null) =>
  encoding === "utf-16le" ? "le" : encoding === "utf-16be" ? "be" : null;

/**
 * Reads a CSV through once: its encoding and delimiter, its extent, a checkpoint every
 * `CSV_CHECKPOINT_EVERY` rows, the header and column guesses, and how many cells look
 * like formulas.
 */
export async function analyseCsv(openFile: OpenBytes, version: number): Promise<ReadableSheetIndex> {
  const { head, whole } = await splitHead(await openFile(), SAMPLE_BYTES);
  const dialect = dialectOf(head);
  const wide = wideness(dialect.bomEncoding);
  const unitBytes = wide === null ? 1 : 2;
  const maxCellUnits = Math.floor(CSV_LIMITS.maxCellBytes / unitBytes);
  // Windows-1252 and UTF-8 share every structural byte: whether the file is UTF-8 is
  // known at its end, and the sampled cells are decoded then.
  const utf8 = dialect.bomEncoding === null ? new Utf8Check() : null;
  const latin1 = (bytes: Uint8Array) =>
    wide === null
      ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
      : decoderFor("utf-16le")(bytes);
  const offsets: number[] = [];
  const sampled: (Uint8Array | null)[][] = [];
  let row = 0;
  let rowCount = 0;
  let columnCount = 0;
  let formulaLikeCells = 0;
  const scanner = new CsvRecordScanner(
    dialect.delimiter.charCodeAt(0),
    {
      record(record: CsvRecord) {
        if (row % CSV_CHECKPOINT_EVERY === 0) offsets.push(record.offset);
        row++;
        let last = -1;
        for (let field = 0; field < record.fieldCount; field++) {
          if ((record.ends[field] as number) - (record.starts[field] as number) > maxCellUnits) {
            throw new SpreadsheetUnreadableError(
              `row ${row} has a cell of more than ${CSV_LIMITS.maxCellBytes} bytes, more than Cellar reads.`,
            );
          }
          if (fieldIsEmpty(record, field)) continue;
          last = field;
          if (mayLookLikeFormula(firstUnit(record, field)) && looksLikeFormula(latin1(fieldBytes(record, field)))) {
            formulaLikeCells++;
          }
        }
        if (last >= 0) {
          rowCount = row;
          columnCount = Math.max(columnCount, last + 1);
        }
        if (row <= GUESSED_ROWS) {
          const cells: (Uint8Array | null)[] = [];
          for (let field = 0; field < Math.min(record.fieldCount, GUESSED_COLUMNS); field++) {
            cells.push(
              fieldIsEmpty(record, field) ? null : fieldBytes(record, field).slice(0, SAMPLED_CELL_BYTES * unitBytes),
            );
          }
          sampled.push(cells);
        }
      },
    },
    limitsFor(unitBytes),
    { startOffset: dialect.bomBytes, unitBytes },
  );
  await scan(whole, scanner, wide, dialect.bomBytes, utf8 === null ? undefined : (bytes) => utf8.update(bytes));
  const encoding: CsvEncoding = dialect.bomEncoding ?? (utf8?.finish() ? "utf-8" : "windows-1252");
  const decode = decoderFor(encoding);
  const texts = sampled.map((cells) => cells.map((bytes) => (bytes === null ? null : decode(bytes))));
  const types = texts.map((cells) => cells.map((text) => (text === null ? null : typeOfText(text))));
  const columnsBelow = Array.from({ length: Math.min(columnCount, GUESSED_COLUMNS) }, (_, column) => {
    const values = new Set<string>();
    for (let r = 1; r < texts.length; r++) {
      const text = texts[r]?.[column];
      if (text !== null && text !== undefined) values.add(text);
    }
    return values;
  });
  const guess = guessColumns(types, texts[0] ?? [], columnsBelow, columnCount);
  return {
    readable: true,
    version,
    sheets: [
      {
        index: 0,
        name: CSV_SHEET_NAME,
        rowCount,
        columnCount,
        headerRow: guess.headerRow,
        columnTypes: guess.columnTypes,
        formulaLikeCells,
      },
    ],
    checkpoints: [{ every: CSV_CHECKPOINT_EVERY, offsets }],
    csv: { encoding, delimiter: dialect.delimiter, bom: dialect.bomEncoding !== null },
  };
}

/**
 * The cells of a rectangle of a CSV: read from the checkpoint at or before its first
 * row, up to its last row, and no further. Every value is the cell's text as it is in
 * the file (after decoding); an empty cell is null.
 */
export async function csvWindow(input: {
  index: ReadableSheetIndex;
  rectangle: CellRectangle;
  size: number;
  openFile: OpenBytes;
}): Promise<CellGrid> {
  const { index, rectangle } = input;
  const csv = index.csv;
  const checkpoints = index.checkpoints[0];
  if (csv === undefined || checkpoints === undefined) throw new Error("not a CSV's index");
  const checkpoint = Math.min(Math.floor((rectangle.firstRow - 1) / checkpoints.every), checkpoints.offsets.length - 1);
  const start = checkpoints.offsets[checkpoint];
  const values: CellValue[][] = [];
  const types: (CellType | null)[][] = [];
  if (start === undefined) return { values, types };
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const decode = decoderFor(csv.encoding);
  const width = rectangle.lastColumn - rectangle.firstColumn + 1;
  let row = checkpoint * checkpoints.every;
  const scanner = new CsvRecordScanner(
    csv.delimiter.charCodeAt(0),
    {
      record(record: CsvRecord) {
        row++;
        if (row < rectangle.firstRow) return;
        const rowValues: CellValue[] = new Array(width).fill(null);
        const rowTypes: (CellType | null)[] = new Array(width).fill(null);
        for (let column = rectangle.firstColumn; column <= rectangle.lastColumn; column++) {
          const field = column - 1;
          if (field >= record.fieldCount || fieldIsEmpty(record, field)) continue;
          rowValues[column - rectangle.firstColumn] = decode(fieldBytes(record, field));
          rowTypes[column - rectangle.firstColumn] = "string";
        }
        values.push(rowValues);
        types.push(rowTypes);
        if (row >= rectangle.lastRow) throw new WindowComplete();
      },
    },
    limitsFor(unitBytes),
    { startOffset: start, unitBytes },
  );
  const chunks = await input.openFile({ start, end: input.size - 1 });
  try {
    await scan(chunks, scanner, wide, 0);
  } catch (error) {
    if (!(error instanceof WindowComplete)) throw error;
  }
  return { values, types };
}

/**
 * Every row of a CSV from the top, as text (null where a cell is empty), each as wide as
 * the sheet's extent and no further than its last row with a value: what a conversion
 * writes out.
 */
export async function* csvRows(
  index: ReadableSheetIndex,
  size: number,
  openFile: OpenBytes,
): AsyncGenerator<[number, (string | null)[]]> {
  const csv = index.csv;
  const sheet = index.sheets[0];
  if (csv === undefined || sheet === undefined) throw new Error("not a CSV's index");
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const decode = decoderFor(csv.encoding);
  const bomBytes = csv.bom ? (csv.encoding === "utf-8" ? 3 : 2) : 0;
  let row = 0;
  let ready: [number, (string | null)[]][] = [];
  const scanner = new CsvRecordScanner(
    csv.delimiter.charCodeAt(0),
    {
      record(record: CsvRecord) {
        row++;
        if (row > sheet.rowCount) return;
        const cells: (string | null)[] = [];
        for (let field = 0; field < sheet.columnCount; field++) {
          cells.push(
            field >= record.fieldCount || fieldIsEmpty(record, field) ? null : decode(fieldBytes(record, field)),
          );
        }
        ready.push([row, cells]);
      },
    },
    limitsFor(unitBytes),
    { startOffset: bomBytes, unitBytes },
  );
  const chunks = await openFile(size === 0 ? undefined : { start: 0, end: size - 1 });
  for await (const _ of scanning(chunks, scanner, wide, bomBytes)) {
    yield* ready;
    ready = [];
    if (row > sheet.rowCount) return;
  }
  yield* ready;
}

/**
 * The cells of a CSV whose text holds `key` once folded (`fileNameKey`, as core finds
 * text), in row and column order: `[row, column, text]`. A record is decoded only when
 * it may hold a match: for a key of plain ASCII (no quote, delimiter or line end), a record
 * of ASCII units that does not hold it, case aside, is passed over unread; folding cannot
 * make one match (only characters beyond ASCII fold into ASCII ones).
 */
export async function* csvFind(input: {
  index: ReadableSheetIndex;
  size: number;
  openFile: OpenBytes;
  key: string;
}): AsyncGenerator<[number, number, string]> {
  const { index, key } = input;
  const csv = index.csv;
  const sheet = index.sheets[0];
  if (csv === undefined || sheet === undefined) throw new Error("not a CSV's index");
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const decode = decoderFor(csv.encoding);
  const bomBytes = csv.bom ? (csv.encoding === "utf-8" ? 3 : 2) : 0;
  const delimiter = csv.delimiter.charCodeAt(0);
  // The key's units, when a record's raw units can rule it out: plain ASCII without a quote, the delimiter or a line end.
  const plain =
    /^[\x20-\x7e]+$/.test(key) && !key.includes('"') && !key.includes(csv.delimiter)
      ? Uint16Array.from(key, (character) => character.charCodeAt(0))
      : null;
  const mayHold = (record: CsvRecord): boolean => {
    if (plain === null || record.fieldCount === 0) return true;
    const units = record.units;
    const start = record.starts[0] as number;
    const end = record.ends[record.fieldCount - 1] as number;
    const first = plain[0] as number;
    for (let at = start; at < end; at++) {
      const unit = units[at] as number;
      if (unit >= 0x80) return true;
      // ASCII letters compare lower case: `| 0x20` lowers A–Z and leaves a–z.
      const lowered = unit >= 0x41 && unit <= 0x5a ? unit | 0x20 : unit;
      if (lowered !== first || at + plain.length > end) continue;
      let k = 1;
      for (; k < plain.length; k++) {
        const next = units[at + k] as number;
        if ((next >= 0x41 && next <= 0x5a ? next | 0x20 : next) !== plain[k]) break;
      }
      if (k === plain.length) return true;
    }
    return false;
  };
  const found: [number, number, string][] = [];
  /** A scanner of the records from row `after` + 1 on, that notes each match in `found`. */
  const scannerFrom = (after: number, startOffset: number) => {
    let row = after;
    return new CsvRecordScanner(
      delimiter,
      {
        record(record: CsvRecord) {
          row++;
          if (row > sheet.rowCount || !mayHold(record)) return;
          for (let field = 0; field < Math.min(record.fieldCount, sheet.columnCount); field++) {
            if (fieldIsEmpty(record, field)) continue;
            const text = decode(fieldBytes(record, field));
            if (fileNameKey(text).includes(key)) found.push([row, field + 1, text]);
          }
        },
      },
      limitsFor(unitBytes),
      { startOffset, unitBytes },
    );
  };
  const checkpoints = index.checkpoints[0];
  if (plain === null || wide !== null || checkpoints === undefined || checkpoints.offsets.length === 0) {
    const scanner = scannerFrom(0, bomBytes);
    const chunks = await input.openFile(input.size === 0 ? undefined : { start: 0, end: input.size - 1 });
    for await (const _ of scanning(chunks, scanner, wide, bomBytes)) {
      yield* found.splice(0);
    }
    yield* found;
    return;
  }
  // The rows between two checkpoints are read as one piece, in a single pass over the
  // file: a piece of ASCII that does not hold the key, case aside (V8 lowers and searches
  // a one-byte string natively), is passed over without its records being scanned.
  const { every, offsets } = checkpoints;
  const pieceEnd = (piece: number) => offsets[piece + 1] ?? input.size;
  const searchPiece = (piece: number, bytes: Buffer) => {
    const text = bytes.toString("latin1");
    if (!BEYOND_ASCII.test(text) && !text.toLowerCase().includes(key)) return;
    const scanner = scannerFrom(piece * every, offsets[piece] as number);
    scanner.push(bytes);
    scanner.end();
  };
  let piece = 0;
  let position = offsets[0] as number;
  let pending: Buffer[] = [];
  const chunks = await input.openFile(position >= input.size ? undefined : { start: position, end: input.size - 1 });
  for await (const chunk of chunks) {
    let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (rest.length > 0 && piece < offsets.length) {
      const taken = Math.min(pieceEnd(piece) - position, rest.length);
      pending.push(rest.subarray(0, taken));
      position += taken;
      rest = rest.subarray(taken);
      if (position === pieceEnd(piece)) {
        searchPiece(piece, Buffer.concat(pending));
        pending = [];
        piece++;
      }
    }
    yield* found.splice(0);
  }
  if (pending.length > 0 && piece < offsets.length) searchPiece(piece, Buffer.concat(pending));
  yield* found;
}

/** A character past ASCII (U+0080 and up). */
const BEYOND_ASCII = /[\u0080-\uffff]/;
