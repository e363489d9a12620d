import { type SpreadsheetReader, SpreadsheetUnreadableError } from "@cellar/core";
import { csvToWorkbook, workbookSheetToCsv } from "./convert/conversions.js";
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
    convert({ kind, index, sheet, to, size, openFile, openRows }) {
      if (kind === "xlsx" && to === "csv") return workbookSheetToCsv(index, sheet, openRows);
      if (kind === "csv" && to === "xlsx") return csvToWorkbook(index, size, openFile);
      throw new SpreadsheetUnreadableError(`a ${kind} file does not convert to ${to}.`);
    },
  };
}
