import type { ByteRange, OpenBytes } from "@cellar/core";

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
