import { type DefinedName, parseA1Range, SpreadsheetUnreadableError, type WorkbookTable } from "@cellar/core";
import { PRESENTATION_LIMITS, WORKBOOK_LIMITS } from "../limits.js";
import { BUILT_IN_FORMATS, isGeneral } from "./number-formats.js";
import { parseXmlPart } from "./xml-parts.js";
import type { ZipArchive } from "./zip-archive.js";

export interface WorkbookSheet {
  readonly name: string;
  /** The sheet's part, e.g. `xl/worksheets/sheet1.xml`. */
  readonly part: string;
}

export interface Workbook {
  readonly sheets: readonly WorkbookSheet[];
  /** Dates count from 1904-01-01 instead of 1900-01-01. */
  readonly date1904: boolean;
  /** Per cell style index: what its number format shows a number as. */
  readonly styleKinds: readonly NumberKind[];
  /** Per cell style index: its number format's code, or null for General (or a code too long to keep). */
  readonly styleFormats: readonly (string | null)[];
  readonly sharedStrings: readonly string[];
  /** Its defined names that formulas may use (at most `WORKBOOK_LIMITS.maxDefinedNames`). */
  readonly definedNames: readonly DefinedName[];
}

/** What a number format shows a number as. */
export type NumberKind = "number" | "date" | "time" | "datetime";

function unreadable(message: string): SpreadsheetUnreadableError {
  return new SpreadsheetUnreadableError(message);
}

/** A part's path from a relationship target, relative to the part that holds the relationships. */
export function resolvePart(from: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = from.split("/").slice(0, -1);
  for (const piece of target.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== "." && piece !== "") parts.push(piece);
  }
  return parts.join("/");
}

export function relationshipsPartOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** Relationship ids to their targets' part names. */
async function readRelationships(zip: ZipArchive, of: string): Promise<Map<string, { type: string; part: string }>> {
  const relationships = new Map<string, { type: string; part: string }>();
  const part = relationshipsPartOf(of);
  if (!zip.has(part)) return relationships;
  await parseXmlPart(await zip.open(part), part, {
    open(name, attributes) {
      if (name !== "Relationship" || attributes.TargetMode === "External") return;
      const { Id: id, Target: target, Type: type = "" } = attributes;
      if (id !== undefined && target !== undefined) relationships.set(id, { type, part: resolvePart(of, target) });
    },
    close() {},
    text() {},
  });
  return relationships;
}

/** Where a workbook's parts are: its workbook part, that part's relationships, and its worksheets in order. */
export interface SheetList {
  /** The workbook part, e.g. `xl/workbook.xml`. */
  readonly officeDocument: string;
  /** The workbook part's relationships: id to type and part. */
  readonly related: ReadonlyMap<string, { readonly type: string; readonly part: string }>;
  readonly sheets: readonly WorkbookSheet[];
  readonly date1904: boolean;
  readonly definedNames: readonly DefinedName[];
}

/** The workbook part and its worksheets, in the order the workbook lists them (chart and dialog sheets left out). */
export async function readSheetList(zip: ZipArchive): Promise<SheetList> {
  const root = await readRelationships(zip, "");
  const officeDocument = [...root.values()].find((r) => r.type.endsWith("/officeDocument"))?.part ?? "xl/workbook.xml";
  if (!zip.has(officeDocument)) throw unreadable(`the workbook part ${officeDocument} is missing.`);
  const related = await readRelationships(zip, officeDocument);
  const sheets: WorkbookSheet[] = [];
  let date1904 = false;
  // A name of one sheet says which by its place among all the workbook's sheets, chart sheets included.
  const listed: (number | null)[] = [];
  const named: { name: string; localSheetId: number | null; text: string[] }[] = [];
  let naming: (typeof named)[number] | null = null;
  await parseXmlPart(await zip.open(officeDocument), officeDocument, {
    open(name, attributes) {
      if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
      if (name === "definedName" && attributes.name !== undefined && named.length < WORKBOOK_LIMITS.maxDefinedNames) {
        const local = attributes.localSheetId === undefined ? null : Number(attributes.localSheetId);
        naming = { name: attributes.name, localSheetId: Number.isInteger(local) ? local : null, text: [] };
        named.push(naming);
      }
      if (name !== "sheet") return;
      if (sheets.length >= WORKBOOK_LIMITS.maxSheets)
        throw unreadable(`it has more than ${WORKBOOK_LIMITS.maxSheets} sheets.`);
      const id = Object.entries(attributes).find(([key]) => key === "r:id" || key.endsWith(":id"))?.[1];
      const target = id === undefined ? undefined : related.get(id);
      // Chart sheets and dialog sheets hold no cells: they are not listed.
      if (target === undefined || !target.type.endsWith("/worksheet")) {
        listed.push(null);
        return;
      }
      const sheetName = attributes.name ?? `Sheet${sheets.length + 1}`;
      if (sheets.some((sheet) => sheet.name === sheetName))
        throw unreadable(`two sheets are named ${JSON.stringify(sheetName)}.`);
      listed.push(sheets.length);
      sheets.push({ name: sheetName, part: target.part });
    },
    close(name) {
      if (name === "definedName") naming = null;
    },
    text(text) {
      if (naming !== null && naming.text.length < 64) naming.text.push(text);
    },
  });
  const definedNames: DefinedName[] = named.flatMap(({ name, localSheetId, text }) => {
    const sheet = localSheetId === null ? null : (listed[localSheetId] ?? undefined);
    const refersTo = text.join("").slice(0, 8_192);
    return sheet === undefined || refersTo === "" ? [] : [{ name, sheet, refersTo }];
  });
  return { officeDocument, related, sheets, date1904, definedNames };
}

/**
 * The tables of a workbook's sheets (Excel's "Format as Table"), which formulas name by
 * structured references: at most `WORKBOOK_LIMITS.maxTables`; one that cannot be read is
 * left out (its references stay uncomputed).
 */
export async function readTables(zip: ZipArchive, sheets: readonly WorkbookSheet[]): Promise<WorkbookTable[]> {
  const tables: WorkbookTable[] = [];
  for (const [sheet, { part }] of sheets.entries()) {
    for (const { type, part: tablePart } of (await readRelationships(zip, part)).values()) {
      if (!type.endsWith("/table") || !zip.has(tablePart)) continue;
      if (tables.length >= WORKBOOK_LIMITS.maxTables) return tables;
      let table: Omit<WorkbookTable, "columns"> | null = null;
      const columns: string[] = [];
      await parseXmlPart(await zip.open(tablePart), tablePart, {
        open(name, attributes) {
          if (name === "table") {
            const range = attributes.ref === undefined ? null : safeRange(attributes.ref);
            const tableName = attributes.displayName ?? attributes.name;
            if (range === null || tableName === undefined) return;
            table = {
              name: unescapeXstring(tableName),
              sheet,
              ...range,
              headerRows: attributes.headerRowCount === "0" ? 0 : 1,
              totalsRows: attributes.totalsRowCount !== undefined && attributes.totalsRowCount !== "0" ? 1 : 0,
            };
          } else if (name === "tableColumn" && columns.length < WORKBOOK_LIMITS.maxTableColumns) {
            columns.push(unescapeXstring(attributes.name ?? ""));
          }
        },
        close() {},
        text() {},
      });
      const found = table as Omit<WorkbookTable, "columns"> | null;
      if (found !== null && columns.length === found.lastColumn - found.firstColumn + 1) {
        tables.push({ ...found, columns });
      }
    }
  }
  return tables;
}

/** A table's `ref` (`B2:D9`) as rows and columns, or null when it is not a rectangle of cells. */
function safeRange(ref: string) {
  try {
    const range = parseA1Range(ref, "ref");
    if (range.lastRow === null || range.lastColumn === null) return null;
    return {
      firstRow: range.firstRow,
      lastRow: range.lastRow,
      firstColumn: range.firstColumn,
      lastColumn: range.lastColumn,
    };
  } catch {
    return null;
  }
}

/** Reads what every sheet needs: the sheet list, the date system, the styles' number kinds, the shared strings. */
export async function readWorkbook(zip: ZipArchive): Promise<Workbook> {
  const { related, sheets, date1904, definedNames } = await readSheetList(zip);
  const stylesPart = [...related.values()].find((r) => r.type.endsWith("/styles"))?.part;
  const strings = [...related.values()].find((r) => r.type.endsWith("/sharedStrings"))?.part;
  const styles = stylesPart !== undefined && zip.has(stylesPart) ? await readStyles(zip, stylesPart) : [];
  return {
    sheets,
    date1904,
    definedNames,
    styleKinds: styles.map((code) => (code === null ? "number" : kindOfFormat(code))),
    styleFormats: styles.map((code) => (code === null || isGeneral(code) ? null : code)),
    sharedStrings: strings !== undefined && zip.has(strings) ? await readSharedStrings(zip, strings) : [],
  };
}

/** What a format code shows a number as: its date and time letters, outside quotes, escapes and brackets. */
export function kindOfFormat(code: string): NumberKind {
  // The first section is the one for positive numbers and the one that decides.
  const section = code.split(";")[0] ?? "";
  const bare = section
    .replace(/"[^"]*"/g, "")
    .replace(/\\./g, "")
    .replace(/\[(h+|m+|s+)\]/gi, "$1")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/_.|\*./g, "");
  if (/general/i.test(bare)) return "number";
  const hasTime = /[hs]/i.test(bare) || /AM\/PM|A\/P/i.test(bare);
  const hasDate = /[yd]/i.test(bare) || (/m/i.test(bare) && !hasTime);
  if (hasDate && hasTime) return "datetime";
  if (hasDate) return "date";
  if (hasTime) return "time";
  return "number";
}

/**
 * Each cell style's number format code, by style index: the workbook's own code for its
 * `numFmtId`, else the built-in one, else null. A code longer than Excel allows is not
 * kept: its cells show as General.
 */
async function readStyles(zip: ZipArchive, part: string): Promise<(string | null)[]> {
  const formats = new Map<number, string | null>();
  const cellFormatIds: number[] = [];
  let inCellXfs = false;
  await parseXmlPart(await zip.open(part), part, {
    open(name, attributes) {
      if (name === "numFmt" && attributes.numFmtId !== undefined) {
        if (formats.size >= WORKBOOK_LIMITS.maxNumberFormats) {
          throw unreadable(`its styles hold more than ${WORKBOOK_LIMITS.maxNumberFormats} number formats.`);
        }
        const code = attributes.formatCode ?? "";
        formats.set(Number(attributes.numFmtId), code.length > PRESENTATION_LIMITS.maxFormatCodeLength ? null : code);
      } else if (name === "cellXfs") {
        inCellXfs = true;
      } else if (name === "xf" && inCellXfs) {
        if (cellFormatIds.length >= 65_536) throw unreadable("its styles hold more than 65,536 cell formats.");
        cellFormatIds.push(Number(attributes.numFmtId ?? 0));
      }
    },
    close(name) {
      if (name === "cellXfs") inCellXfs = false;
    },
    text() {},
  });
  return cellFormatIds.map((id) => (formats.has(id) ? (formats.get(id) ?? null) : (BUILT_IN_FORMATS.get(id) ?? null)));
}

async function readSharedStrings(zip: ZipArchive, part: string): Promise<string[]> {
  const strings: string[] = [];
  let chars = 0;
  let current: string[] | null = null;
  let inText = false;
  // Phonetic runs (<rPh>) are reading aids, not the string.
  let phonetic = 0;
  await parseXmlPart(await zip.open(part), part, {
    open(name, attributes) {
      if (name === "sst" && Number(attributes.uniqueCount ?? 0) > WORKBOOK_LIMITS.maxSharedStrings) {
        throw unreadable(`it declares more than ${WORKBOOK_LIMITS.maxSharedStrings} shared strings.`);
      }
      if (name === "si") current = [];
      else if (name === "rPh") phonetic++;
      else if (name === "t" && phonetic === 0) inText = true;
    },
    close(name) {
      if (name === "t") inText = false;
      else if (name === "rPh") phonetic--;
      else if (name === "si" && current !== null) {
        if (strings.length >= WORKBOOK_LIMITS.maxSharedStrings) {
          throw unreadable(`it holds more than ${WORKBOOK_LIMITS.maxSharedStrings} shared strings.`);
        }
        strings.push(unescapeXstring(current.join("")));
        current = null;
      }
    },
    text(text) {
      if (!inText || current === null) return;
      chars += text.length;
      if (chars > WORKBOOK_LIMITS.maxSharedStringChars) {
        throw unreadable(`its shared strings hold more than ${WORKBOOK_LIMITS.maxSharedStringChars} characters.`);
      }
      current.push(text);
    },
  });
  return strings;
}

/**
 * A workbook string's text: `_xHHHH_` is the character HHHH (how workbooks write what XML
 * cannot hold), and `_x005F_` an underscore, so `_x005F_x0041_` stays `_x0041_`.
 */
export function unescapeXstring(text: string): string {
  if (!text.includes("_x")) return text;
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
