import { isUtf8 } from "node:buffer";
import type { CsvDelimiter, CsvEncoding } from "@cellar/core";
import iconv from "iconv-lite";

/** What the first bytes say: a byte-order mark, and the encoding it names. */
export function encodingFromBom(head: Uint8Array): { encoding: CsvEncoding; bomBytes: number } | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: "utf-8", bomBytes: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", bomBytes: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", bomBytes: 2 };
  return null;
}

/**
 * Decodes text of one encoding. Windows-1252 goes through iconv-lite: Node 22's
 * `TextDecoder` maps bytes 0x80–0x9F to C1 controls instead of `€`, `‚`, … (nodejs/node#60888).
 */
export function decoderFor(encoding: CsvEncoding): (bytes: Uint8Array) => string {
  switch (encoding) {
    case "utf-8": {
      const decoder = new TextDecoder("utf-8");
      return (bytes) => decoder.decode(bytes);
    }
    case "utf-16le":
    case "utf-16be": {
      // Big-endian input is swapped to little-endian before it is scanned.
      const decoder = new TextDecoder("utf-16le");
      return (bytes) => decoder.decode(bytes);
    }
    case "windows-1252":
      return (bytes) => iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), "windows-1252");
  }
}

/**
 * Checks UTF-8 across chunks: a sequence split between two chunks is checked once the
 * second arrives. False as soon as any byte is not UTF-8.
 */
export class Utf8Check {
  private tail = new Uint8Array(0);
  valid = true;

  update(chunk: Uint8Array): void {
    if (!this.valid) return;
    const bytes = this.tail.length === 0 ? chunk : Buffer.concat([this.tail, chunk]);
    // Up to three bytes at the end may be the start of a sequence the next chunk ends.
    let cut = bytes.length;
    for (let back = 1; back <= Math.min(3, bytes.length); back++) {
      const byte = bytes[bytes.length - back] as number;
      if ((byte & 0xc0) === 0x80) continue;
      const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
      if (needed > back) cut = bytes.length - back;
      break;
    }
    if (!isUtf8(bytes.subarray(0, cut))) this.valid = false;
    this.tail = bytes.slice(cut);
  }

  finish(): boolean {
    if (this.tail.length > 0 && !isUtf8(this.tail)) this.valid = false;
    return this.valid;
  }
}

const CANDIDATES: readonly CsvDelimiter[] = [",", ";", "\t", "|"];

/**
 * The delimiter a sample of the file's first lines uses: the candidate found the same
 * number of times (at least once) on the most lines, outside quotes; ties go to the
 * earlier of `,` `;` tab `|`. A sample where none occurs is read with `,`.
 */
export function detectDelimiter(sample: string): CsvDelimiter {
  const lines = splitSampleLines(sample, 100);
  let best: CsvDelimiter = ",";
  let bestScore = 0;
  for (const candidate of CANDIDATES) {
    const counts = lines.map((line) => countOutsideQuotes(line, candidate));
    const frequency = new Map<number, number>();
    for (const count of counts) if (count > 0) frequency.set(count, (frequency.get(count) ?? 0) + 1);
    // The most common non-zero count, and on how many lines it occurs.
    let score = 0;
    for (const lines of frequency.values()) score = Math.max(score, lines);
    if (score > bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Up to `max` whole lines of the sample, line ends inside quotes kept within their line. */
function splitSampleLines(sample: string, max: number): string[] {
  const lines: string[] = [];
  let start = 0;
  let quoted = false;
  for (let at = 0; at < sample.length && lines.length < max; at++) {
    const char = sample[at];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "\n" || char === "\r")) {
      lines.push(sample.slice(start, at));
      if (char === "\r" && sample[at + 1] === "\n") at++;
      start = at + 1;
    }
  }
  // The sample's last line may be cut short: it counts only when it is the whole file.
  if (lines.length === 0 && start < sample.length) lines.push(sample.slice(start));
  return lines;
}

function countOutsideQuotes(line: string, delimiter: string): number {
  let count = 0;
  let quoted = false;
  for (const char of line) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === delimiter) count++;
  }
  return count;
}
