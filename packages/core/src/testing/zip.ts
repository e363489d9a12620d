/**
 * Builds small ZIP files (stored, not deflated) for tests of the .xlsx check: a valid
 * workbook, or one broken in a chosen way (entry count, declared sizes, ZIP64 records).
 */
export interface ZipEntry {
  readonly name: string;
  readonly data?: string | Uint8Array;
  /** Overrides the uncompressed size written in the central directory. */
  readonly declaredSize?: number;
}

export interface ZipOptions {
  readonly comment?: string;
  /** Writes the ZIP64 end records and 0xffff/0xffffffff markers in the classic one. */
  readonly zip64?: boolean;
  /** Overrides the entry count written in the end record. */
  readonly declaredEntries?: number;
}

export function buildZip(entries: readonly ZipEntry[], options: ZipOptions = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const data = typeof entry.data === "string" ? Buffer.from(entry.data) : Buffer.from(entry.data ?? "<x/>");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, data);

    const declared = entry.declaredSize ?? data.length;
    const zip64Extra = declared > 0xfffffffe ? Buffer.alloc(12) : Buffer.alloc(0);
    if (zip64Extra.length > 0) {
      zip64Extra.writeUInt16LE(0x0001, 0);
      zip64Extra.writeUInt16LE(8, 2);
      zip64Extra.writeBigUInt64LE(BigInt(declared), 4);
    }
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(zip64Extra.length > 0 ? 0xffffffff : declared, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt16LE(zip64Extra.length, 30);
    header.writeUInt32LE(offset, 42);
    central.push(header, name, zip64Extra);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const count = options.declaredEntries ?? entries.length;
  const comment = Buffer.from(options.comment ?? "");
  const tail: Buffer[] = [directory];
  if (options.zip64) {
    const record = Buffer.alloc(56);
    record.writeUInt32LE(0x06064b50, 0);
    record.writeBigUInt64LE(44n, 4);
    record.writeBigUInt64LE(BigInt(count), 24);
    record.writeBigUInt64LE(BigInt(count), 32);
    record.writeBigUInt64LE(BigInt(directory.length), 40);
    record.writeBigUInt64LE(BigInt(offset), 48);
    const locator = Buffer.alloc(20);
    locator.writeUInt32LE(0x07064b50, 0);
    locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
    locator.writeUInt32LE(1, 16);
    tail.push(record, locator);
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(options.zip64 ? 0xffff : Math.min(count, 0xffff), 8);
  end.writeUInt16LE(options.zip64 ? 0xffff : Math.min(count, 0xffff), 10);
  end.writeUInt32LE(options.zip64 ? 0xffffffff : directory.length, 12);
  end.writeUInt32LE(options.zip64 ? 0xffffffff : offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...parts, ...tail, end, comment]);
}

/** The two entries that make a ZIP an OOXML workbook, plus a sheet. */
export const WORKBOOK_ENTRIES: readonly ZipEntry[] = [
  { name: "[Content_Types].xml", data: "<Types/>" },
  { name: "_rels/.rels", data: "<Relationships/>" },
  { name: "xl/workbook.xml", data: "<workbook/>" },
  { name: "xl/worksheets/sheet1.xml", data: "<worksheet/>" },
];

export function workbook(): Buffer {
  return buildZip(WORKBOOK_ENTRIES);
}
