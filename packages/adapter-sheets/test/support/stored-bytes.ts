import type { ByteRange, CellRectangle, CellRender, OpenBytes, SpreadsheetReader } from "@cellar/core";
import yauzl from "yauzl";

/**
 * Bytes as a blob store serves them: the whole or an inclusive range, in chunks of the
 * sizes `chunkAt` gives for each position (uneven ones find chunk-boundary bugs), noting
 * every read and how many bytes it took.
 */
export function storedBytes(bytes: Uint8Array, chunkAt: (at: number) => number = () => 65_536) {
  const reads: { range: ByteRange | undefined; bytes: number }[] = [];
  const open: OpenBytes = async (range) => {
    const start = range?.start ?? 0;
    const end = range === undefined ? bytes.length - 1 : range.end;
    const read = { range, bytes: 0 };
    reads.push(read);
    return (async function* () {
      for (let at = start; at <= end; ) {
        const chunk = bytes.subarray(at, Math.min(end + 1, at + chunkAt(at)));
        read.bytes += chunk.length;
        at += chunk.length;
        yield chunk;
      }
    })();
  };
  return { open, reads, size: bytes.length };
}

/**
 * A workbook read through by `reader`, its rows blob kept in memory as a blob store would
 * keep it, and a window of any of its sheets (by default the whole extent), read from
 * that blob in chunks of the sizes `rowsChunkAt` gives.
 */
export async function analysedWorkbook(
  reader: SpreadsheetReader,
  bytes: Uint8Array,
  rowsChunkAt?: (at: number) => number,
) {
  let rows: Uint8Array = new Uint8Array(0);
  const index = await reader.analyse({
    kind: "xlsx",
    size: bytes.length,
    openFile: storedBytes(bytes).open,
    writeRows: async (source) => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of source) chunks.push(chunk);
      rows = Buffer.concat(chunks);
      return { size: rows.length };
    },
  });
  if (!index.readable) throw new Error(index.reason);
  const window = (sheet: number, render: CellRender, rectangle?: CellRectangle) => {
    const summary = index.sheets[sheet];
    return reader.window({
      kind: "xlsx",
      index,
      sheet,
      rectangle: rectangle ?? {
        firstRow: 1,
        lastRow: summary?.rowCount ?? 0,
        firstColumn: 1,
        lastColumn: summary?.columnCount ?? 0,
      },
      render,
      size: bytes.length,
      openFile: storedBytes(bytes).open,
      openRows: storedBytes(rows, rowsChunkAt).open,
    });
  };
  return { index, window };
}

/** Every part of an archive, inflated, by name. */
export async function partsOf(bytes: Uint8Array): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const found = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    found.set(entry.fileName, Buffer.concat(chunks).toString("utf8"));
  }
  zip.close();
  return found;
}
