import { SpreadsheetUnreadableError } from "@cellar/core";
import { WORKBOOK_LIMITS } from "../limits.js";
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
  readonly sharedStrings: readonly string[];
}

/** What a number format shows a number as. */
export type NumberKind = "number" | "date" | "time" | "datetime";

function unreadable(message: string): SpreadsheetUnreadableError {
  return new SpreadsheetUnreadableError(message);
}

/** A part's path from a relationship target, relative to the part that holds the relationships. */
function resolvePart(from: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const parts = from.split("/").slice(0, -1);
  for (const piece of target.split("/")) {
    if (piece === "..") parts.pop();
    else if (piece !== "." && piece !== "") parts.push(piece);
  }
  return parts.join("/");
}

function relationshipsPartOf(part: string): string {
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

/** Reads what every sheet needs: the sheet list, the date system, the styles' number kinds, the shared strings. */
export async function readWorkbook(zip: ZipArchive): Promise<Workbook> {
  const root = await readRelationships(zip, "");
  const officeDocument = [...root.values()].find((r) => r.type.endsWith("/officeDocument"))?.part ?? "xl/workbook.xml";
  if (!zip.has(officeDocument)) throw unreadable(`the workbook part ${officeDocument} is missing.`);
  const related = await readRelationships(zip, officeDocument);
  const sheets: WorkbookSheet[] = [];
  let date1904 = false;
  await parseXmlPart(await zip.open(officeDocument), officeDocument, {
    open(name, attributes) {
      if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
      if (name !== "sheet") return;
      if (sheets.length >= WORKBOOK_LIMITS.maxSheets)
        throw unreadable(`it has more than ${WORKBOOK_LIMITS.maxSheets} sheets.`);
      const id = Object.entries(attributes).find(([key]) => key === "r:id" || key.endsWith(":id"))?.[1];
      const target = id === undefined ? undefined : related.get(id);
      // Chart sheets and dialog sheets hold no cells: they are not listed.
      if (target === undefined || !target.type.endsWith("/worksheet")) return;
      const sheetName = attributes.name ?? `Sheet${sheets.length + 1}`;
      if (sheets.some((sheet) => sheet.name === sheetName))
        throw unreadable(`two sheets are named ${JSON.stringify(sheetName)}.`);
      sheets.push({ name: sheetName, part: target.part });
    },
    close() {},
    text() {},
  });
  const styles = [...related.values()].find((r) => r.type.endsWith("/styles"))?.part;
  const strings = [...related.values()].find((r) => r.type.endsWith("/sharedStrings"))?.part;
  return {
    sheets,
    date1904,
    styleKinds: styles !== undefined && zip.has(styles) ? await readStyleKinds(zip, styles) : [],
    sharedStrings: strings !== undefined && zip.has(strings) ? await readSharedStrings(zip, strings) : [],
  };
}

/** The number formats built into every workbook that show dates or times (ECMA-376 §18.8.30). */
const BUILT_IN_KINDS = new Map<number, NumberKind>([
  [14, "date"],
  [15, "date"],
  [16, "date"],
  [17, "date"],
  [18, "time"],
  [19, "time"],
  [20, "time"],
  [21, "time"],
  [22, "datetime"],
  [45, "time"],
  [46, "time"],
  [47, "time"],
  ...[27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58].map((id) => [id, "date"] as [number, NumberKind]),
  ...[32, 33, 55, 56].map((id) => [id, "time"] as [number, NumberKind]),
]);

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

async function readStyleKinds(zip: ZipArchive, part: string): Promise<NumberKind[]> {
  const formats = new Map<number, string>();
  const kinds: NumberKind[] = [];
  const cellFormatIds: number[] = [];
  let inCellXfs = false;
  await parseXmlPart(await zip.open(part), part, {
    open(name, attributes) {
      if (name === "numFmt" && attributes.numFmtId !== undefined) {
        formats.set(Number(attributes.numFmtId), attributes.formatCode ?? "");
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
  for (const id of cellFormatIds) {
    const custom = formats.get(id);
    kinds.push(custom !== undefined ? kindOfFormat(custom) : (BUILT_IN_KINDS.get(id) ?? "number"));
  }
  return kinds;
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

const DAY_MS = 86_400_000;

/**
 * A serial date-time as ISO 8601: `2026-01-31`, `13:45:00` or `2026-01-31T13:45:00`, to
 * the second. In the 1900 system serial 1 is 1900-01-01 and 60 is the 29 February 1900
 * that Lotus 1-2-3 believed in (kept as that text); in the 1904 system 0 is 1904-01-01.
 */
export function serialToIso(serial: number, kind: Exclude<NumberKind, "number">, date1904: boolean): string {
  let days = Math.floor(serial);
  let seconds = Math.round((serial - days) * 86_400);
  if (seconds === 86_400) {
    days++;
    seconds = 0;
  }
  const time = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60]
    .map((part) => String(part).padStart(2, "0"))
    .join(":");
  if (kind === "time") return time;
  let date: string;
  if (!date1904 && days === 60) {
    date = "1900-02-29";
  } else {
    const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
    date = new Date(epoch + days * DAY_MS).toISOString().slice(0, 10);
  }
  return kind === "date" ? date : `${date}T${time}`;
}
