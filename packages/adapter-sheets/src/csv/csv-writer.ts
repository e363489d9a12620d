import {
  type CellValue,
  type CellWrite,
  invalidField,
  type OpenBytes,
  type ReadableSheetIndex,
  type WrittenContent,
  type WrittenPart,
} from "@cellar/core";
import iconv from "iconv-lite";
import { GUESSED_ROWS } from "../column-guess.js";
import { CSV_LIMITS } from "../limits.js";
import { decoderFor } from "./csv-dialect.js";
import { fieldBytes, fieldIsEmpty, fileBytes, firstUnit, looksLikeFormula, mayLookLikeFormula } from "./csv-fields.js";
import { limitsFor, scanning, wideness } from "./csv-reader.js";
import { type CsvRecord, CsvRecordScanner } from "./csv-records.js";

const CRLF = "\r\n";

/**
 * Rewritten records go out in chunks of about this size: one per record made a 1,000-record
 * rewrite cost a thousand writes to storage, most of a small edit's time.
 */
const OUTPUT_CHUNK_BYTES = 64 * 1024;

/** A written field: its bytes as the file has them, and what the reader's index counts of it. */
interface WrittenField {
  readonly bytes: Uint8Array;
  readonly empty: boolean;
  readonly formulaLike: boolean;
}

/** Ends the scan once the last edited row has been written out. */
class EditsDone extends Error {
  constructor(readonly resumeAt: number) {
    super("edits done");
  }
}

/** Ends the scan for `added`: a record the writes change is there, so the content is not only added to. */
class NotOnlyAdded extends Error {
  constructor() {
    super("not only added");
  }
}

/**
 * A CSV with cells written into it, streamed: the bytes before the checkpoint at or before
 * the first edited row are copied as they are, the records from there to the last edited
 * row are read and written again (an untouched record byte for byte, an edited one field
 * by field, its other fields' bytes kept), and the bytes after them copied as they are.
 * Rows past the end are added with the file's line ending. The encoding, byte-order
 * mark and delimiter stay; text the encoding cannot hold, or a cell or row longer than
 * the reader reads, is refused before anything is written.
 *
 * The new content's index is made from the old one where that is exact: checkpoints
 * after the rewritten records move by the bytes they gained or lost, the extent and the
 * formula-like count follow the written cells. When an edit could change what only a
 * read-through knows (the header and column guesses of the first rows, an extent that
 * may shrink, whether a Windows-1252 file is still not UTF-8), there is no new index and
 * the content is read through again.
 *
 * Rows written after the file's last record are only added to it: `added` gives just
 * their bytes (and a line end first when the last record has none), having read the
 * records after the last checkpoint to make sure no written row is among them.
 */
export function writeCsv(input: {
  index: ReadableSheetIndex;
  size: number;
  openFile: OpenBytes;
  writes: readonly CellWrite[];
}): WrittenContent {
  const { index, size, openFile } = input;
  const [firstSheet] = index.sheets;
  const [firstCheckpoints] = index.checkpoints;
  if (index.csv === undefined || firstCheckpoints === undefined || firstSheet === undefined) {
    throw new Error("not a CSV's index");
  }
  const csv = index.csv;
  const sheet = firstSheet;
  const checkpoints = firstCheckpoints;
  const every = checkpoints.every;
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const encode = encoderFor(csv.encoding);
  const delimiter = encode(csv.delimiter);
  const decode = decoderFor(csv.encoding);
  // As the reader tests a field for the formula-like count (csv-reader.ts).
  const latin1 = (bytes: Uint8Array) =>
    wide === null ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1") : decode(bytes);

  // Every edited row's fields (by column, from 1; a later write over an earlier one),
  // encoded now: a value the encoding cannot hold is refused before a byte is written.
  const rows = new Map<number, Map<number, WrittenField>>();
  for (const write of input.writes) {
    for (let r = 0; r < write.values.length; r++) {
      const row = write.rectangle.firstRow + r;
      const edits = rows.get(row) ?? new Map<number, WrittenField>();
      rows.set(row, edits);
      const values = write.values[r] as readonly CellValue[];
      for (let c = 0; c < values.length; c++) {
        const value = values[c] ?? null;
        const text = cellText(value);
        const bytes = encode(quoted(text));
        if (bytes.length > CSV_LIMITS.maxCellBytes) {
          throw invalidField(
            "values",
            `a cell of ${bytes.length} bytes is more than the ${CSV_LIMITS.maxCellBytes} a CSV's cell may hold`,
          );
        }
        edits.set(write.rectangle.firstColumn + c, { bytes, empty: text === "", formulaLike: looksLikeFormula(text) });
      }
    }
  }
  const editedRows = [...rows.keys()].sort((a, b) => a - b);
  const firstRow = editedRows[0] ?? 1;
  const lastRow = editedRows[editedRows.length - 1] ?? 0;
  const checkpoint = Math.max(0, Math.min(Math.floor((firstRow - 1) / every), checkpoints.offsets.length - 1));
  const bomBytes = csv.bom ? (csv.encoding === "utf-8" ? 3 : 2) : 0;
  const start = checkpoints.offsets[checkpoint] ?? bomBytes;

  const toFileBytes = (units: ArrayLike<number>, from: number, to: number) => fileBytes(units, from, to, wide);

  // What the new index needs, gathered as the records go by.
  const regionOffsets: number[] = [];
  let position = start;
  let lastValuedInRegion = 0;
  let columnCount = sheet.columnCount;
  let formulaLikeCells = sheet.formulaLikeCells;
  // Set when only a read-through can tell what the index says now.
  const guessedRowsWritten = editedRows.some((row) => row <= GUESSED_ROWS);
  let unknowable = guessedRowsWritten;
  let regionEnd: { row: number; resumeAt: number } | null = null;
  let finished = false;

  /** Emits one rebuilt or new record's pieces, and counts what the index needs of it. */
  function rebuilt(
    edits: Map<number, WrittenField>,
    record: CsvRecord | null,
    out: Uint8Array[],
    terminator: Uint8Array,
  ) {
    const fieldCount = record?.fieldCount ?? 0;
    const width = Math.max(fieldCount, ...edits.keys());
    let lastValued = -1;
    for (let field = 0; field < width; field++) {
      if (field > 0) out.push(delimiter);
      const edit = edits.get(field + 1);
      const hadValue = record !== null && field < fieldCount && !fieldIsEmpty(record, field);
      if (edit !== undefined) {
        out.push(edit.bytes);
        if (!edit.empty) lastValued = field;
        if (edit.formulaLike) formulaLikeCells++;
        if (hadValue && record !== null) {
          if (mayLookLikeFormula(firstUnit(record, field)) && looksLikeFormula(latin1(fieldBytes(record, field)))) {
            formulaLikeCells--;
          }
          // The old bytes may have been what kept the file from being UTF-8.
          if (csv.encoding === "windows-1252" && fieldBytes(record, field).some((byte) => byte >= 0x80))
            unknowable = true;
          // The sheet's last column may lose its only value.
          if (edit.empty && field + 1 >= sheet.columnCount) unknowable = true;
        }
      } else if (record !== null && field < fieldCount) {
        out.push(toFileBytes(record.units, record.starts[field] as number, record.ends[field] as number));
        if (hadValue) lastValued = field;
      }
    }
    out.push(terminator);
    if (width > CSV_LIMITS.maxColumns)
      throw invalidField("range", `reaches past column ${CSV_LIMITS.maxColumns}, more than a CSV may have`);
    columnCount = Math.max(columnCount, lastValued + 1);
    return lastValued >= 0;
  }

  const byteLength = (pieces: readonly Uint8Array[]) => pieces.reduce((sum, piece) => sum + piece.length, 0);

  /**
   * The new content, the stored bytes it copies as they are named as spans of them; with
   * `addedOnly`, without the stored bytes, which must stay as they are.
   */
  async function* parts(addedOnly = false): AsyncGenerator<WrittenPart> {
    // Counted afresh on each pass: `added` may have read records before it gave up.
    regionOffsets.length = 0;
    position = start;
    lastValuedInRegion = 0;
    columnCount = sheet.columnCount;
    formulaLikeCells = sheet.formulaLikeCells;
    unknowable = guessedRowsWritten;
    regionEnd = null;
    finished = false;
    if (start > 0 && !addedOnly) yield { start: 0, end: start - 1 };
    let row = checkpoint * every;
    let lineEnd: Uint8Array | null = null;
    // Whether the last record read ended with a line end (a file's last one may not).
    let ended = true;
    let out: Uint8Array[] = [];
    const scanner = new CsvRecordScanner(
      csv.delimiter.charCodeAt(0),
      {
        record(record: CsvRecord) {
          row++;
          if ((row - 1) % every === 0) regionOffsets.push(position);
          const recordUnits = record.byteLength / unitBytes;
          const terminatorStart = record.ends[record.fieldCount - 1] as number;
          ended = terminatorStart < recordUnits;
          if (ended && lineEnd === null) lineEnd = toFileBytes(record.units, terminatorStart, recordUnits);
          const edits = rows.get(row);
          if (edits !== undefined && addedOnly) throw new NotOnlyAdded();
          if (edits === undefined) {
            if (!addedOnly) out.push(toFileBytes(record.units, 0, recordUnits));
            position += record.byteLength;
            let valued = false;
            for (let field = 0; field < record.fieldCount && !valued; field++) valued = !fieldIsEmpty(record, field);
            if (valued) lastValuedInRegion = row;
          } else {
            const pieces: Uint8Array[] = [];
            if (rebuilt(edits, record, pieces, toFileBytes(record.units, terminatorStart, recordUnits))) {
              lastValuedInRegion = row;
            }
            const length = byteLength(pieces);
            if (length > CSV_LIMITS.maxRowBytes) {
              throw invalidField(
                "values",
                `row ${row} would be more than the ${CSV_LIMITS.maxRowBytes} bytes a CSV's row may hold`,
              );
            }
            out.push(...pieces);
            position += length;
          }
          if (row >= lastRow) throw new EditsDone(record.offset + record.byteLength);
        },
      },
      limitsFor(unitBytes),
      { startOffset: start, unitBytes },
    );
    let resumeAt: number | null = null;
    if (start < size) {
      try {
        for await (const _ of scanning(await openFile({ start, end: size - 1 }), scanner, wide, 0)) {
          if (byteLength(out) >= OUTPUT_CHUNK_BYTES) {
            yield Buffer.concat(out);
            out = [];
          }
        }
      } catch (error) {
        if (!(error instanceof EditsDone)) throw error;
        resumeAt = error.resumeAt;
      }
    }
    if (out.length > 0) yield Buffer.concat(out);
    out = [];
    if (resumeAt !== null) {
      regionEnd = { row, resumeAt };
      if (resumeAt < size) yield { start: resumeAt, end: size - 1 };
      finished = true;
      return;
    }
    // Rows past the file's last record.
    const newLine = lineEnd ?? encode(CRLF);
    if (!ended) {
      out.push(newLine);
      position += newLine.length;
    }
    // Empty rows up to the next written one go out as runs of line ends, filled natively:
    // one at a time, a write far past the end cost seconds of a request's time.
    let outBytes = byteLength(out);
    const emit = (piece: Uint8Array) => {
      out.push(piece);
      outBytes += piece.length;
      position += piece.length;
    };
    const written = editedRows.filter((edited) => edited > row);
    for (const next of [...written, lastRow + 1]) {
      // Rows row + 1 … next − 1 are empty.
      while (row + 1 < next) {
        const count = Math.min(next - 1 - row, Math.max(1, Math.floor(OUTPUT_CHUNK_BYTES / newLine.length)));
        // A checkpoint within the run: its offset is where its row starts.
        for (let at = row + 1; at < row + 1 + count; at++) {
          if ((at - 1) % every === 0) regionOffsets.push(position + (at - row - 1) * newLine.length);
        }
        const run = Buffer.alloc(count * newLine.length);
        for (let at = 0; at < run.length; at += newLine.length) run.set(newLine, at);
        emit(run);
        row += count;
        if (outBytes >= OUTPUT_CHUNK_BYTES) {
          yield Buffer.concat(out);
          out = [];
          outBytes = 0;
        }
      }
      if (next > lastRow) break;
      row = next;
      if ((row - 1) % every === 0) regionOffsets.push(position);
      const pieces: Uint8Array[] = [];
      if (rebuilt(rows.get(row) as Map<number, WrittenField>, null, pieces, newLine)) lastValuedInRegion = row;
      const length = byteLength(pieces);
      if (length > CSV_LIMITS.maxRowBytes) {
        throw invalidField(
          "values",
          `row ${row} would be more than the ${CSV_LIMITS.maxRowBytes} bytes a CSV's row may hold`,
        );
      }
      for (const piece of pieces) emit(piece);
      if (outBytes >= OUTPUT_CHUNK_BYTES) {
        yield Buffer.concat(out);
        out = [];
        outBytes = 0;
      }
    }
    if (out.length > 0) yield Buffer.concat(out);
    finished = true;
  }

  /** The new content's index from the old one, when it can be known without a read-through. */
  function newIndex(): ReadableSheetIndex | null {
    if (!finished || unknowable) return null;
    const end = regionEnd as { row: number; resumeAt: number } | null;
    // Rows after the rewritten ones keep their values; rows before them too.
    let rowCount: number;
    if (end !== null && sheet.rowCount > end.row) rowCount = sheet.rowCount;
    else if (lastValuedInRegion > 0) rowCount = lastValuedInRegion;
    else if (sheet.rowCount < checkpoint * every + 1) rowCount = sheet.rowCount;
    else return null;
    if (columnCount !== sheet.columnCount) return null;
    const offsets = checkpoints.offsets.slice(0, checkpoint);
    offsets.push(...regionOffsets);
    if (end !== null) {
      const delta = position - end.resumeAt;
      const after = Math.floor(end.row / every) + (end.row % every === 0 ? 0 : 1);
      for (let k = Math.max(after, offsets.length); k < checkpoints.offsets.length; k++) {
        offsets.push((checkpoints.offsets[k] as number) + delta);
      }
    }
    return {
      ...index,
      sheets: [{ ...sheet, rowCount, columnCount, formulaLikeCells }, ...index.sheets.slice(1)],
      checkpoints: [{ every, offsets }, ...index.checkpoints.slice(1)],
    };
  }

  async function added(): Promise<AsyncIterable<Uint8Array> | null> {
    if (editedRows.some((row) => row <= sheet.rowCount)) return null;
    const bytes = parts(true);
    let first: IteratorResult<WrittenPart>;
    try {
      first = await bytes.next();
    } catch (error) {
      if (error instanceof NotOnlyAdded) return null;
      throw error;
    }
    return (async function* () {
      if (first.done === true) return;
      yield first.value as Uint8Array;
      yield* bytes as AsyncGenerator<Uint8Array>;
    })();
  }

  /** The new content's bytes: its parts, with the spans read from the stored content. */
  async function* content(): AsyncGenerator<Uint8Array> {
    for await (const part of parts()) {
      if (part instanceof Uint8Array) yield part;
      else yield* await openFile(part);
    }
  }

  return { content: content(), index: newIndex, added, parts: () => parts() };
}

/** A value as a CSV cell's text: JavaScript's shortest round-trip number, `TRUE`/`FALSE`, "" for null. */
function cellText(value: CellValue): string {
  if (value === null) return "";
  return typeof value === "boolean" ? (value ? "TRUE" : "FALSE") : String(value);
}

/**
 * The text as a field: quoted, its quotes doubled, when it holds the delimiter, a quote,
 * CR or LF; and when it holds any other delimiter Cellar detects (`,` `;` tab `|`), so
 * that what is written never makes the file read with another delimiter.
 */
function quoted(text: string): string {
  return /[",;\t|\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Encodes text as the CSV's encoding has it; text it cannot hold is a validation error. */
export function encoderFor(encoding: NonNullable<ReadableSheetIndex["csv"]>["encoding"]): (text: string) => Uint8Array {
  switch (encoding) {
    case "utf-8":
      return (text) => Buffer.from(text, "utf8");
    case "utf-16le":
      return (text) => Buffer.from(text, "utf16le");
    case "utf-16be":
      return (text) => Buffer.from(text, "utf16le").swap16();
    case "windows-1252":
      return (text) => {
        const bytes = iconv.encode(text, "windows-1252");
        if (iconv.decode(bytes, "windows-1252") !== text) {
          throw invalidField(
            "values",
            `${JSON.stringify(text)} cannot be written in this CSV's encoding, Windows-1252`,
          );
        }
        return bytes;
      };
  }
}
