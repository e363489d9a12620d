/**
 * Blobs a file owns besides its bytes, kept under its blob key and a suffix: a
 * workbook's rows as the sheet reader wrote them for windows (`sheetRowsBlobKey`). The
 * orphan sweep and the purge treat such a blob as part of the file.
 */
export const SHEET_ROWS_SUFFIX = "_rows";

export function sheetRowsBlobKey(blobKey: string): string {
  return `${blobKey}${SHEET_ROWS_SUFFIX}`;
}

/** The file's own blob key for a key of either kind. */
export function owningBlobKey(key: string): string {
  return key.endsWith(SHEET_ROWS_SUFFIX) ? key.slice(0, -SHEET_ROWS_SUFFIX.length) : key;
}
