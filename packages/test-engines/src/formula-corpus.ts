import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type Unzipped, unzipSync, zipSync } from "fflate";
import { attributeOf, xmlEvents } from "./xml-events.js";

/** A formula cell of a workbook, with the result Excel (or whatever wrote the file) stored for it. */
export interface StoredFormulaResult {
  /** The worksheet's name, as the workbook names it. */
  readonly sheet: string;
  /** The cell's A1 address, such as `B7`. */
  readonly cell: string;
  /** The formula's text as stored (no leading `=`); "" in a shared formula's cells after its first. */
  readonly formula: string;
  /** Whether the cell belongs to a shared formula (`<f t="shared">`), its first cell included. */
  readonly shared: boolean;
  /** Whether the formula is an array formula's (`<f t="array">`, stored in its range's first cell). */
  readonly array: boolean;
  /**
   * The stored result: a number for `n`, a boolean for `b`, the text for `s` (from the shared
   * strings), `str` and `d` (an ISO 8601 date), the error's text for `e` (`#DIV/0!`); `null`
   * when no result is stored. Text has OOXML's `_xHHHH_` escapes decoded.
   */
  readonly value: string | number | boolean | null;
  /** The cell's type (its `t`, `n` when absent; an inline string counts as `str`). */
  readonly type: "n" | "s" | "b" | "e" | "str" | "d";
}

/** The workbooks of the apache/poi corpus that this checkout pins: see `corpus/poi-spreadsheets.json`. */
export interface PoiCorpusManifest {
  readonly repository: string;
  /** The apache/poi commit the files are taken from. */
  readonly commit: string;
  readonly files: readonly {
    /** The file's path in apache/poi, such as `test-data/spreadsheet/46535.xlsx`. */
    readonly path: string;
    readonly sha256: string;
    /** How many formula cells `storedFormulaResults` finds in it. */
    readonly formulas: number;
  }[];
}

/** A workbook of the corpus, as it is in apache/poi. */
export interface CorpusFile {
  readonly path: string;
  readonly bytes: Uint8Array;
  /** How many formula cells the manifest says it has. */
  readonly formulas: number;
}

/**
 * Every formula cell of every worksheet of an XLSX (or XLSM) workbook, in the order of the
 * workbook's sheets and of each sheet's cells, with its result as stored in the file: what a
 * formula engine computing the workbook should find again. The sheets are those
 * `xl/workbook.xml` lists, found through its relationships; chart sheets and macro sheets
 * are left out. Throws on a file that is not a zip, not SpreadsheetML (an encrypted workbook
 * is an OLE2 file, not a zip) or strict OOXML.
 */
export async function storedFormulaResults(bytes: Uint8Array): Promise<StoredFormulaResult[]> {
  const book = readWorkbook(unzipSync(bytes, { filter: ({ name }) => /\.(xml|rels)$/i.test(name) }));
  const sharedStrings = book.sharedStrings === undefined ? [] : readSharedStrings(book.text(book.sharedStrings));
  const results: StoredFormulaResult[] = [];
  for (const sheet of book.worksheets) {
    for (const cell of formulaCellsOf(book.text(sheet.entry))) {
      results.push({
        sheet: sheet.name,
        cell: cell.address,
        formula: cell.formula,
        shared: cell.formulaType === "shared",
        array: cell.formulaType === "array",
        ...storedValue(cell, sharedStrings),
      });
    }
  }
  return results;
}

/**
 * The same workbook without the results stored for its formulas: from every cell of every
 * worksheet that has an `<f>`, its `<v>` (or inline string) and its `t` attribute are cut,
 * and the rest of each part is kept as written, `xl/calcChain.xml` included. What a formula
 * engine is given to compute, when its answers are compared with `storedFormulaResults`.
 */
export function withoutStoredResults(bytes: Uint8Array): Uint8Array {
  const parts = unzipSync(bytes);
  const book = readWorkbook(parts);
  const encoder = new TextEncoder();
  for (const entry of new Set(book.worksheets.map((sheet) => sheet.entry))) {
    const xml = book.text(entry);
    const cuts = [...formulaCellsOf(xml)].flatMap((cell) => [
      ...(cell.typeSpan ? [cell.typeSpan] : []),
      ...cell.results,
    ]);
    if (cuts.length === 0) continue;
    let kept = "";
    let at = 0;
    for (const cut of cuts.sort((a, b) => a.start - b.start)) {
      kept += xml.slice(at, cut.start);
      at = cut.end;
    }
    parts[entry] = encoder.encode(kept + xml.slice(at));
  }
  // A fixed time on every entry: the same workbook in gives the same bytes out.
  return zipSync(parts, { level: 6, mtime: new Date(2000, 0, 1) });
}

/** The manifest of the apache/poi corpus, as committed. */
export function poiCorpusManifest(): PoiCorpusManifest {
  const file = join(ancestorWith(HERE, "corpus/poi-spreadsheets.json"), "corpus/poi-spreadsheets.json");
  return JSON.parse(readFileSync(file, "utf8")) as PoiCorpusManifest;
}

/** Where the corpus's files are kept: `CELLAR_POI_CORPUS_DIR`, or `.cache/poi-corpus/` in this checkout. */
export function poiCorpusDir(): string {
  return process.env.CELLAR_POI_CORPUS_DIR || join(ancestorWith(HERE, "pnpm-workspace.yaml"), ".cache", "poi-corpus");
}

/** Where the corpus keeps a file of the manifest: by its name, as they all come from one folder. */
export function poiCorpusFile(path: string): string {
  return join(poiCorpusDir(), posix.basename(path));
}

/**
 * The corpus's workbooks that are there and are what the manifest pins (by SHA-256), or, when
 * none is, one line saying how to get them. The files come from apache/poi's git history and
 * are not committed here: `scripts/poi-corpus` extracts them.
 */
export function poiCorpus(): { files: CorpusFile[] } | { absent: string } {
  const manifest = poiCorpusManifest();
  const files: CorpusFile[] = [];
  for (const { path, sha256, formulas } of manifest.files) {
    const file = poiCorpusFile(path);
    if (!existsSync(file)) continue;
    const bytes = new Uint8Array(readFileSync(file));
    if (createHash("sha256").update(bytes).digest("hex") === sha256) files.push({ path, bytes, formulas });
  }
  if (files.length > 0) return { files };
  const inCwd = relative(process.cwd(), poiCorpusDir());
  const dir = inCwd === "" ? "." : inCwd.startsWith("..") ? poiCorpusDir() : inCwd;
  return {
    absent: `The apache/poi workbook corpus is not in ${dir}: run scripts/poi-corpus to extract it from a git mirror of apache/poi (path as argument or POI_GIT_DIR).`,
  };
}

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const STRICT_MAIN = "http://purl.oclc.org/ooxml/spreadsheetml/main";
const RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PACKAGE_RELATIONSHIPS = "http://schemas.openxmlformats.org/package/2006/relationships";
const CELL_TYPES = new Set(["n", "s", "b", "e", "str", "d", "inlineStr"]);

function ancestorWith(from: string, entry: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, entry))) return dir;
    if (dirname(dir) === dir) throw new Error(`No folder above ${from} has ${entry}`);
  }
}

interface Workbook {
  /** The text of a part, by its zip entry's name. */
  text(entry: string): string;
  readonly worksheets: readonly { readonly name: string; readonly entry: string }[];
  readonly sharedStrings: string | undefined;
}

function readWorkbook(parts: Unzipped): Workbook {
  // Part names are case-insensitive (OPC); some writers use backslashes or a leading slash.
  const entries = new Map(Object.keys(parts).map((name) => [partName(name), name]));
  const entryOf = (part: string) => entries.get(partName(part));
  const text = (entry: string) => decodePart(parts[entry] as Uint8Array, entry);
  const relationshipsOf = (source: string) => {
    const rels = entryOf(posix.join(posix.dirname(source), "_rels", `${posix.basename(source)}.rels`));
    return rels === undefined ? [] : readRelationships(text(rels), source);
  };
  const workbookPart = relationshipsOf("/").find(({ type }) => type.endsWith("/officeDocument"))?.target;
  const workbook = workbookPart === undefined ? undefined : entryOf(workbookPart);
  if (workbookPart === undefined || workbook === undefined) throw new Error("Not a workbook: no office document");
  const sheets = readSheets(text(workbook));
  const relationships = new Map(relationshipsOf(workbookPart).map((relationship) => [relationship.id, relationship]));
  const worksheets = sheets.flatMap(({ name, id }) => {
    const relationship = relationships.get(id);
    const entry = relationship?.type.endsWith("/worksheet") ? entryOf(relationship.target) : undefined;
    return entry === undefined ? [] : [{ name, entry }];
  });
  const sharedStringsPart = [...relationships.values()].find(({ type }) => type.endsWith("/sharedStrings"));
  return { text, worksheets, sharedStrings: sharedStringsPart && entryOf(sharedStringsPart.target) };
}

function partName(name: string): string {
  return name.replace(/\\/g, "/").replace(/^\/+/, "").toLowerCase();
}

function decodePart(bytes: Uint8Array, entry: string): string {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new Error(`${entry} is UTF-16, which is not read here`);
  }
  // The byte order mark, if any, is kept as text before the root, so a rewritten part keeps it.
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
}

function readRelationships(xml: string, source: string) {
  const relationships: { id: string; type: string; target: string }[] = [];
  for (const event of xmlEvents(xml)) {
    if (event.kind !== "open" || event.name !== "Relationship" || event.namespace !== PACKAGE_RELATIONSHIPS) continue;
    const target = attributeOf(event, "Target")?.value;
    if (target === undefined || attributeOf(event, "TargetMode")?.value === "External") continue;
    const path = safeDecodeUri(target.split("#")[0] as string);
    relationships.push({
      id: attributeOf(event, "Id")?.value ?? "",
      type: attributeOf(event, "Type")?.value ?? "",
      target: path.startsWith("/") ? posix.normalize(path) : posix.join(posix.dirname(source), path),
    });
  }
  return relationships;
}

function safeDecodeUri(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}

function readSheets(xml: string): { name: string; id: string }[] {
  const sheets: { name: string; id: string }[] = [];
  const path: string[] = [];
  for (const event of xmlEvents(xml)) {
    if (event.kind === "close") path.pop();
    if (event.kind !== "open") continue;
    if (path.length === 0 && event.namespace === STRICT_MAIN) throw new Error("Strict OOXML, which is not read here");
    if (path.length === 0 && event.namespace !== MAIN)
      throw new Error(`Not SpreadsheetML: <${event.name}> in ${event.namespace}`);
    path.push(elementName(event));
    if (path.length === 3 && path[1] === "sheets" && path[2] === "sheet") {
      sheets.push({
        name: attributeOf(event, "name")?.value ?? "",
        id: attributeOf(event, "id", RELATIONSHIPS)?.value ?? "",
      });
    }
  }
  return sheets;
}

/** An element's name: its local name in SpreadsheetML's namespace, its namespace and name otherwise. */
function elementName(event: { readonly namespace: string; readonly name: string }): string {
  return event.namespace === MAIN ? event.name : `{${event.namespace}}${event.name}`;
}

/**
 * Whether text at this path is part of the rich or plain string (`<si>`, `<is>`) at depth
 * `item`: its `<t>`, or a run's `<t>`, but not a phonetic run's.
 */
function isStringText(path: readonly string[], item: number): boolean {
  const inside = path.length - item;
  return path.at(-1) === "t" && (inside === 2 || (inside === 3 && path.at(-2) === "r"));
}

/** Where an element is in a worksheet's cells: `row`, `row/c`, `row/c/f`, …; "" outside `<sheetData>`. */
function inSheetData(path: readonly string[]): string {
  return path[0] === "worksheet" && path[1] === "sheetData" ? path.slice(2).join("/") : "";
}

function readSharedStrings(xml: string): string[] {
  const strings: string[] = [];
  const path: string[] = [];
  let item: string | undefined;
  for (const event of xmlEvents(xml)) {
    if (event.kind === "open") {
      path.push(elementName(event));
      if (path.length === 2 && path[1] === "si") item = "";
    } else if (event.kind === "close") {
      if (path.length === 2 && item !== undefined) strings.push(unescapeXstring(item));
      if (path.length === 2) item = undefined;
      path.pop();
    } else if (item !== undefined && isStringText(path, 1)) {
      item += event.text;
    }
  }
  return strings;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

interface FormulaCellXml {
  readonly address: string;
  /** Its `<f>`'s `t`: `normal`, `shared`, `array` or `dataTable`. */
  readonly formulaType: string;
  readonly formula: string;
  /** Its `t`, and where it is written. */
  readonly type: string | undefined;
  readonly typeSpan: Span | undefined;
  /** The text of its `<v>`, or of its inline string; undefined when it has neither. */
  readonly value: string | undefined;
  /** Where its `<v>` and inline string are written. */
  readonly results: readonly Span[];
}

/** The cells of a worksheet's `<sheetData>` that have a formula, with where their parts are written. */
function* formulaCellsOf(xml: string): Generator<FormulaCellXml> {
  const path: string[] = [];
  let row = 0;
  let column = 0;
  let cell:
    | {
        address: string;
        type: string | undefined;
        typeSpan: Span | undefined;
        formulaType?: string;
        formula: string;
        value: string | undefined;
        results: Span[];
      }
    | undefined;
  let resultStart = 0;
  for (const event of xmlEvents(xml)) {
    if (event.kind === "open") {
      path.push(elementName(event));
      const at = inSheetData(path);
      if (at === "row") {
        const r = attributeOf(event, "r")?.value;
        row = r === undefined ? row + 1 : Number(r);
        column = 0;
      } else if (at === "row/c") {
        const reference = attributeOf(event, "r")?.value;
        const parsed = reference === undefined ? undefined : /^\$?([A-Za-z]{1,3})\$?[0-9]+$/.exec(reference);
        column = parsed ? columnNumber(parsed[1] as string) : column + 1;
        const type = attributeOf(event, "t");
        cell = {
          address: reference ?? `${columnLetters(column)}${row}`,
          type: type?.value,
          typeSpan: type && { start: type.start, end: type.end },
          formula: "",
          value: undefined,
          results: [],
        };
      } else if (cell !== undefined && at === "row/c/f") {
        cell.formulaType = attributeOf(event, "t")?.value ?? "normal";
      } else if (cell !== undefined && (at === "row/c/v" || at === "row/c/is")) {
        cell.value = "";
        resultStart = event.start;
      }
    } else if (event.kind === "close") {
      const at = inSheetData(path);
      if (cell !== undefined && (at === "row/c/v" || at === "row/c/is")) {
        cell.results.push({ start: resultStart, end: event.end });
      } else if (cell !== undefined && at === "row/c") {
        if (cell.formulaType !== undefined) yield { ...cell, formulaType: cell.formulaType };
        cell = undefined;
      }
      path.pop();
    } else if (cell !== undefined) {
      const at = inSheetData(path);
      if (at === "row/c/f") cell.formula += event.text;
      else if (at === "row/c/v" || (at.startsWith("row/c/is/") && isStringText(path, 4))) cell.value += event.text;
    }
  }
}

function columnNumber(letters: string): number {
  return [...letters.toUpperCase()].reduce((number, letter) => number * 26 + letter.charCodeAt(0) - 64, 0);
}

function columnLetters(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

function storedValue(
  cell: FormulaCellXml,
  sharedStrings: readonly string[],
): Pick<StoredFormulaResult, "value" | "type"> {
  const type = cell.type ?? "n";
  if (!CELL_TYPES.has(type)) throw new Error(`Cell ${cell.address} has an unknown type "${type}"`);
  const text = cell.value;
  if (type === "inlineStr") return { type: "str", value: text === undefined ? null : unescapeXstring(text) };
  const known = type as StoredFormulaResult["type"];
  if (text === undefined || (text.trim() === "" && known !== "str")) return { type: known, value: null };
  switch (known) {
    case "n":
      return { type: known, value: Number(text) };
    case "b":
      return { type: known, value: text.trim() === "1" || text.trim() === "true" };
    case "s": {
      const value = sharedStrings[Number(text)];
      if (value === undefined) throw new Error(`Cell ${cell.address} names shared string ${text}, which is not there`);
      return { type: known, value };
    }
    case "str":
      return { type: known, value: unescapeXstring(text) };
    default:
      return { type: known, value: text };
  }
}

/** OOXML writes a character XML cannot carry as `_xHHHH_` (and a literal `_x` as `_x005F_x`). */
function unescapeXstring(text: string): string {
  return text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
