import {
  type CellValue,
  columnLetters,
  type FormulaValue,
  invalidField,
  type SheetWrites,
  SpreadsheetUnreadableError,
} from "@cellar/core";
import { xmlText } from "../convert/conversions.js";
import { MAX_XML_RUN } from "../limits.js";
import type { AddedStyles } from "./added-styles.js";

/** The rows a workbook's sheet has at most. */
const MAX_ROWS = 1_048_576;
/** The characters a workbook's cell holds at most (Excel's limit; longer text is refused). */
const MAX_CELL_CHARACTERS = 32_767;

/**
 * What is written into a cell: a value, or a formula (with its result), or only a new
 * result for the formula the cell holds.
 */
interface WrittenCell {
  value?: CellValue;
  /** A number format for a cell whose style shows General. */
  format?: string;
  formula?: string;
  result?: FormulaValue;
}

/** A written row: each written column (from 1) and what goes into it, later writes over earlier ones. */
type RowWrites = Map<number, WrittenCell>;

const ATTRIBUTE = /([\w:.-]+)\s*=\s*("[^"]*"|'[^']*')/g;
/** A row start tag's `r` (between `from` and `to` of `buffer`), read from its bytes; undefined when it has none, NaN when it is not a number. */
function rowNumberIn(buffer: Buffer, from: number, to: number): number | undefined {
  for (let at = from + 1; at < to; at++) {
    const byte = buffer[at] as number;
    if (byte === 0x22 || byte === 0x27) {
      // Past another attribute's quoted value.
      const end = buffer.indexOf(byte, at + 1);
      if (end === -1 || end > to) return undefined;
      at = end;
      continue;
    }
    if (byte !== 0x72 || !isSpace(buffer[at - 1] as number)) continue;
    let next = at + 1;
    while (next < to && isSpace(buffer[next] as number)) next++;
    if (buffer[next] !== 0x3d) continue;
    next++;
    while (next < to && isSpace(buffer[next] as number)) next++;
    const quote = buffer[next];
    if (quote !== 0x22 && quote !== 0x27) return Number.NaN;
    const end = buffer.indexOf(quote, next + 1);
    if (end === -1 || end > to) return Number.NaN;
    const digits = buffer.toString("latin1", next + 1, end);
    return /^\d+$/.test(digits) ? Number(digits) : Number.NaN;
  }
  return undefined;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** A start tag's attributes (`<c r="B2" s="3">`), values as written (entities left alone). */
function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(ATTRIBUTE)) attributes.set(match[1] as string, (match[2] as string).slice(1, -1));
  return attributes;
}

/** Where the start tag that begins at `from` ends (the index of its `>`), quotes honoured; -1 when not within `text`. */
function tagEnd(text: Buffer, from: number): number {
  let quote = 0;
  for (let at = from + 1; at < text.length; at++) {
    const byte = text[at] as number;
    if (quote !== 0) {
      if (byte === quote) quote = 0;
    } else if (byte === 0x22 || byte === 0x27) {
      quote = byte;
    } else if (byte === 0x3e) {
      return at;
    }
  }
  return -1;
}

/** A cell reference's column (`B2` → 2), or null. */
function columnOf(reference: string): number | null {
  const match = /^([A-Z]{1,3})\d+$/.exec(reference);
  if (match === null) return null;
  let column = 0;
  for (const letter of match[1] as string) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column;
}

/**
 * Rewrites one worksheet part as it streams, with `writes` applied: every row no write
 * touches is copied byte for byte (found by its start tag alone), an edited row is read
 * cell by cell and written again, each untouched cell as it was, each written one with
 * its style (`s`) kept and its value, type and formula replaced; new rows and cells go
 * where their numbers put them. The `dimension` is widened to the writes. A shared
 * formula other cells use cannot be written over (a validation error): they would lose it.
 *
 * `segment` rewrites one segment of the part (`deflate-segments.ts`) instead of all of it:
 * `start` for one that starts among the rows (after row `lastRow`, elements named with
 * `prefix`), `endsInRows` for one that ends before the rows do, where the new rows past
 * its last go; `dimension`, the bounds the part's dimension is widened to (all the
 * sheet's writes, not the segment's).
 */
export async function* rewriteSheet(
  source: AsyncIterable<Uint8Array>,
  { writes, results = [] }: Pick<SheetWrites, "writes" | "results">,
  part: string,
  styles?: AddedStyles,
  segment: {
    start?: { prefix: string; lastRow: number };
    endsInRows?: boolean;
    dimension?: RowsBounds;
  } = {},
): AsyncGenerator<Uint8Array> {
  const rows = new Map<number, RowWrites>();
  const rowOf = (row: number) => {
    let cells = rows.get(row);
    if (cells === undefined) {
      cells = new Map();
      rows.set(row, cells);
    }
    return cells;
  };
  const bounds = segment.dimension ?? boundsOf(writes);
  for (const { rectangle, values, formulas, formats } of writes) {
    for (const [r, line] of values.entries()) {
      const cells = rowOf(rectangle.firstRow + r);
      for (const [c, value] of line.entries()) {
        const formula = formulas?.[r]?.[c];
        const format = formats?.[r]?.[c];
        cells.set(
          rectangle.firstColumn + c,
          formula !== null && formula !== undefined
            ? { formula }
            : format !== null && format !== undefined
              ? { value, format }
              : { value },
        );
      }
    }
  }
  for (const { row, column, value } of results) {
    const cells = rowOf(row);
    const written = cells.get(column);
    if (written === undefined) cells.set(column, { result: value });
    else if (written.formula !== undefined) written.result = value;
  }
  const pendingRows = [...rows.keys()].sort((a, b) => a - b);
  let nextPending = 0;

  let prefix = segment.start?.prefix ?? "";
  let buffer: Buffer = Buffer.alloc(0);
  // Where the rewriter is: before the rows (copying, the dimension widened), among them, or past them (copying).
  let stage: "head" | "rows" | "tail" = segment.start === undefined ? "head" : "rows";
  let lastRow = segment.start?.lastRow ?? 0;
  const unreadable = (message: string) => new SpreadsheetUnreadableError(`${part} ${message}`);

  /** The new rows that come before row `before` (all of them for Infinity), as XML. */
  const newRowsBefore = (before: number): string => {
    let xml = "";
    while (nextPending < pendingRows.length && (pendingRows[nextPending] as number) < before) {
      const row = pendingRows[nextPending++] as number;
      const cells = rowCells(rows.get(row) as RowWrites, row, new Map(), prefix, styles);
      if (cells !== "") xml += `<${prefix}row r="${row}">${cells}</${prefix}row>`;
    }
    return xml;
  };

  /** Consumes what it can of `buffer`: returns the bytes to emit; leaves an incomplete tag or row in `buffer`. */
  function step(final: boolean): Buffer[] {
    const out: Buffer[] = [];
    for (;;) {
      if (stage === "tail") {
        out.push(buffer);
        buffer = Buffer.alloc(0);
        return out;
      }
      if (stage === "head") {
        // Up to the sheetData start tag, the dimension on the way widened. (Before the rows
        // the prefix of the sheet's elements is not known yet: any is taken.)
        const head = buffer.toString("latin1");
        const open = searchTag(head, "sheetData");
        const dimension = searchTag(head, "dimension");
        if (dimension !== -1 && (open === -1 || dimension < open)) {
          const end = tagEnd(buffer, dimension);
          if (end === -1) return keep(out, dimension, final);
          out.push(buffer.subarray(0, dimension));
          out.push(Buffer.from(widenedDimension(buffer.subarray(dimension, end + 1).toString("utf8"), bounds)));
          buffer = buffer.subarray(end + 1);
          continue;
        }
        if (open === -1) return keep(out, Math.max(0, buffer.length - 64), final);
        const end = tagEnd(buffer, open);
        if (end === -1) return keep(out, open, final);
        const tag = buffer.subarray(open, end + 1).toString("utf8");
        prefix = /^<([\w.-]+:)?sheetData/.exec(tag)?.[1] ?? "";
        if (tag.endsWith("/>")) {
          // No rows at all: the new ones are all there is.
          const rowsXml = newRowsBefore(Number.POSITIVE_INFINITY);
          out.push(buffer.subarray(0, open));
          out.push(Buffer.from(`<${prefix}sheetData>${rowsXml}</${prefix}sheetData>`));
          buffer = buffer.subarray(end + 1);
          stage = "tail";
          continue;
        }
        out.push(buffer.subarray(0, end + 1));
        buffer = buffer.subarray(end + 1);
        stage = "rows";
        continue;
      }
      // Among the rows. A row no write touches is passed over where it lies and copied
      // with its neighbours in one piece up to the next edited row: a slice, a string and
      // a buffer per row made an edit whose results fall on rows across the sheet cost
      // three times one that writes a single row.
      const closeTag = `</${prefix}sheetData>`;
      const close = buffer.indexOf(closeTag);
      let at = 0;
      let copied = 0;
      const emitUpTo = (end: number) => {
        if (end > copied) out.push(buffer.subarray(copied, end));
        copied = end;
      };
      for (;;) {
        // Straight to the next written row when its tag says its number (`<row r="N"`, as
        // Excel, LibreOffice and Cellar write it), over the rows before it unread (the
        // sheet's rows were found in order when it was read); else row by row.
        const target = pendingRows[nextPending];
        if (target !== undefined && target > lastRow + 1) {
          const jump = jumpTo(target, at, close);
          if (jump === "later" && !final) {
            // Not in what has come yet, and every whole row here is before it.
            const lastStart = lastRowStart(at);
            buffer = buffer.subarray(copied);
            return keep(out, Math.max(at, lastStart) - copied, final);
          }
          if (typeof jump === "number") {
            at = jump;
            lastRow = target - 1;
          }
        }
        const rowStart = findTag(buffer, `${prefix}row`, at);
        if (close !== -1 && (rowStart === -1 || close < rowStart)) {
          emitUpTo(close);
          const rest = newRowsBefore(Number.POSITIVE_INFINITY);
          if (rest !== "") out.push(Buffer.from(rest));
          buffer = buffer.subarray(close);
          stage = "tail";
          break;
        }
        if (rowStart === -1 && final && segment.endsInRows === true) {
          // A segment's end: after its last row, the new rows before the next segment's.
          emitUpTo(at);
          if (buffer.subarray(at).toString("latin1").trim() !== "")
            throw unreadable("has a segment that ends within a row.");
          const rest = newRowsBefore(Number.POSITIVE_INFINITY);
          if (rest !== "") out.push(Buffer.from(rest));
          buffer = Buffer.alloc(0);
          stage = "tail";
          break;
        }
        if (rowStart === -1) {
          // What follows the rows passed over may be the start of a row's tag: kept.
          buffer = buffer.subarray(copied);
          return keep(out, Math.max(at - copied, buffer.length - 64), final);
        }
        const startEnd = tagEnd(buffer, rowStart);
        if (startEnd === -1) {
          buffer = buffer.subarray(copied);
          return keep(out, rowStart - copied, final);
        }
        const selfClosing = buffer[startEnd - 1] === 0x2f;
        let rowEnd = startEnd + 1;
        if (!selfClosing) {
          const closeRow = buffer.indexOf(`</${prefix}row>`, startEnd);
          if (closeRow === -1) {
            buffer = buffer.subarray(copied);
            return keep(out, rowStart - copied, final);
          }
          rowEnd = closeRow + `</${prefix}row>`.length;
        }
        const given = rowNumberIn(buffer, rowStart, startEnd);
        const number = given ?? lastRow + 1;
        if (!Number.isInteger(number) || number <= lastRow || number > MAX_ROWS) {
          throw unreadable(`has rows out of order (row ${number}).`);
        }
        lastRow = number;
        at = rowEnd;
        const edits = rows.get(number);
        const before = (pendingRows[nextPending] ?? Number.POSITIVE_INFINITY) < number;
        if (edits === undefined && !before) continue;
        emitUpTo(rowStart);
        if (before) out.push(Buffer.from(newRowsBefore(number)));
        if (edits !== undefined) {
          nextPending++;
          out.push(
            Buffer.from(
              rewrittenRow(
                buffer.subarray(rowStart, rowEnd).toString("utf8"),
                // As the row is decoded: a character beyond ASCII in the tag must not shift where its cells begin.
                buffer.subarray(rowStart, startEnd + 1).toString("utf8"),
                selfClosing,
                number,
                edits,
              ),
            ),
          );
          copied = rowEnd;
        }
        if (nextPending >= pendingRows.length) {
          // Every write placed: the rest is copied as it is.
          emitUpTo(rowEnd);
          buffer = buffer.subarray(rowEnd);
          stage = "tail";
          break;
        }
      }
    }
  }

  /**
   * Where row `target`'s tag starts in `buffer` from `at`; "later" when it is not there
   * but the last whole row there is before it (its tag may come in the next chunk); null
   * when rows are to be read one by one (a row without its number, a new row between
   * others, the end of the rows in sight).
   */
  function jumpTo(target: number, at: number, close: number): number | "later" | null {
    const found = buffer.indexOf(`<${prefix}row r="${target}"`, at);
    if (found !== -1) return close === -1 || found < close ? found : null;
    if (close !== -1) return null;
    const lastStart = lastRowStart(at);
    if (lastStart <= at) return null;
    const end = tagEnd(buffer, lastStart);
    const number = end === -1 ? undefined : rowNumberIn(buffer, lastStart, end);
    return number !== undefined && number < target ? "later" : null;
  }

  /** Where the last row tag of `buffer` (from `at`) starts; `at` when there is none. */
  function lastRowStart(at: number): number {
    for (
      let start = buffer.lastIndexOf(`<${prefix}row`);
      start >= at;
      start = buffer.lastIndexOf(`<${prefix}row`, start - 1)
    ) {
      if (findTag(buffer, `${prefix}row`, start) === start) return start;
      if (start === 0) break;
    }
    return at;
  }

  /**
   * Emits `buffer` up to `from` and keeps the rest for the next chunk; at the end of the
   * part, an incomplete tag or row is a broken part.
   */
  function keep(out: Buffer[], from: number, final: boolean): Buffer[] {
    if (final && stage !== "tail") throw unreadable("ends before its rows do.");
    if (buffer.length - from > 16 * MAX_XML_RUN) throw unreadable(`has a row longer than ${16 * MAX_XML_RUN} bytes.`);
    out.push(buffer.subarray(0, from));
    buffer = buffer.subarray(from);
    return out;
  }

  /** An edited row: its start tag (without `spans`, which no longer says the truth), its cells merged with the writes. */
  function rewrittenRow(xml: string, startTag: string, selfClosing: boolean, number: number, edits: RowWrites): string {
    const open = startTag.replace(/\sspans\s*=\s*("[^"]*"|'[^']*')/, "").replace(/\s*\/>$/, ">");
    const existing = new Map<number, string>();
    let column = 0;
    if (!selfClosing) {
      const inner = xml.slice(startTag.length, xml.lastIndexOf("<"));
      const cellTag = patternsFor(prefix).cellTag;
      cellTag.lastIndex = 0;
      const others: string[] = [];
      let at = 0;
      for (let match = cellTag.exec(inner); match !== null; match = cellTag.exec(inner)) {
        const start = match.index;
        if (start > at) others.push(inner.slice(at, start));
        const startTagText = openingTag(inner, start);
        if (startTagText === "") throw unreadable(`has a broken cell in row ${number}.`);
        let cellEnd: number;
        if (startTagText.endsWith("/>")) cellEnd = start + startTagText.length;
        else {
          const closing = inner.indexOf(`</${prefix}c>`, start + startTagText.length);
          if (closing === -1) throw unreadable(`has a cell without its end in row ${number}.`);
          cellEnd = closing + `</${prefix}c>`.length;
        }
        const cellAttributes = attributesOf(startTagText);
        const reference = cellAttributes.get("r");
        const cellColumn = reference === undefined ? column + 1 : columnOf(reference);
        if (cellColumn === null || cellColumn <= column) throw unreadable(`has cells out of order in row ${number}.`);
        column = cellColumn;
        existing.set(cellColumn, inner.slice(start, cellEnd));
        at = cellEnd;
        cellTag.lastIndex = cellEnd;
      }
      // Anything but cells in a row (an extension list) goes after them, as the schema has it.
      others.push(inner.slice(at));
      const rest = others.join("").trim();
      return `${open}${rowCells(edits, number, existing, prefix, styles)}${rest}</${prefix}row>`;
    }
    return `${open}${rowCells(edits, number, existing, prefix, styles)}</${prefix}row>`;
  }

  const asBuffer = (chunk: Uint8Array): Buffer => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  // Chunks are joined to what is left only once they add up to as much as it (and 64 KiB):
  // a long row, joined and searched again at every small chunk, made the scan quadratic.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of source) {
    pending.push(asBuffer(chunk));
    pendingBytes += chunk.length;
    if (pendingBytes < Math.max(64 * 1024, buffer.length)) continue;
    buffer = Buffer.concat([buffer, ...pending]);
    pending = [];
    pendingBytes = 0;
    const out = step(false);
    if (out.length > 0) yield Buffer.concat(out);
  }
  buffer = Buffer.concat([buffer, ...pending]);
  const out = step(true);
  if (out.length > 0) yield Buffer.concat(out);
  if (nextPending < pendingRows.length) throw unreadable("has no rows part (sheetData) to write into.");
}

/** The start tag that begins at `start` of `text`, quotes honoured. */
function openingTag(text: string, start: number): string {
  let quote = "";
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at] as string;
    if (quote !== "") {
      if (char === quote) quote = "";
    } else if (char === '"' || char === "'") {
      quote = char;
    } else if (char === ">") {
      return text.slice(start, at + 1);
    }
  }
  return "";
}

/** Where the first start tag of `name`, with any prefix, is in `text`; -1 when there is none. */
function searchTag(text: string, name: string): number {
  return new RegExp(`<([\\w.-]+:)?${name}(?=[\\s/>])`).exec(text)?.index ?? -1;
}

/** The next start tag `<name` (with its prefix, if any) followed by a space, `>` or `/`. */
function findTag(buffer: Buffer, name: string, from: number): number {
  const needle = `<${name}`;
  for (let at = buffer.indexOf(needle, from); at !== -1; at = buffer.indexOf(needle, at + 1)) {
    const next = buffer[at + needle.length];
    if (next === undefined) return at;
    if (next === 0x20 || next === 0x3e || next === 0x2f || next === 0x09 || next === 0x0a || next === 0x0d) return at;
  }
  return -1;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The patterns an edited row is read with, for a sheet's element prefix: made once, not once per row. */
const patternsByPrefix = new Map<string, { cellTag: RegExp; cellWithoutReference: RegExp; formulaStart: RegExp }>();
function patternsFor(prefix: string) {
  let patterns = patternsByPrefix.get(prefix);
  if (patterns === undefined) {
    const escaped = escapeRegExp(prefix);
    patterns = {
      cellTag: new RegExp(`<${escaped}c(?=[\\s/>])`, "g"),
      cellWithoutReference: new RegExp(`^<${escaped}c(?![^>]*\\sr\\s*=)`),
      formulaStart: new RegExp(`<${escaped}f(?=[\\s/>])[^>]*>`),
    };
    // Prefixes are few (none, `x:`…); a hostile workbook's odd ones do not pile up.
    if (patternsByPrefix.size < 16) patternsByPrefix.set(prefix, patterns);
  }
  return patterns;
}

/** The cells of a row, written ones merged into `existing` (column → its XML as it was), in column order. */
function rowCells(
  edits: RowWrites,
  row: number,
  existing: Map<number, string>,
  prefix: string,
  styles: AddedStyles | undefined,
): string {
  const columns = [...new Set([...existing.keys(), ...edits.keys()])].sort((a, b) => a - b);
  let xml = "";
  for (const column of columns) {
    const old = existing.get(column);
    if (!edits.has(column)) {
      // A cell without `r` is the one after the cell before it: once a cell before it is
      // dropped (emptied) or added, only its reference keeps it in its column.
      xml += (old as string).replace(
        patternsFor(prefix).cellWithoutReference,
        `<${prefix}c r="${columnLetters(column)}${row}"`,
      );
      continue;
    }
    xml += writtenCell(edits.get(column) as WrittenCell, `${columnLetters(column)}${row}`, old, prefix, styles);
  }
  return xml;
}

/** A cell's `<f>` element, whole (`<f …/>` or `<f …>…</f>`), or null when it holds no formula. */
function formulaElement(cell: string, prefix: string): string | null {
  const start = patternsFor(prefix).formulaStart.exec(cell);
  if (start === null) return null;
  if (start[0].endsWith("/>")) return start[0];
  const close = cell.indexOf(`</${prefix}f>`, start.index);
  return close === -1 ? null : cell.slice(start.index, close + `</${prefix}f>`.length);
}

/** A formula's result as the cell stores it: its type attribute and its `<v>`; empty for no result. */
function storedResult(value: FormulaValue | undefined, prefix: string): { type: string; v: string } {
  const v = (text: string) => `<${prefix}v>${text}</${prefix}v>`;
  if (value === undefined || value === null) return { type: "", v: "" };
  if (typeof value === "number") return { type: "", v: v(String(value)) };
  if (typeof value === "boolean") return { type: ' t="b"', v: v(value ? "1" : "0") };
  if (typeof value === "string") return { type: ' t="str"', v: v(xmlText(value.slice(0, MAX_CELL_CHARACTERS))) };
  return { type: ' t="e"', v: v(xmlText(value.error)) };
}

/**
 * A written cell: its style kept from the cell it replaces. A value as given (a string
 * is an inline string, never a formula; null leaves a styled cell empty and drops an
 * unstyled one); a formula with its result; a result alone with the cell's own formula
 * (shared or not) kept.
 */
function writtenCell(
  written: WrittenCell,
  reference: string,
  old: string | undefined,
  prefix: string,
  styles: AddedStyles | undefined,
): string {
  const oldAttributes = old === undefined ? new Map<string, string>() : attributesOf(openingTag(old, 0));
  const oldStyle = oldAttributes.get("s");
  const styleNumber =
    written.format !== undefined && styles !== undefined
      ? styles.styleFor(Number(oldStyle ?? 0), written.format)
      : oldStyle === undefined
        ? undefined
        : Number(oldStyle);
  const style = styleNumber === undefined || (styleNumber === 0 && oldStyle === undefined) ? "" : ` s="${styleNumber}"`;
  const c = `${prefix}c`;
  if (written.formula === undefined && !("value" in written)) {
    // A new result for the formula the cell holds.
    const element = old === undefined ? null : formulaElement(old, prefix);
    if (element === null) return old ?? "";
    const { type, v } = storedResult(written.result, prefix);
    return `<${c} r="${reference}"${style}${type}>${element}${v}</${c}>`;
  }
  const formula = old === undefined ? null : /<([\w.-]+:)?f(?=[\s/>])[^>]*>/.exec(old);
  const formulaAttributes = formula === null ? null : attributesOf(formula[0]);
  if (formulaAttributes !== null && formulaAttributes.get("t") === "shared" && formulaAttributes.has("ref")) {
    throw invalidField(
      "range",
      `${reference} holds a shared formula other cells use; Cellar cannot write over it without losing theirs`,
    );
  }
  if (written.formula !== undefined) {
    const { type, v } = storedResult(written.result, prefix);
    return `<${c} r="${reference}"${style}${type}><${prefix}f>${xmlText(written.formula)}</${prefix}f>${v}</${c}>`;
  }
  const value = written.value ?? null;
  if (typeof value === "string" && value.length > MAX_CELL_CHARACTERS) {
    throw invalidField(
      "values",
      `${reference} would hold ${value.length} characters; a workbook's cell holds at most ${MAX_CELL_CHARACTERS}`,
    );
  }
  if (value === null || value === "") return style === "" ? "" : `<${c} r="${reference}"${style}/>`;
  if (typeof value === "number")
    return `<${c} r="${reference}"${style}><${prefix}v>${String(value)}</${prefix}v></${c}>`;
  if (typeof value === "boolean") {
    return `<${c} r="${reference}"${style} t="b"><${prefix}v>${value ? 1 : 0}</${prefix}v></${c}>`;
  }
  return `<${c} r="${reference}"${style} t="inlineStr"><${prefix}is><${prefix}t xml:space="preserve">${xmlText(value)}</${prefix}t></${prefix}is></${c}>`;
}

/** The rows and columns some writes reach, from the first to the last. */
export interface RowsBounds {
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/** The bounds of `writes` (a last row of 0 when there are none); a write past the last row a sheet has is refused. */
export function boundsOf(writes: SheetWrites["writes"]): RowsBounds {
  let bounds = { firstRow: Number.POSITIVE_INFINITY, lastRow: 0, firstColumn: Number.POSITIVE_INFINITY, lastColumn: 0 };
  for (const { rectangle } of writes) {
    if (rectangle.lastRow > MAX_ROWS) throw invalidField("range", `reaches past row ${MAX_ROWS}, the last a sheet has`);
    bounds = {
      firstRow: Math.min(bounds.firstRow, rectangle.firstRow),
      lastRow: Math.max(bounds.lastRow, rectangle.lastRow),
      firstColumn: Math.min(bounds.firstColumn, rectangle.firstColumn),
      lastColumn: Math.max(bounds.lastColumn, rectangle.lastColumn),
    };
  }
  return bounds;
}

/** A `<dimension ref="…"/>` tag widened to cover `bounds` too. */
function widenedDimension(tag: string, bounds: RowsBounds): string {
  const match = /\bref\s*=\s*(["'])([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?\1/.exec(tag);
  if (match === null || bounds.lastRow === 0) return tag;
  const firstColumn = columnOf(`${match[2]}1`) ?? 1;
  const firstRow = Number(match[3]);
  const lastColumn = match[4] === undefined ? firstColumn : (columnOf(`${match[4]}1`) ?? firstColumn);
  const lastRow = match[5] === undefined ? firstRow : Number(match[5]);
  const reference = `${columnLetters(Math.min(firstColumn, bounds.firstColumn))}${Math.min(firstRow, bounds.firstRow)}:${columnLetters(
    Math.max(lastColumn, bounds.lastColumn),
  )}${Math.max(lastRow, bounds.lastRow)}`;
  return tag.replace(match[0], `ref="${reference}"`);
}
