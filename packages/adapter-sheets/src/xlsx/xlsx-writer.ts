import { Readable } from "node:stream";
import { crc32, createDeflateRaw, deflateRawSync } from "node:zlib";
import { type OpenBytes, type SheetWrites, SpreadsheetUnreadableError, type WrittenContent } from "@cellar/core";
import { Zip, type ZipInputFile } from "fflate";
import { AddedStyles } from "./added-styles.js";
import { rewriteSheet } from "./sheet-rewriter.js";
import { readSheetList, relationshipsPartOf } from "./workbook-parts.js";
import { openZipArchive, type StoredPart, type ZipArchive, ZLIB_CHUNK_BYTES } from "./zip-archive.js";

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

/**
 * A workbook with cells written into some of its sheets, streamed: the archive is read
 * part by part and written again in its order. Each written sheet's part is rewritten as
 * it streams (`rewriteSheet`); the workbook part is marked for recalculation on open;
 * the calculation chain, a cache of which cells hold formulas that a written cell may no
 * longer be, is left out with its relationship and content type, for the spreadsheet
 * program to make again. Every other part is copied as it is stored, still compressed:
 * an edit of one sheet never inflates the others.
 *
 * The archive is put together by fflate's `Zip` from parts whose bytes, CRC-32 and size
 * Cellar gives (`ZipInputFile`); zlib deflates, with large chunks (`ZLIB_CHUNK_BYTES`),
 * and computes each CRC-32 natively.
 */
export function writeXlsx(input: {
  size: number;
  openFile: OpenBytes;
  sheets: readonly SheetWrites[];
}): WrittenContent {
  async function* content(): AsyncGenerator<Uint8Array> {
    const zip = await openZipArchive(input.openFile, input.size);
    try {
      const { officeDocument, related, sheets } = await readSheetList(zip);
      const writesByPart = new Map<string, SheetWrites>();
      for (const sheetWrites of input.sheets) {
        const target = sheets[sheetWrites.sheet];
        if (target === undefined) throw new SpreadsheetUnreadableError(`it has no sheet ${sheetWrites.sheet + 1}.`);
        writesByPart.set(target.part.toLowerCase(), sheetWrites);
      }
      const calcChain = [...related.values()].find((r) => r.type.endsWith("/calcChain"))?.part.toLowerCase();
      // A date typed into a cell without a number format gets a style that shows it as a
      // date: the styles part is written after the sheets, once they have said which.
      const formatted = input.sheets.some((sheet) => sheet.writes.some((write) => write.formats !== undefined));
      const stylesPart = formatted
        ? [...related.values()].find((r) => r.type.endsWith("/styles"))?.part.toLowerCase()
        : undefined;
      const stylesName =
        stylesPart === undefined ? undefined : zip.entries().find((e) => e.name.toLowerCase() === stylesPart);
      const styles = stylesName === undefined ? undefined : new AddedStyles(await textOf(zip, stylesName.name));
      const workbookRels = relationshipsPartOf(officeDocument).toLowerCase();
      const archive = new ArchiveOutput();
      for (const { name, modified } of zip.entries()) {
        const key = name.toLowerCase();
        if (key === calcChain || key === stylesPart || name.endsWith("/")) continue;
        let changed: string | undefined;
        if (key === officeDocument.toLowerCase()) changed = markedForRecalculation(await textOf(zip, name));
        else if (key === workbookRels && calcChain !== undefined) {
          changed = withoutRelationships(await textOf(zip, name), "calcChain");
        } else if (key === "[content_types].xml" && calcChain !== undefined) {
          changed = withoutOverride(await textOf(zip, name), calcChain);
        }
        const writes = writesByPart.get(key);
        if (changed !== undefined) yield* archive.add(name, modified, deflatedWhole(Buffer.from(changed)));
        else if (writes !== undefined) {
          // Deflated at level 1: at the default level, deflating a 250,000-row sheet's 94
          // MiB took most of an edit (3.2 s of it; at level 1 the edit took 1.3 s), and the
          // workbook is as large as spreadsheet programs write it.
          yield* archive.add(
            name,
            modified,
            deflating(rewriteSheet(await zip.open(name, { chunkBytes: ZLIB_CHUNK_BYTES }), writes, name, styles)),
          );
        } else yield* archive.add(name, modified, await zip.raw(name));
      }
      if (stylesName !== undefined) {
        const rewritten = styles?.rewritten() ?? null;
        yield* archive.add(
          stylesName.name,
          stylesName.modified,
          rewritten === null ? await zip.raw(stylesName.name) : deflatedWhole(Buffer.from(rewritten)),
        );
      }
      yield* archive.end();
    } finally {
      zip.close();
    }
  }
  return { content: content(), index: () => null };
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
