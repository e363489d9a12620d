import { Readable } from "node:stream";
import { type OpenBytes, type ReadableSheetIndex, SpreadsheetUnreadableError } from "@cellar/core";
import yazl from "yazl";
import { looksLikeFormula } from "../csv/csv-fields.js";
import { csvRows } from "../csv/csv-reader.js";
import { LINE, storedLines } from "../xlsx/stored-rows.js";

/**
 * What a spreadsheet would run as a formula, made inert for CSV output: a leading `'`,
 * which spreadsheets take as "this is text" and hide (OWASP's advice for CSV injection).
 */
export function neutralised(text: string): string {
  return looksLikeFormula(text) ? `'${text}` : text;
}

/**
 * One sheet of a workbook as CSV (RFC 4180: quotes where needed, CR LF between records,
 * UTF-8), every row from 1 to the sheet's extent, each as wide as the sheet; text a
 * spreadsheet would run as a formula neutralised.
 *
 * The rows blob holds each row as its CSV record already (stored-rows.ts): converting
 * copies their bytes, padded to the sheet's width, into batches of `BATCH_BYTES`.
 * (Through csv-stringify, a sheet of 250,000 rows × 10 converted at 4–6 MiB/s of workbook
 * against a target of 30; through a string a row, it was the peak of a server's memory.)
 */
export async function* workbookSheetToCsv(
  index: ReadableSheetIndex,
  sheet: number,
  openRows: OpenBytes,
): AsyncGenerator<Uint8Array> {
  const summary = index.sheets[sheet];
  if (summary === undefined) throw new SpreadsheetUnreadableError("no such sheet.");
  const width = summary.columnCount;
  // An empty record; its tail pads a record to the sheet's width and ends it.
  const emptyRecord = Buffer.from(`${",".repeat(Math.max(0, width - 1))}\r\n`);
  const padding = (columns: number) => Math.min(Math.max(0, columns - 1), emptyRecord.length - 2);
  const out = new Batches();
  let next = 1;
  for await (const { bytes, lines } of storedLines(index, sheet, 1, openRows)) {
    for (let at = 0; at < lines.length; at += LINE.size) {
      const row = lines[at + LINE.row] as number;
      // A letter a column, up to the row's last value.
      const columns = (lines[at + LINE.formats] as number) - (lines[at + LINE.types] as number) - 1;
      for (; next < row; next++) out.put(emptyRecord, 0, emptyRecord.length);
      out.put(bytes, lines[at + LINE.record] as number, lines[at + LINE.end] as number);
      out.put(emptyRecord, padding(columns), emptyRecord.length);
      next = row + 1;
      if (out.filled.length > 0) yield* out.full();
    }
  }
  for (; next <= summary.rowCount; next++) {
    out.put(emptyRecord, 0, emptyRecord.length);
    if (out.filled.length > 0) yield* out.full();
  }
  yield* out.rest();
}

const BATCH_BYTES = 64 * 1024;

/** Bytes copied into buffers of `BATCH_BYTES`, given out as each fills. */
class Batches {
  private buffer = Buffer.allocUnsafe(BATCH_BYTES);
  private used = 0;
  readonly filled: Buffer[] = [];

  put(source: Uint8Array, start: number, end: number): void {
    for (let from = start; from < end; ) {
      const copied = Math.min(end - from, BATCH_BYTES - this.used);
      this.buffer.set(source.subarray(from, from + copied), this.used);
      this.used += copied;
      from += copied;
      if (this.used === BATCH_BYTES) {
        this.filled.push(this.buffer);
        this.buffer = Buffer.allocUnsafe(BATCH_BYTES);
        this.used = 0;
      }
    }
  }

  /** The buffers filled since last asked. */
  full(): Buffer[] {
    return this.filled.splice(0);
  }

  /** Every buffer filled, and the one being filled. */
  rest(): Buffer[] {
    return this.used === 0 ? this.full() : [...this.full(), this.buffer.subarray(0, this.used)];
  }
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;
const ROOT_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
const WORKBOOK = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`;
const WORKBOOK_RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;
// Style 1 marks text a spreadsheet must never run as a formula (quotePrefix): the cell
// keeps its text as it was, and Excel shows it as typed after an apostrophe.
const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0" quotePrefix="1"/></cellXfs></styleSheet>`;

/**
 * Text as an XML string of a workbook (ST_Xstring): markup escaped, characters XML cannot
 * hold written `_xHHHH_`, and a literal `_xHHHH_` protected as `_x005F_xHHHH_`. A CR is
 * written `_x000D_` too: an XML reader turns a CR LF in text into LF.
 */
export function xmlText(text: string): string {
  return text
    .replace(/_(x[0-9A-Fa-f]{4}_)/g, "_x005F_$1")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 cannot hold are what this finds.
      /[\u0000-\u0008\u000B\u000C\u000D\u000E-\u001F\uFFFE\uFFFF]/g,
      (c) => `_x${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}_`,
    )
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

function columnLetters(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/**
 * A CSV as a workbook of one sheet, `Sheet1`: every cell an inline string, as the CSV
 * holds only text (so the workbook's cells read back equal the CSV's); text that looks
 * like a formula is marked as text to keep (quotePrefix). Streamed: the sheet's XML is
 * deflated into the ZIP as the CSV is read.
 */
export function csvToWorkbook(index: ReadableSheetIndex, size: number, openFile: OpenBytes): AsyncIterable<Uint8Array> {
  async function* sheetXml(): AsyncGenerator<string> {
    yield '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>';
    let batch: string[] = [];
    for await (const [row, cells] of csvRows(index, size, openFile)) {
      const xml: string[] = [];
      cells.forEach((text, i) => {
        if (text === null) return;
        const style = looksLikeFormula(text) ? ' s="1"' : "";
        xml.push(
          `<c r="${columnLetters(i + 1)}${row}" t="inlineStr"${style}><is><t xml:space="preserve">${xmlText(text)}</t></is></c>`,
        );
      });
      if (xml.length > 0) batch.push(`<row r="${row}">${xml.join("")}</row>`);
      if (batch.length >= 256) {
        yield batch.join("");
        batch = [];
      }
    }
    yield `${batch.join("")}</sheetData></worksheet>`;
  }
  const zip = new yazl.ZipFile();
  const fixed = new Date(Date.UTC(2026, 0, 1));
  for (const [name, content] of [
    ["[Content_Types].xml", CONTENT_TYPES],
    ["_rels/.rels", ROOT_RELS],
    ["xl/workbook.xml", WORKBOOK],
    ["xl/_rels/workbook.xml.rels", WORKBOOK_RELS],
    ["xl/styles.xml", STYLES],
  ] as const) {
    zip.addBuffer(Buffer.from(content), name, { mtime: fixed });
  }
  zip.addReadStreamLazy("xl/worksheets/sheet1.xml", { mtime: fixed }, (callback) =>
    callback(null, Readable.from(sheetXml())),
  );
  zip.end();
  return zip.outputStream as unknown as AsyncIterable<Uint8Array>;
}
