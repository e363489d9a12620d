import type { SheetIndex } from "./sheet-index.js";

/**
 * Keeps what a reader found in each file's cells (`SheetIndex`), beside the file's
 * metadata. Guarantees (checked by `fileRepositoryContract`, whose subject implements
 * both): `saveSheetIndex` keeps one index per file, replacing any earlier one, and stores
 * nothing for a file that does not exist; `findSheetIndex` returns it equal to what was
 * saved, or null. A file's index goes when the file is removed (purge).
 */
export interface SheetIndexRepository {
  findSheetIndex(fileId: string): Promise<SheetIndex | null>;
  saveSheetIndex(input: { fileId: string; index: SheetIndex }): Promise<void>;
}
