import { Readable } from "node:stream";
import { crc32, createDeflateRaw, deflateRawSync } from "node:zlib";
import {
  type CellWrite,
  type FormulaResult,
  type OpenBytes,
  type ReadableSheetIndex,
  type SheetSummary,
  type SheetWrites,
  SpreadsheetUnreadableError,
  type WrittenContent,
  type WrittenPart,
} from "@cellar/core";
import { Zip, type ZipInputFile } from "fflate";
import { AddedStyles } from "./added-styles.js";
import {
  decodeSegmentTable,
  deflateSegment,
  encodeSegmentTable,
  FLUSH_MARK,
  inflateSegment,
  MAX_SEGMENTS,
  SEGMENT_TABLE_ID,
  type Segment,
  segmentsAtRows,
  wholeOf,
} from "./deflate-segments.js";
import { boundsOf, rewriteSheet } from "./sheet-rewriter.js";
import { joinedSpans, type NewPart, SplicedArchive } from "./spliced-archive.js";
import { readSheetList, relationshipsPartOf } from "./workbook-parts.js";
import {
  type LaidOutEntry,
  openZipArchive,
  type StoredPart,
  type ZipArchive,
  ZLIB_CHUNK_BYTES,
} from "./zip-archive.js";

/** Small parts read whole to be changed (the workbook, its relationships, the content types): at most this many bytes. */
const MAX_SMALL_PART_BYTES = 16 * 1024 ** 2;

export async function textOf(zip: ZipArchive, name: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of await zip.open(name)) {
    size += chunk.length;
    if (size > MAX_SMALL_PART_BYTES)
      throw new SpreadsheetUnreadableError(`the part ${name} is larger than Cellar changes.`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The workbook part marked for recalculation on open: its `calcPr` gets `fullCalcOnLoad="1"`, or one is added. */
export function markedForRecalculation(xml: string): string {
  const calcPr = /<([\w.-]+:)?calcPr\b([^>]*?)(\/?)>/.exec(xml);
  if (calcPr !== null) {
    const attributes = (calcPr[2] as string).replace(/\sfullCalcOnLoad\s*=\s*("[^"]*"|'[^']*')/, "");
    return xml.replace(calcPr[0], `<${calcPr[1] ?? ""}calcPr${attributes} fullCalcOnLoad="1"${calcPr[3]}>`);
  }
  const prefix = /<([\w.-]+:)?workbook\b/.exec(xml)?.[1] ?? "";
  // calcPr comes after definedNames and before what the schema lists after it.
  const after = new RegExp(
    `<${prefix}(oleSize|customWorkbookViews|pivotCaches|smartTagPr|smartTagTypes|webPublishing|fileRecoveryPr|webPublishObjects|extLst)\\b|</${prefix}workbook>`,
  ).exec(xml);
  if (after === null) return xml;
  return `${xml.slice(0, after.index)}<${prefix}calcPr fullCalcOnLoad="1"/>${xml.slice(after.index)}`;
}

/** Relationships without those of `type` (ending with it). */
export function withoutRelationships(xml: string, type: string): string {
  return xml.replace(/<([\w.-]+:)?Relationship\b[^>]*?\/>/g, (tag) =>
    new RegExp(`Type\\s*=\\s*["'][^"']*/${type}["']`).test(tag) ? "" : tag,
  );
}

/** Content types without the override for `part`. */
export function withoutOverride(xml: string, part: string): string {
  return xml.replace(/<([\w.-]+:)?Override\b[^>]*?\/>/g, (tag) =>
    new RegExp(`PartName\\s*=\\s*["']/?${part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']`, "i").test(tag) ? "" : tag,
  );
}

/** What an edit of a workbook changes besides its sheets: found in its parts before any is written. */
interface WorkbookEdit {
  readonly writesByPart: ReadonlyMap<string, SheetWrites>;
  /** Lower-case names of the calculation chain, the styles when a write adds number formats, the workbook part, its relationships. */
  readonly calcChain: string | undefined;
  readonly stylesPart: string | undefined;
  readonly stylesName: { readonly name: string; readonly modified: Date } | undefined;
  readonly styles: AddedStyles | undefined;
  readonly officeDocument: string;
  readonly workbookRels: string;
}

async function workbookEdit(zip: ZipArchive, sheetsWritten: readonly SheetWrites[]): Promise<WorkbookEdit> {
  const { officeDocument, related, sheets } = await readSheetList(zip);
  const writesByPart = new Map<string, SheetWrites>();
  for (const sheetWrites of sheetsWritten) {
    const target = sheets[sheetWrites.sheet];
    if (target === undefined) throw new SpreadsheetUnreadableError(`it has no sheet ${sheetWrites.sheet + 1}.`);
    writesByPart.set(target.part.toLowerCase(), sheetWrites);
  }
  const calcChain = [...related.values()].find((r) => r.type.endsWith("/calcChain"))?.part.toLowerCase();
  // A date typed into a cell without a number format gets a style that shows it as a
  // date: the styles part is written after the sheets, once they have said which.
  const formatted = sheetsWritten.some((sheet) => sheet.writes.some((write) => write.formats !== undefined));
  const stylesPart = formatted
    ? [...related.values()].find((r) => r.type.endsWith("/styles"))?.part.toLowerCase()
    : undefined;
  const stylesName =
    stylesPart === undefined ? undefined : zip.entries().find((e) => e.name.toLowerCase() === stylesPart);
  const styles = stylesName === undefined ? undefined : new AddedStyles(await textOf(zip, stylesName.name));
  return {
    writesByPart,
    calcChain,
    stylesPart,
    stylesName,
    styles,
    officeDocument: officeDocument.toLowerCase(),
    workbookRels: relationshipsPartOf(officeDocument).toLowerCase(),
  };
}

/**
 * A small part's new text, when the edit changes it: the workbook part marked for
 * recalculation on open (unless it is already), and without the calculation chain, the
 * workbook's relationships and the content types. Undefined: the part stays as it is.
 */
async function changedText(zip: ZipArchive, name: string, edit: WorkbookEdit): Promise<string | undefined> {
  const key = name.toLowerCase();
  if (key === edit.officeDocument) {
    const text = await textOf(zip, name);
    const marked = markedForRecalculation(text);
    return marked === text ? undefined : marked;
  }
  if (edit.calcChain === undefined) return undefined;
  if (key === edit.workbookRels) return withoutRelationships(await textOf(zip, name), "calcChain");
  if (key === "[content_types].xml") return withoutOverride(await textOf(zip, name), edit.calcChain);
  return undefined;
}

/**
 * A workbook with cells written into some of its sheets. The workbook part is marked for
 * recalculation on open; the calculation chain, a cache of which cells hold formulas that
 * a written cell may no longer be, is left out with its relationship and content type,
 * for the spreadsheet program to make again. Every other part is kept as it is stored:
 * an edit of one sheet never inflates the others, and names them as spans of the stored
 * bytes (`parts`), which Cellar keeps rather than stores again.
 *
 * A written sheet's part is deflated in segments (`deflate-segments.ts`), listed in its
 * central directory entry. The next edit of a sheet so written inflates, rewrites and
 * deflates only the segments its writes fall in (and the first, when the sheet's extent
 * grows), and names every other as stored: its cost is that of the segments, not of the
 * sheet. A sheet written before (or by another program) is rewritten whole, as it streams.
 *
 * An archive Cellar cannot copy by ranges (ZIP64, parts sharing bytes) is written again
 * whole by fflate's `Zip` (`wholeArchive`).
 */
export function writeXlsx(input: {
  index: ReadableSheetIndex;
  size: number;
  openFile: OpenBytes;
  sheets: readonly SheetWrites[];
}): WrittenContent {
  async function* archiveParts(): AsyncGenerator<WrittenPart> {
    const zip = await openZipArchive(input.openFile, input.size);
    try {
      const edit = await workbookEdit(zip, input.sheets);
      const layout = zip.layout();
      if (layout === null) {
        yield* wholeArchive(zip, edit);
        return;
      }
      const archive = new SplicedArchive();
      for (const entry of layout.entries) {
        const key = entry.name.toLowerCase();
        if (key === edit.calcChain || key === edit.stylesPart || entry.name.endsWith("/")) continue;
        const changed = await changedText(zip, entry.name, edit);
        const writes = edit.writesByPart.get(key);
        if (changed !== undefined) yield* archive.replace(entry, deflatedNew(Buffer.from(changed)));
        else if (writes !== undefined) {
          const extent = input.index.sheets[writes.sheet];
          yield* archive.replace(
            entry,
            (await editedSegments(input.openFile, entry, writes, extent, edit.styles)) ??
              segmentedWhole(
                rewriteSheet(
                  await zip.open(entry.name, { chunkBytes: ZLIB_CHUNK_BYTES }),
                  writes,
                  entry.name,
                  edit.styles,
                ),
              ),
          );
        } else yield archive.copy(entry);
      }
      const stylesEntry = layout.entries.find((entry) => entry.name.toLowerCase() === edit.stylesPart);
      if (stylesEntry !== undefined) {
        const rewritten = edit.styles?.rewritten() ?? null;
        if (rewritten === null) yield archive.copy(stylesEntry);
        else yield* archive.replace(stylesEntry, deflatedNew(Buffer.from(rewritten)));
      }
      yield archive.end();
    } finally {
      zip.close();
    }
  }
  const parts = () => joinedSpans(archiveParts());
  return {
    content: (async function* () {
      for await (const part of parts()) {
        if (part instanceof Uint8Array) yield part;
        else yield* await input.openFile(part);
      }
    })(),
    index: () => null,
    parts,
  };
}

/** The archive written again by fflate, part after part: for one Cellar cannot copy by ranges. */
async function* wholeArchive(zip: ZipArchive, edit: WorkbookEdit): AsyncGenerator<Uint8Array> {
  const archive = new ArchiveOutput();
  for (const { name, modified } of zip.entries()) {
    const key = name.toLowerCase();
    if (key === edit.calcChain || key === edit.stylesPart || name.endsWith("/")) continue;
    const changed = await changedText(zip, name, edit);
    const writes = edit.writesByPart.get(key);
    if (changed !== undefined) yield* archive.add(name, modified, deflatedWhole(Buffer.from(changed)));
    else if (writes !== undefined) {
      // At level 1, as `segmentedWhole` says.
      yield* archive.add(
        name,
        modified,
        deflating(rewriteSheet(await zip.open(name, { chunkBytes: ZLIB_CHUNK_BYTES }), writes, name, edit.styles)),
      );
    } else yield* archive.add(name, modified, await zip.raw(name));
  }
  if (edit.stylesName !== undefined) {
    const rewritten = edit.styles?.rewritten() ?? null;
    yield* archive.add(
      edit.stylesName.name,
      edit.stylesName.modified,
      rewritten === null ? await zip.raw(edit.stylesName.name) : deflatedWhole(Buffer.from(rewritten)),
    );
  }
  yield* archive.end();
}

/** A small part's new bytes, deflated in one piece. */
function deflatedNew(bytes: Buffer): NewPart {
  return {
    bytes: (async function* () {
      yield deflateRawSync(bytes);
    })(),
    crc32: () => crc32(bytes),
    size: () => bytes.length,
  };
}

/**
 * A sheet's new XML deflated in segments as it streams, at level 1 (at the default level,
 * deflating a 250,000-row sheet's 94 MiB took most of an edit: 3.2 s of it, 1.3 s at
 * level 1). One segment is deflated on zlib's thread pool while the next is cut.
 */
function segmentedWhole(xml: AsyncIterable<Uint8Array>): NewPart {
  const segments: Segment[] = [];
  return {
    bytes: (async function* () {
      let held: { xml: Buffer; firstRow: number } | undefined;
      let deflating: Promise<Buffer> | undefined;
      const start = (segment: { xml: Buffer; firstRow: number }, last: boolean) => {
        const listed = {
          compressedLength: 0,
          rawLength: segment.xml.length,
          crc32: crc32(segment.xml),
          firstRow: segment.firstRow,
        };
        segments.push(listed);
        return deflateSegment(segment.xml, last, 1).then((bytes) => {
          listed.compressedLength = bytes.length;
          return bytes;
        });
      };
      for await (const segment of segmentsAtRows(xml, { firstRow: 0 })) {
        if (held !== undefined) {
          const next = start(held, false);
          if (deflating !== undefined) yield await deflating;
          deflating = next;
        }
        held = segment;
      }
      if (held !== undefined) {
        const next = start(held, true);
        if (deflating !== undefined) yield await deflating;
        deflating = next;
      }
      if (deflating !== undefined) yield await deflating;
    })(),
    crc32: () => wholeOf(segments).crc32,
    size: () => wholeOf(segments).rawLength,
    extra: () =>
      segments.length > 1 && segments.length <= MAX_SEGMENTS
        ? { id: SEGMENT_TABLE_ID, data: encodeSegmentTable(segments) }
        : undefined,
  };
}

/** Bytes `start` to `end` (excluded) of the stored file. */
async function storedRange(openFile: OpenBytes, start: number, end: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await openFile({ start, end: end - 1 })) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** The level a rewritten segment is deflated at: it is small, and what it deflates to is what an edit stores. */
const SEGMENT_EDIT_LEVEL = 6;

/**
 * A segmented sheet with `writes` applied to the segments they fall in, the others named
 * as stored; null when the part is not segmented, its table or a segment read is not what
 * the table says, or the writes fall in most of its segments: the sheet is then written
 * whole. Errors of the writes themselves (a shared formula written over) are thrown.
 */
async function editedSegments(
  openFile: OpenBytes,
  entry: LaidOutEntry,
  writes: SheetWrites,
  extent: SheetSummary | undefined,
  styles: AddedStyles | undefined,
): Promise<NewPart | null> {
  const field = entry.extraFields.find((extra) => extra.id === SEGMENT_TABLE_ID);
  const segments = field === undefined || entry.method !== 8 ? null : decodeSegmentTable(field.data, entry);
  if (segments === null || segments.length < 2) return null;
  const header = await storedRange(openFile, entry.start, entry.start + 30);
  if (header.length !== 30 || header.readUInt32LE(0) !== 0x04034b50) return null;
  const dataStart = entry.start + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
  if (dataStart + entry.compressedSize > entry.end) return null;

  const bounds = boundsOf(writes.writes);
  const touched = writesBySegment(writes, segments);
  if (extent === undefined || bounds.lastRow > extent.rowCount || bounds.lastColumn > extent.columnCount) {
    // The sheet grows: its dimension, in the first segment, with it.
    if (!touched.has(0)) touched.set(0, { sheet: writes.sheet, writes: [], results: [] });
  }
  if (touched.size * 2 > segments.length) return null;

  const last = segments.length - 1;
  const offsets: number[] = [];
  let offset = dataStart;
  for (const segment of segments) {
    offsets.push(offset);
    offset += segment.compressedLength;
  }
  const rewritten = new Map<number, { bytes: Buffer[]; segments: Segment[] }>();
  for (const k of [...touched.keys()].sort((a, b) => a - b)) {
    const segment = segments[k] as Segment;
    const from = offsets[k] as number;
    // The bytes before a segment end its predecessor's full flush.
    const mark = k === 0 ? 0 : FLUSH_MARK.length;
    const stored = await storedRange(openFile, from - mark, from + segment.compressedLength);
    if (!stored.subarray(0, mark).equals(FLUSH_MARK.subarray(0, mark))) return null;
    const xml = await inflateSegment(stored.subarray(mark), segment, k === last);
    if (xml === null) return null;
    let start: { prefix: string; lastRow: number } | undefined;
    if (k > 0) {
      // A segment starts with the row the table says.
      const row = /^<([\w.-]+:)?row r="(\d+)"/.exec(xml.toString("latin1", 0, 64));
      if (row === null || Number(row[2]) !== segment.firstRow) return null;
      start = { prefix: row[1] ?? "", lastRow: segment.firstRow - 1 };
    }
    const out = rewriteSheet(
      (async function* () {
        yield xml;
      })(),
      touched.get(k) as SheetWrites,
      entry.name,
      styles,
      { ...(start === undefined ? {} : { start }), endsInRows: k !== last, dimension: bounds },
    );
    const cut: { xml: Buffer; firstRow: number }[] = [];
    for await (const piece of segmentsAtRows(out, {
      firstRow: segment.firstRow,
      ...(start === undefined ? {} : { prefix: start.prefix }),
    })) {
      cut.push(piece);
    }
    const bytes = await Promise.all(
      cut.map((piece, i) => deflateSegment(piece.xml, k === last && i === cut.length - 1, SEGMENT_EDIT_LEVEL)),
    );
    rewritten.set(k, {
      bytes,
      segments: cut.map((piece, i) => ({
        compressedLength: (bytes[i] as Buffer).length,
        rawLength: piece.xml.length,
        crc32: crc32(piece.xml),
        firstRow: piece.firstRow,
      })),
    });
  }
  const after: Segment[] = segments.flatMap((segment, k) => rewritten.get(k)?.segments ?? [segment]);
  return {
    bytes: (async function* () {
      for (const [k, segment] of segments.entries()) {
        const replaced = rewritten.get(k);
        if (replaced === undefined) {
          yield { start: offsets[k] as number, end: (offsets[k] as number) + segment.compressedLength - 1 };
        } else yield* replaced.bytes;
      }
    })(),
    crc32: () => wholeOf(after).crc32,
    size: () => wholeOf(after).rawLength,
    extra: () => (after.length <= MAX_SEGMENTS ? { id: SEGMENT_TABLE_ID, data: encodeSegmentTable(after) } : undefined),
  };
}

/**
 * The writes and results of a sheet by the segment whose rows they fall in: a write over
 * the rows of several segments is cut into one for each.
 */
function writesBySegment(sheet: SheetWrites, segments: readonly Segment[]): Map<number, SheetWrites> {
  const bySegment = new Map<number, { writes: CellWrite[]; results: FormulaResult[] }>();
  const of = (k: number) => {
    let found = bySegment.get(k);
    if (found === undefined) {
      found = { writes: [], results: [] };
      bySegment.set(k, found);
    }
    return found;
  };
  /** The segment holding `row`: the last that starts at it or before. */
  const segmentOf = (row: number) => {
    let low = 0;
    let high = segments.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((segments[middle] as Segment).firstRow <= row) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  for (const write of sheet.writes) {
    const { rectangle } = write;
    for (let k = segmentOf(rectangle.firstRow); k <= segmentOf(rectangle.lastRow); k++) {
      const firstRow = Math.max(rectangle.firstRow, (segments[k] as Segment).firstRow);
      const lastRow = Math.min(rectangle.lastRow, (segments[k + 1]?.firstRow ?? Number.POSITIVE_INFINITY) - 1);
      const from = firstRow - rectangle.firstRow;
      const to = lastRow - rectangle.firstRow + 1;
      of(k).writes.push({
        rectangle: { ...rectangle, firstRow, lastRow },
        values: write.values.slice(from, to),
        ...(write.formulas === undefined ? {} : { formulas: write.formulas.slice(from, to) }),
        ...(write.formats === undefined ? {} : { formats: write.formats.slice(from, to) }),
      });
    }
  }
  for (const result of sheet.results ?? []) of(segmentOf(result.row)).results.push(result);
  return new Map([...bySegment].map(([k, found]) => [k, { sheet: sheet.sheet, ...found }]));
}

/** A part's new bytes deflated in one piece: a small part. */
export function deflatedWhole(bytes: Buffer): StoredPart {
  return {
    method: 8,
    crc32: crc32(bytes),
    size: bytes.length,
    bytes: (async function* () {
      yield deflateRawSync(bytes);
    })(),
  };
}

/**
 * A part's new bytes deflated as they stream, their CRC-32 and size counted on the way:
 * known once `bytes` has been read to its end.
 */
export function deflating(source: AsyncIterable<Uint8Array>): StoredPart {
  const part = { method: 8, crc32: 0, size: 0, bytes: undefined as unknown as AsyncIterable<Uint8Array> };
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of source) {
      part.crc32 = crc32(chunk, part.crc32);
      part.size += chunk.length;
      yield chunk;
    }
  }
  const plain = Readable.from(counted(), { objectMode: false, highWaterMark: ZLIB_CHUNK_BYTES });
  const deflate = createDeflateRaw({ level: 1, chunkSize: ZLIB_CHUNK_BYTES });
  plain.on("error", (error) => deflate.destroy(error));
  part.bytes = plain.pipe(deflate) as AsyncIterable<Uint8Array>;
  return part;
}

/**
 * A ZIP archive written part after part, each from its stored bytes, CRC-32 and size; a
 * part's `crc32` and `size` are read once its bytes have ended (`deflating` counts them
 * as they go).
 */
export class ArchiveOutput {
  private readonly zip: Zip;
  private readonly out: Uint8Array[] = [];
  private failure: Error | null = null;

  constructor() {
    this.zip = new Zip((error, chunk) => {
      if (error !== null) this.failure ??= error;
      else this.out.push(chunk);
    });
  }

  async *add(name: string, modified: Date, part: StoredPart): AsyncGenerator<Uint8Array> {
    const file: ZipInputFile = {
      filename: name,
      compression: part.method,
      crc: 0,
      size: 0,
      mtime: dosTime(modified),
    };
    this.zip.add(file);
    const push = file.ondata as NonNullable<ZipInputFile["ondata"]>;
    for await (const chunk of part.bytes) {
      // zlib's and the store's chunks are never on shared memory.
      push(null, chunk as Uint8Array<ArrayBuffer>, false);
      yield* this.drained();
    }
    file.crc = part.crc32;
    file.size = part.size;
    push(null, new Uint8Array(0), true);
    yield* this.drained();
  }

  *end(): Generator<Uint8Array> {
    this.zip.end();
    yield* this.drained();
  }

  private *drained(): Generator<Uint8Array> {
    if (this.failure !== null) throw this.failure;
    yield* this.out.splice(0);
  }
}

/** A part's date as a ZIP can hold it (1980 to 2107, local time, as readers take it). */
function dosTime(date: Date): Date {
  const year = date.getFullYear();
  if (!Number.isFinite(year) || year < 1980) return new Date(1980, 0, 1);
  return year > 2099 ? new Date(2099, 11, 31) : date;
}
