/**
 * What the reader reads at most, and a few shapes it gives: kept apart from the reading
 * code so that a program can know them without loading the parsers.
 */

/** A CSV's one sheet is called this: a name that does not change when the file is renamed. */
export const CSV_SHEET_NAME = "Sheet1";
/** Rows between two checkpoints: a window reads at most this many rows before its first. */
export const CSV_CHECKPOINT_EVERY = 1_024;

/** Bounds on what Cellar reads of a CSV; beyond them the file is unreadable (422). */
export const CSV_LIMITS = {
  /** Columns in a row: a workbook's limit (XFD). */
  maxColumns: 16_384,
  /** Bytes in one cell. */
  maxCellBytes: 128 * 1024,
  /** Bytes in one row. */
  maxRowBytes: 4 * 1024 ** 2,
} as const;

/** Bounds on a workbook's parts; beyond them it is unreadable (422). */
export const WORKBOOK_LIMITS = {
  maxSheets: 256,
  /** Shared strings, and their characters together: they are held in memory while the sheets are read. */
  maxSharedStrings: 1_000_000,
  maxSharedStringChars: 16 * 1024 ** 2,
  /** Number formats in its styles: Excel allows about 250 of a workbook's own. */
  maxNumberFormats: 4_096,
  /** Defined names kept for formulas; past them, a formula using another gives `#NAME?`. */
  maxDefinedNames: 10_000,
  /** Tables kept for formulas' structured references; past them, such a reference is left uncomputed. */
  maxTables: 1_000,
  /** Columns of one table kept (a sheet's). */
  maxTableColumns: 16_384,
} as const;

/**
 * Bounds on what Cellar keeps of how a workbook looks; beyond them the rest is left out
 * (the workbook is still read), so that a hostile file cannot swell the index every
 * request of its file reads.
 */
export const PRESENTATION_LIMITS = {
  /** Characters in a number format's code (Excel's own limit): a longer one shows as General. */
  maxFormatCodeLength: 255,
  /** Merged areas listed, all sheets together, in sheet order. */
  maxMergedRanges: 50_000,
  /** Runs of neighbouring columns of one width of their own, all sheets together; other columns show the default width. */
  maxColumnRuns: 16_384,
} as const;

/**
 * The longest run of characters allowed between two `<` or two `>`: a text node or a
 * tag. A cell holds at most 32,767 characters; escaped (`&amp;` is five), that is under
 * 164 Ki characters. Without the bound, a single text node of 500 MiB would be held whole.
 */
export const MAX_XML_RUN = 1024 * 1024;

/** Bounds on what Cellar inflates of a workbook; beyond them it is unreadable (422). */
export const ZIP_LIMITS = {
  /** Entries in the archive. */
  maxEntries: 10_000,
  /** Bytes one part may inflate to. */
  maxPartBytes: 1024 ** 3,
  /** How many times its stored size a part larger than `ratioFromBytes` may inflate to. */
  maxRatio: 200,
  ratioFromBytes: 8 * 1024 ** 2,
} as const;
