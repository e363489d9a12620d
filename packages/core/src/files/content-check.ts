import { CellarError, ErrorCode } from "../shared/errors.js";
import type { FileKind } from "./file.entity.js";

/**
 * Checks an upload's bytes against its kind while they stream past, holding at most a
 * bounded tail of them. `update` may throw as soon as the content is known to be wrong,
 * which stops the upload early; `finish` throws if the whole is wrong.
 */
export interface ContentCheck {
  update(chunk: Uint8Array): void;
  finish(totalBytes: number): void;
}

export function createContentCheck(kind: FileKind): ContentCheck {
  switch (kind) {
    case "csv":
      return csvCheck();
    case "xlsx":
      return xlsxCheck();
    case "sheet":
      // Cellar's own format is stored as given.
      return { update() {}, finish() {} };
  }
}

function mismatch(message: string): CellarError {
  return new CellarError(ErrorCode.unsupported_media_type, message);
}

/**
 * CSV is text: a NUL byte means it is not, except in UTF-16, whose byte-order mark
 * (`FF FE` or `FE FF`) the file must then start with (docs/api.md, §6).
 */
function csvCheck(): ContentCheck {
  const head: number[] = [];
  let utf16: boolean | undefined;
  return {
    update(chunk) {
      if (utf16 === undefined) {
        for (const byte of chunk.subarray(0, 2 - head.length)) head.push(byte);
        if (head.length === 2) utf16 = (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
      }
      if (utf16 !== true && chunk.includes(0)) throw mismatch("The .csv file is not text: it holds a NUL byte.");
    },
    finish() {},
  };
}

/** Limits that refuse a ZIP bomb from its central directory alone, before anyone inflates it. */
export const XLSX_LIMITS = {
  maxEntries: 10_000,
  maxUncompressedBytes: 2 * 1024 ** 3,
  /** The tail kept while streaming: the central directory must fit in it. */
  maxTailBytes: 4 * 1024 ** 2 + 65_557,
} as const;

const REQUIRED_XLSX_ENTRIES = ["[content_types].xml", "xl/workbook.xml"];

/**
 * An .xlsx must be a ZIP holding an OOXML workbook. The ZIP's central directory sits
 * at its end, so the check keeps the last few MiB of the stream and reads the entry
 * names from there; nothing is inflated.
 */
function xlsxCheck(): ContentCheck {
  const head: number[] = [];
  const tail: Uint8Array[] = [];
  let tailLength = 0;
  return {
    update(chunk) {
      for (let i = 0; head.length < 4 && i < chunk.length; i++) head.push(chunk[i] as number);
      if (head.length === 4 && !(head[0] === 0x50 && head[1] === 0x4b && head[2] === 3 && head[3] === 4)) {
        throw mismatch("The .xlsx file is not a ZIP container.");
      }
      tail.push(chunk);
      tailLength += chunk.length;
      while (tail.length > 1 && tailLength - (tail[0] as Uint8Array).length >= XLSX_LIMITS.maxTailBytes) {
        tailLength -= (tail.shift() as Uint8Array).length;
      }
    },
    finish(totalBytes) {
      if (head.length < 4) throw mismatch("The .xlsx file is not a ZIP container.");
      const bytes = concat(tail, tailLength);
      const names = readCentralDirectoryNames(bytes, totalBytes - tailLength);
      for (const required of REQUIRED_XLSX_ENTRIES) {
        if (!names.has(required)) {
          throw mismatch("The .xlsx file is a ZIP but not an Excel workbook.");
        }
      }
    },
  };
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;
const CENTRAL_HEADER_SIGNATURE = 0x02014b50;
const U32_MAX = 0xffffffff;

/**
 * Reads the lower-cased entry names of the ZIP whose last `tail.length` bytes are given,
 * `tailStart` being where that tail begins in the whole file. Throws for anything that
 * is not a well-formed ZIP, or one past the limits.
 */
export function readCentralDirectoryNames(tail: Uint8Array, tailStart: number): Set<string> {
  const view = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  const broken = () => mismatch("The .xlsx file is not a valid ZIP container.");

  // The end-of-central-directory record: 22 bytes plus a comment of up to 65,535.
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0 && i >= tail.length - 22 - 0xffff; i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE && i + 22 + view.getUint16(i + 20, true) === tail.length) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw broken();

  let entries = view.getUint16(eocd + 10, true);
  let directorySize = view.getUint32(eocd + 12, true);
  let directoryOffset = view.getUint32(eocd + 16, true);
  if (entries === 0xffff || directorySize === U32_MAX || directoryOffset === U32_MAX) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR_SIGNATURE) throw broken();
    const record = Number(view.getBigUint64(locator + 8, true)) - tailStart;
    if (record < 0 || record + 56 > locator || view.getUint32(record, true) !== ZIP64_EOCD_SIGNATURE) {
      throw broken();
    }
    entries = Number(view.getBigUint64(record + 32, true));
    directorySize = Number(view.getBigUint64(record + 40, true));
    directoryOffset = Number(view.getBigUint64(record + 48, true));
  }
  if (entries > XLSX_LIMITS.maxEntries) {
    throw mismatch(`The .xlsx file has more than ${XLSX_LIMITS.maxEntries} entries.`);
  }
  const start = directoryOffset - tailStart;
  if (start < 0) {
    throw mismatch("The .xlsx file's directory is too large to check.");
  }
  if (start + directorySize > tail.length) throw broken();

  const names = new Set<string>();
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let uncompressedTotal = 0;
  let at = start;
  for (let n = 0; n < entries; n++) {
    if (at + 46 > start + directorySize || view.getUint32(at, true) !== CENTRAL_HEADER_SIGNATURE) throw broken();
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > start + directorySize) throw broken();
    let uncompressed = view.getUint32(at + 24, true);
    if (uncompressed === U32_MAX) {
      uncompressed = zip64UncompressedSize(view, at + 46 + nameLength, extraLength) ?? Number.POSITIVE_INFINITY;
    }
    uncompressedTotal += uncompressed;
    if (uncompressedTotal > XLSX_LIMITS.maxUncompressedBytes) {
      throw mismatch("The .xlsx file declares more uncompressed content than Cellar accepts.");
    }
    names.add(decoder.decode(tail.subarray(at + 46, at + 46 + nameLength)).toLowerCase());
    at = next;
  }
  return names;
}

/** The uncompressed size from a ZIP64 extended-information extra field, if present. */
function zip64UncompressedSize(view: DataView, extraStart: number, extraLength: number): number | undefined {
  let at = extraStart;
  while (at + 4 <= extraStart + extraLength) {
    const id = view.getUint16(at, true);
    const size = view.getUint16(at + 2, true);
    if (id === 0x0001 && size >= 8 && at + 12 <= extraStart + extraLength) {
      return Number(view.getBigUint64(at + 4, true));
    }
    at += 4 + size;
  }
  return undefined;
}
