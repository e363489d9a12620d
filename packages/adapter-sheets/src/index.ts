import type { SpreadsheetReader } from "@cellar/core";
import { SpreadsheetUnreadableError } from "@cellar/core";
import { analyseCsv, csvWindow } from "./csv/csv-reader.js";
import { analyseXlsx, xlsxWindow } from "./xlsx/xlsx-reader.js";

export { CSV_CHECKPOINT_EVERY, CSV_LIMITS, CSV_SHEET_NAME } from "./csv/csv-reader.js";
export { WORKBOOK_LIMITS } from "./xlsx/workbook-parts.js";
export { MAX_XML_RUN } from "./xlsx/xml-parts.js";
export { ZIP_LIMITS } from "./xlsx/zip-archive.js";

/**
 * The version of the indexes this reader makes: raise it whenever what an index holds or
 * means changes, and every file is read again on its next use.
 */
export const SHEET_READER_VERSION = 2;

/** Cellar's spreadsheet reader: CSV and XLSX. */
export function createSpreadsheetReader(): SpreadsheetReader {
  return {
    version: SHEET_READER_VERSION,
    async analyse({ kind, size, openFile, writeRows }) {
      if (kind === "xlsx") return analyseXlsx({ size, openFile, writeRows }, SHEET_READER_VERSION);
      return analyseCsv(openFile, SHEET_READER_VERSION);
    },
    async window({ kind, index, sheet, rectangle, size, openFile, openRows }) {
      if (kind === "xlsx") return xlsxWindow({ index, sheet, rectangle, openRows });
      return csvWindow({ index, rectangle, size, openFile });
    },
    // biome-ignore lint/correctness/useYield: conversion comes next.
    async *convert() {
      throw new SpreadsheetUnreadableError("conversion is not available yet.");
    },
  };
}
