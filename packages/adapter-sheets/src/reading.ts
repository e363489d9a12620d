/** The reader's parsers, loaded on a server's first spreadsheet request (index.ts). */
export { csvToWorkbook, workbookSheetToCsv } from "./convert/conversions.js";
export { analyseCsv, csvFind, csvWindow } from "./csv/csv-reader.js";
export { restructureCsv } from "./csv/csv-restructure.js";
export { writeCsv } from "./csv/csv-writer.js";
export { readKeptFormulas } from "./xlsx/stored-rows.js";
export { analyseXlsx, xlsxWindow } from "./xlsx/xlsx-reader.js";
export { restructureXlsx } from "./xlsx/xlsx-restructure.js";
export { writeXlsx } from "./xlsx/xlsx-writer.js";
