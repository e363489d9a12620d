import { type SpreadsheetReader, SpreadsheetUnreadableError } from "@cellar/core";
import { analyseCsv, csvWindow } from "./csv/csv-reader.js";

export { CSV_CHECKPOINT_EVERY, CSV_LIMITS, CSV_SHEET_NAME } from "./csv/csv-reader.js";

/**
 * The version of the indexes this reader makes: raise it whenever what an index holds or
 * means changes, and every file is read again on its next use.
 */
export const SHEET_READER_VERSION = 1;

/** Cellar's spreadsheet reader: CSV (and, in a later version, XLSX). */
export function createSpreadsheetReader(): SpreadsheetReader {
  return {
    version: SHEET_READER_VERSION,
    async analyse({ kind, openFile }) {
      if (kind === "xlsx")
        throw new SpreadsheetUnreadableError("reading the cells of .xlsx files is not available yet.");
      return analyseCsv(openFile, SHEET_READER_VERSION);
    },
    async window({ kind, index, rectangle, size, openFile }) {
      if (kind === "xlsx")
        throw new SpreadsheetUnreadableError("reading the cells of .xlsx files is not available yet.");
      return csvWindow({ index, rectangle, size, openFile });
    },
    // biome-ignore lint/correctness/useYield: conversion comes with the XLSX reader.
    async *convert() {
      throw new SpreadsheetUnreadableError("conversion is not available yet.");
    },
  };
}
