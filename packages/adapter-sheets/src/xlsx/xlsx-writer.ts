import { PassThrough, Readable } from "node:stream";
import { type OpenBytes, type SheetWrites, SpreadsheetUnreadableError, type WrittenContent } from "@cellar/core";
import yazl from "yazl";
import { rewriteSheet } from "./sheet-rewriter.js";
import { readSheetList, relationshipsPartOf } from "./workbook-parts.js";
import { openZipArchive, type ZipArchive } from "./zip-archive.js";

/** Small parts read whole to be changed (the workbook, its relationships, the content types): at most this many bytes. */
const MAX_SMALL_PART_BYTES = 16 * 1024 ** 2;

async function textOf(zip: ZipArchive, name: string): Promise<string> {
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
function withoutRelationships(xml: string, type: string): string {
  return xml.replace(/<([\w.-]+:)?Relationship\b[^>]*?\/>/g, (tag) =>
    new RegExp(`Type\\s*=\\s*["'][^"']*/${type}["']`).test(tag) ? "" : tag,
  );
}

/** Content types without the override for `part`. */
function withoutOverride(xml: string, part: string): string {
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
 * program to make again. Every other part keeps its content (compressed again).
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
      const writesByPart = new Map<string, SheetWrites["writes"]>();
      for (const { sheet, writes } of input.sheets) {
        const target = sheets[sheet];
        if (target === undefined) throw new SpreadsheetUnreadableError(`it has no sheet ${sheet + 1}.`);
        writesByPart.set(target.part.toLowerCase(), writes);
      }
      const calcChain = [...related.values()].find((r) => r.type.endsWith("/calcChain"))?.part.toLowerCase();
      const workbookRels = relationshipsPartOf(officeDocument).toLowerCase();
      const out = new yazl.ZipFile();
      // A part that fails (a broken sheet, a shared formula written over) fails the
      // archive: yazl reports neither its streams' errors nor its own on its output.
      const output = new PassThrough();
      out.on("error", (error: Error) => output.destroy(error));
      for (const { name, modified } of zip.entries()) {
        const key = name.toLowerCase();
        if (key === calcChain || name.endsWith("/")) continue;
        const options = { mtime: modified, compress: true };
        if (key === officeDocument.toLowerCase()) {
          out.addBuffer(Buffer.from(markedForRecalculation(await textOf(zip, name))), name, options);
        } else if (key === workbookRels && calcChain !== undefined) {
          out.addBuffer(Buffer.from(withoutRelationships(await textOf(zip, name), "calcChain")), name, options);
        } else if (key === "[content_types].xml" && calcChain !== undefined) {
          out.addBuffer(Buffer.from(withoutOverride(await textOf(zip, name), calcChain)), name, options);
        } else {
          const writes = writesByPart.get(key);
          // Opened when yazl comes to it: one part inflating at a time. A rewritten sheet is
          // deflated at level 1: at the default level, deflating a 250,000-row sheet's 94 MiB
          // took most of an edit (3.2 s of it; at level 1 the edit takes 1.3 s, and the
          // workbook is as large as spreadsheet programs write it).
          const level = writes === undefined ? options : { mtime: modified, compressionLevel: 1 };
          out.addReadStreamLazy(name, level, (callback) => {
            zip.open(name).then(
              (bytes) => {
                const stream = Readable.from(writes === undefined ? bytes : rewriteSheet(bytes, writes, name));
                stream.on("error", (error) => output.destroy(error));
                callback(null, stream);
              },
              (error: Error) => {
                output.destroy(error);
                callback(error, undefined as unknown as Readable);
              },
            );
          });
        }
      }
      out.end();
      out.outputStream.pipe(output);
      yield* output as AsyncIterable<Uint8Array>;
    } finally {
      zip.close();
    }
  }
  return { content: content(), index: () => null };
}
