import type { WrittenPart } from "@cellar/core";
import type { LaidOutEntry } from "./zip-archive.js";

/** Bit 3: the part's CRC-32 and sizes follow its bytes (a data descriptor). Bit 11: its name is UTF-8. */
const DESCRIPTOR_FLAG = 0x0008;
const UTF8_FLAG = 0x0800;

/** A part with new bytes: what they are once read to their end. */
export interface NewPart {
  /** Its deflated bytes: new ones, and spans of the stored archive (segments kept). */
  readonly bytes: AsyncIterable<WrittenPart>;
  /** Once `bytes` has ended: the CRC-32 and size of the inflated part. */
  crc32(): number;
  size(): number;
  /** Once `bytes` has ended: an extra field for its central directory entry, if any. */
  extra?(): { id: number; data: Buffer } | undefined;
}

/**
 * A new archive made of a stored one's parts, as parts of Cellar's content (`WrittenPart`):
 * each part kept is a span of the stored bytes, its local header and data descriptor
 * included, and each new one is written with a data descriptor; the central directory is
 * written again for where they all are now.
 *
 * Written here rather than by a ZIP library: the libraries (fflate, yazl, archiver) take
 * every part's bytes to write an archive, and an edit of a 17 MiB workbook must name its
 * unchanged bytes without reading them (an edit then stores about 100 KiB, not 17 MiB).
 * Only the plain form Cellar's reader takes is written: no ZIP64, no archive comment.
 */
export class SplicedArchive {
  private offset = 0;
  private readonly central: Buffer[] = [];

  /** A stored part as it is, where it now is. */
  copy(entry: LaidOutEntry): WrittenPart {
    const record = Buffer.from(entry.central);
    record.writeUInt32LE(this.offset, 42);
    this.central.push(record);
    this.offset += entry.end - entry.start;
    return { start: entry.start, end: entry.end - 1 };
  }

  /** A stored part with new (deflated) bytes: its name, times and attributes kept. */
  async *replace(entry: LaidOutEntry, part: NewPart): AsyncGenerator<WrittenPart> {
    const stored = entry.central;
    const name = stored.subarray(46, 46 + stored.readUInt16LE(28));
    const flags = (stored.readUInt16LE(8) & UTF8_FLAG) | DESCRIPTOR_FLAG;
    const local = Buffer.alloc(30 + name.length);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    stored.copy(local, 10, 12, 16); // time and date
    local.writeUInt16LE(name.length, 26);
    name.copy(local, 30);
    const start = this.offset;
    yield local;
    let compressed = 0;
    for await (const bytes of part.bytes) {
      compressed += bytes instanceof Uint8Array ? bytes.length : bytes.end - bytes.start + 1;
      yield bytes;
    }
    if (compressed > 0xfffffffe) throw new Error("a part deflated to 4 GiB or more needs ZIP64");
    const crc = part.crc32();
    const size = part.size();
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc, 4);
    descriptor.writeUInt32LE(compressed, 8);
    descriptor.writeUInt32LE(size, 12);
    yield descriptor;
    this.offset += local.length + compressed + descriptor.length;

    const extraField = part.extra?.();
    const extras = entry.extraFields.filter((field) => field.id !== extraField?.id);
    if (extraField !== undefined) extras.push(extraField);
    const extra = Buffer.concat(
      extras.map(({ id, data }) => {
        const field = Buffer.alloc(4 + data.length);
        field.writeUInt16LE(id, 0);
        field.writeUInt16LE(data.length, 2);
        data.copy(field, 4);
        return field;
      }),
    );
    if (extra.length > 0xffff) throw new Error("a part's extra fields are longer than a ZIP holds");
    const commentStart = 46 + name.length + stored.readUInt16LE(30);
    const comment = stored.subarray(commentStart, commentStart + stored.readUInt16LE(32));
    const record = Buffer.alloc(46 + name.length + extra.length + comment.length);
    stored.copy(record, 0, 0, 46);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(compressed, 20);
    record.writeUInt32LE(size, 24);
    record.writeUInt16LE(extra.length, 30);
    record.writeUInt32LE(start, 42);
    name.copy(record, 46);
    extra.copy(record, 46 + name.length);
    comment.copy(record, 46 + name.length + extra.length);
    this.central.push(record);
  }

  /** The central directory and its end record. */
  end(): Buffer {
    const directory = Buffer.concat(this.central);
    if (this.offset > 0xfffffffe || this.central.length > 0xfffe) throw new Error("the archive needs ZIP64");
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.central.length, 8);
    end.writeUInt16LE(this.central.length, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(this.offset, 16);
    return Buffer.concat([directory, end]);
  }
}

/** Parts with each run of spans that follow one another in the stored bytes joined into one. */
export async function* joinedSpans(parts: AsyncIterable<WrittenPart>): AsyncGenerator<WrittenPart> {
  let span: { start: number; end: number } | undefined;
  for await (const part of parts) {
    if (part instanceof Uint8Array) {
      if (part.length === 0) continue;
      if (span !== undefined) yield span;
      span = undefined;
      yield part;
    } else if (span !== undefined && span.end + 1 === part.start) span = { start: span.start, end: part.end };
    else {
      if (span !== undefined) yield span;
      span = { start: part.start, end: part.end };
    }
  }
  if (span !== undefined) yield span;
}
