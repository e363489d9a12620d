import { invalidField, type OpenBytes, type ReadableSheetIndex, type StructureChange } from "@cellar/core";
import { CSV_LIMITS } from "../limits.js";
import { fileBytes } from "./csv-fields.js";
import { limitsFor, scanning, wideness } from "./csv-reader.js";
import { type CsvRecord, CsvRecordScanner } from "./csv-records.js";
import { encoderFor } from "./csv-writer.js";

/** Bytes gathered before they go out. */
const OUTPUT_CHUNK_BYTES = 256 * 1024;

/** A record as the file holds it: each field's bytes (quotes included), and its line end (none for a last record without one). */
interface RawRecord {
  readonly fields: Uint8Array[];
  readonly terminator: Uint8Array;
}

/** Turns each record into the records a change makes of it, counting rows as they go by. */
type RecordChange = (record: RawRecord) => RawRecord[];

/**
 * A CSV with rows or columns inserted or deleted, in the order given (decisions §9),
 * streamed: every field no change touches keeps its bytes (quotes, encoding and all), the
 * delimiter, the byte-order mark and the line ends stay the file's; a new row is an empty
 * record ended as the file's records are, a new column an empty field in every record that
 * reaches it. Rows inserted past the last record, or columns past a record's last field,
 * change nothing: there are no cells there to move.
 */
export async function* restructureCsv(input: {
  index: ReadableSheetIndex;
  size: number;
  openFile: OpenBytes;
  changes: readonly StructureChange[];
}): AsyncGenerator<Uint8Array> {
  const { index, size, openFile } = input;
  const csv = index.csv;
  if (csv === undefined) throw new Error("not a CSV's index");
  const wide = wideness(csv.encoding);
  const unitBytes = wide === null ? 1 : 2;
  const encode = encoderFor(csv.encoding);
  const delimiter = encode(csv.delimiter);
  const bomBytes = csv.bom ? (csv.encoding === "utf-8" ? 3 : 2) : 0;
  let lineEnd: Uint8Array | null = null;
  const newLine = () => lineEnd ?? encode("\r\n");

  const toFileBytes = (units: ArrayLike<number>, from: number, to: number) => fileBytes(units, from, to, wide);

  const steps: RecordChange[] = input.changes.map((change): RecordChange => {
    switch (change.kind) {
      case "insert_rows": {
        let row = 0;
        return (record) => {
          row++;
          if (row !== change.at) return [record];
          const empty = Array.from({ length: change.count }, () => ({ fields: [], terminator: newLine() }));
          return [...empty, record];
        };
      }
      case "delete_rows": {
        let row = 0;
        return (record) => {
          row++;
          return row >= change.at && row < change.at + change.count ? [] : [record];
        };
      }
      case "insert_columns":
        return (record) => {
          if (record.fields.length < change.at) return [record];
          const fields = [...record.fields];
          fields.splice(change.at - 1, 0, ...Array.from({ length: change.count }, () => new Uint8Array(0)));
          if (fields.length > CSV_LIMITS.maxColumns) {
            throw invalidField(
              "operations",
              `would push fields past column ${CSV_LIMITS.maxColumns}, the last a CSV may have`,
            );
          }
          return [{ fields, terminator: record.terminator }];
        };
      case "delete_columns":
        return (record) => {
          if (record.fields.length < change.at) return [record];
          const fields = [...record.fields];
          fields.splice(change.at - 1, change.count);
          return [{ fields, terminator: record.terminator }];
        };
      default:
        throw invalidField("operations", "a CSV's rows and columns change, not its sheets");
    }
  });

  let out: Uint8Array[] = [];
  let outBytes = 0;
  const emit = (record: RawRecord) => {
    for (const [at, field] of record.fields.entries()) {
      if (at > 0) out.push(delimiter);
      out.push(field);
      outBytes += field.length + (at > 0 ? delimiter.length : 0);
    }
    out.push(record.terminator);
    outBytes += record.terminator.length;
  };
  const scanner = new CsvRecordScanner(
    csv.delimiter.charCodeAt(0),
    {
      record(record: CsvRecord) {
        const recordUnits = record.byteLength / unitBytes;
        const terminatorStart = record.ends[record.fieldCount - 1] as number;
        const terminator = toFileBytes(record.units, terminatorStart, recordUnits);
        if (lineEnd === null && terminator.length > 0) lineEnd = terminator;
        const fields: Uint8Array[] = [];
        for (let field = 0; field < record.fieldCount; field++) {
          fields.push(toFileBytes(record.units, record.starts[field] as number, record.ends[field] as number));
        }
        let records: RawRecord[] = [{ fields, terminator }];
        for (const step of steps) records = records.flatMap(step);
        for (const each of records) emit(each);
      },
    },
    limitsFor(unitBytes),
    { startOffset: bomBytes, unitBytes },
  );
  if (bomBytes > 0) yield* await openFile({ start: 0, end: bomBytes - 1 });
  if (size > bomBytes) {
    for await (const _ of scanning(await openFile({ start: bomBytes, end: size - 1 }), scanner, wide, 0)) {
      if (outBytes >= OUTPUT_CHUNK_BYTES) {
        yield Buffer.concat(out);
        out = [];
        outBytes = 0;
      }
    }
  }
  if (out.length > 0) yield Buffer.concat(out);
}
