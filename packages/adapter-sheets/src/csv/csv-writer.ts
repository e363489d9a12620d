import {
  type CellValue,
  type CellWrite,
  invalidField,
  type OpenBytes,
  type ReadableSheetIndex,
  type WrittenContent,
} from "@cellar/core";
import iconv from "iconv-lite";
import { limitsFor, scanning, wideness } from "./csv-reader.js";
import { type CsvRecord, CsvRecordScanner } from "./csv-records.js";

const CRLF = "\r\n";

/** Ends the scan once the last edited row has been written out. */
class EditsDone extends Error {
  constructor(readonly resumeAt: number) {
    super("edits done");
  }
}

/**
 * A CSV with cells written into it, streamed: the bytes before the checkpoint at or before
 * the first edited row are copied as they are, the records from there to the last edited
 * row are read and written again (an untouched record byte for byte, an edited one field
 * by field, its other fields' bytes kept), and the bytes after them copied as they are.
 * Rows past the end are added with the file's line ending. The encoding, byte-order
 * mark and delimiter stay; text the encoding cannot hold is refused before anything is
 * written.
 */
export function writeCsv(input: {
  index: ReadableSheetIndex;
  size: number;
  openFile: OpenBytes;
  writes: readonly CellWrite[];
}): WrittenContent {
  const { index, size, openFile } = input;
  const dialect = index.csv;
  const checkpoints = index.checkpoints[0];
  if (dialect === undefined || checkpoints === undefined) throw new Error("not a CSV's index");
  const csv = dialect;
  const every = checkpoints.every;
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const encode = encoderFor(csv.encoding);
  const delimiter = encode(csv.delimiter);

  // Every edited row's fields (by column, from 1; a later write over an earlier one), encoded now: a value the encoding cannot hold is refused
  // before a byte is written.
  const rows = new Map<number, Map<number, Uint8Array>>();
  for (const write of input.writes) {
    for (let r = 0; r < write.values.length; r++) {
      const row = write.rectangle.firstRow + r;
      const edits = rows.get(row) ?? new Map<number, Uint8Array>();
      rows.set(row, edits);
      const values = write.values[r] as readonly CellValue[];
      for (let c = 0; c < values.length; c++) {
        edits.set(write.rectangle.firstColumn + c, encode(fieldText(values[c] ?? null, csv.delimiter)));
      }
    }
  }
  const editedRows = [...rows.keys()].sort((a, b) => a - b);
  const firstRow = editedRows[0] ?? 1;
  const lastRow = editedRows[editedRows.length - 1] ?? 0;
  const checkpoint = Math.max(
    0,
    Math.min(Math.floor((firstRow - 1) / checkpoints.every), checkpoints.offsets.length - 1),
  );
  const bomBytes = csv.bom ? (csv.encoding === "utf-8" ? 3 : 2) : 0;
  const start = checkpoints.offsets[checkpoint] ?? bomBytes;

  const toFileBytes = (units: ArrayLike<number>, from: number, to: number): Uint8Array => {
    if (wide === null) {
      return units instanceof Uint8Array
        ? units.subarray(from, to)
        : Uint8Array.from({ length: to - from }, (_, k) => units[from + k] as number);
    }
    const bytes = new Uint8Array((to - from) * 2);
    for (let k = 0; k < to - from; k++) {
      const unit = units[from + k] as number;
      bytes[2 * k] = wide === "le" ? unit & 0xff : unit >> 8;
      bytes[2 * k + 1] = wide === "le" ? unit >> 8 : unit & 0xff;
    }
    return bytes;
  };

  async function* content(): AsyncGenerator<Uint8Array> {
    if (start > 0) yield* await openFile({ start: 0, end: start - 1 });
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
          const recordUnits = record.byteLength / unitBytes;
          const lastField = record.fieldCount - 1;
          const terminatorStart = record.ends[lastField] as number;
          ended = terminatorStart < recordUnits;
          if (ended && lineEnd === null) lineEnd = toFileBytes(record.units, terminatorStart, recordUnits);
          const edits = rows.get(row);
          if (edits === undefined) {
            out.push(toFileBytes(record.units, 0, recordUnits));
          } else {
            const width = Math.max(record.fieldCount, ...edits.keys());
            for (let field = 0; field < width; field++) {
              if (field > 0) out.push(delimiter);
              const edit = edits.get(field + 1);
              if (edit !== undefined) out.push(edit);
              else if (field < record.fieldCount) {
                out.push(toFileBytes(record.units, record.starts[field] as number, record.ends[field] as number));
              }
            }
            out.push(toFileBytes(record.units, terminatorStart, recordUnits));
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
          yield* out;
          out = [];
        }
      } catch (error) {
        if (!(error instanceof EditsDone)) throw error;
        resumeAt = error.resumeAt;
      }
    }
    yield* out;
    if (resumeAt !== null) {
      if (resumeAt < size) yield* await openFile({ start: resumeAt, end: size - 1 });
      return;
    }
    // Rows past the file's last record.
    const newLine = lineEnd ?? encode(CRLF);
    if (!ended) yield newLine;
    for (row++; row <= lastRow; row++) {
      const edits = rows.get(row);
      if (edits !== undefined) {
        const width = Math.max(...edits.keys());
        for (let field = 1; field <= width; field++) {
          if (field > 1) yield delimiter;
          const edit = edits.get(field);
          if (edit !== undefined) yield edit;
        }
      }
      yield newLine;
    }
  }

  return { content: content(), index: () => null };
}

/** A value as a CSV field: JavaScript's shortest round-trip number, `TRUE`/`FALSE`, quoted when it must be. */
export function fieldText(value: CellValue, delimiter: string): string {
  if (value === null) return "";
  const text = typeof value === "boolean" ? (value ? "TRUE" : "FALSE") : String(value);
  const mustQuote = text.includes(delimiter) || /["\r\n]/.test(text);
  return mustQuote ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Encodes text as the CSV's encoding has it; text it cannot hold is a validation error. */
function encoderFor(encoding: NonNullable<ReadableSheetIndex["csv"]>["encoding"]): (text: string) => Uint8Array {
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
