import {
  type FormulaEngine,
  isStructureChange,
  type SpreadsheetReader,
  SpreadsheetUnreadableError,
  type SpreadsheetWriter,
  type StructureChange,
} from "@cellar/core";

export {
  CSV_CHECKPOINT_EVERY,
  CSV_LIMITS,
  CSV_SHEET_NAME,
  MAX_XML_RUN,
  PRESENTATION_LIMITS,
  WORKBOOK_LIMITS,
  ZIP_LIMITS,
} from "./limits.js";

/**
 * The version of the indexes this reader makes: raise it whenever what an index holds or
 * means changes, and every file is read again on its next use.
 */
export const SHEET_READER_VERSION = 5;

/**
 * The parsers (yauzl, saxes, yazl, iconv-lite and Cellar's own) are loaded on first use:
 * a server that is never asked about a spreadsheet's cells never holds them in memory.
 */
let reading: Promise<typeof import("./reading.js")> | undefined;
const load = () => {
  reading ??= import("./reading.js");
  return reading;
};

/**
 * Cellar's spreadsheet reader: CSV and XLSX. With a formula engine, a workbook's formulas
 * that hold no result (as scripts write them) are computed as it is read (decisions §8).
 */
export function createSpreadsheetReader(
  options: {
    /** Loads the engine on the first workbook read through that has a formula (a server that reads none never holds it). */
    loadEngine?: () => Promise<FormulaEngine>;
  } = {},
): SpreadsheetReader {
  let engine: Promise<FormulaEngine> | undefined;
  return {
    version: SHEET_READER_VERSION,
    async analyse({ kind, size, openFile, writeRows }) {
      const parsers = await load();
      if (kind === "xlsx") {
        const { loadEngine } = options;
        return parsers.analyseXlsx(
          engine !== undefined
            ? { size, openFile, writeRows, engine: await engine }
            : loadEngine === undefined
              ? { size, openFile, writeRows }
              : {
                  size,
                  openFile,
                  writeRows,
                  // Loaded once, by the first workbook that has a formula.
                  loadEngine: () => {
                    engine ??= loadEngine();
                    return engine;
                  },
                },
          SHEET_READER_VERSION,
        );
      }
      return parsers.analyseCsv(openFile, SHEET_READER_VERSION);
    },
    async window({ kind, index, sheet, rectangle, render = "raw", size, openFile, openRows }) {
      const parsers = await load();
      if (kind === "xlsx") return parsers.xlsxWindow({ index, sheet, rectangle, render, openRows });
      // A CSV's cells are text already: formatted, they are what they are.
      return parsers.csvWindow({ index, rectangle, size, openFile });
    },
    find({ kind, index, size, openFile, key }) {
      // A CSV's records are searched as they are scanned; a workbook's cells through windows (core).
      if (kind !== "csv") return null;
      return (async function* () {
        const parsers = await load();
        yield* parsers.csvFind({ index, size, openFile, key });
      })();
    },
    async formulas({ index, openRows }) {
      const parsers = await load();
      return parsers.readKeptFormulas(index, openRows);
    },
    convert({ kind, index, sheet, to, size, openFile, openRows }) {
      if (!((kind === "xlsx" && to === "csv") || (kind === "csv" && to === "xlsx"))) {
        throw new SpreadsheetUnreadableError(`a ${kind} file does not convert to ${to}.`);
      }
      return (async function* () {
        const parsers = await load();
        yield* kind === "xlsx"
          ? parsers.workbookSheetToCsv(index, sheet, openRows)
          : parsers.csvToWorkbook(index, size, openFile);
      })();
    },
  };
}

/** Cellar's spreadsheet writer: cells written into CSV and XLSX files, and their structure changed. */
export function createSpreadsheetWriter(): SpreadsheetWriter {
  return {
    write({ kind, index, size, openFile, sheets }) {
      let written: ReturnType<SpreadsheetWriter["write"]> | undefined;
      const writing = load().then((parsers) => {
        written =
          kind === "xlsx"
            ? parsers.writeXlsx({ index, size, openFile, sheets })
            : parsers.writeCsv({ index, size, openFile, writes: sheets[0]?.writes ?? [] });
        return written;
      });
      return {
        content: (async function* () {
          yield* (await writing).content;
        })(),
        index: () => written?.index() ?? null,
        added: async () => {
          const loaded = await writing;
          return loaded.added === undefined ? null : loaded.added();
        },
        // Both name the bytes they keep: a CSV's records, a workbook's parts and segments.
        parts: () =>
          (async function* () {
            const loaded = await writing;
            yield* loaded.parts?.() ?? loaded.content;
          })(),
      };
    },
    restructure({ kind, index, size, openFile, operations, formulas }) {
      return {
        content: (async function* () {
          if (kind === "xlsx") {
            if (formulas === undefined) {
              throw new SpreadsheetUnreadableError(
                "this server has no formula engine, and a workbook's formulas must follow its cells.",
              );
            }
            const parsers = await load();
            yield* parsers.restructureXlsx({ size, openFile, operations, engine: formulas }).content;
            return;
          }
          const changes = operations.filter(
            (operation): operation is StructureChange =>
              isStructureChange(operation) && !operation.kind.endsWith("_sheet"),
          );
          if (changes.length !== operations.length) {
            throw new SpreadsheetUnreadableError("a CSV has one sheet: its rows and columns change, not its sheets.");
          }
          const parsers = await load();
          yield* parsers.restructureCsv({ index, size, openFile, changes });
        })(),
        // Rows and columns moved: the new content is read through again.
        index: () => null,
      };
    },
  };
}
