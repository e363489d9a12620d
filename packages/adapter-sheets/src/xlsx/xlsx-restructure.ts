import {
  columnNumber,
  type FormulaEngine,
  invalidField,
  type OpenBytes,
  type StructureOperation,
  type WrittenContent,
} from "@cellar/core";
import {
  refuseNoVisibleSheet,
  restructuredSheet,
  SheetMoves,
  withAttribute,
  xmlDecoded,
  xmlEscaped,
} from "./sheet-restructure.js";
import { StructurePlan } from "./structure-plan.js";
import { readSheetList, relationshipsPartOf, resolvePart } from "./workbook-parts.js";
import {
  ArchiveOutput,
  deflatedWhole,
  deflating,
  markedForRecalculation,
  textOf,
  withoutOverride,
  withoutRelationships,
} from "./xlsx-writer.js";
import { openZipArchive, ZLIB_CHUNK_BYTES } from "./zip-archive.js";

const WORKSHEET_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet";
const WORKSHEET_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml";
/** A new sheet: empty, as Excel writes one. */
const NEW_SHEET = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><dimension ref="A1"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData/><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;

const escapedAttribute = (text: string) => xmlEscaped(text).replace(/"/g, "&quot;");
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A new worksheet's part, relationship and place. */
interface AddedSheet {
  readonly name: string;
  readonly part: string;
  readonly relationshipId: string;
}

/**
 * A workbook with its structure changed (decisions §9), streamed: rows and columns
 * inserted or deleted, sheets added, renamed, moved or deleted, in the order given, and
 * everything that refers to cells following them. Formulas on every sheet and defined
 * names are read anew through the formula engine (`restructure`); each worksheet whose
 * cells move is renumbered as it streams (`restructuredSheet`), with its merged cells,
 * widths, panes, conditional formats, validations and hyperlinks, and its notes, tables
 * and drawings' anchors. Formulas lose their stored results: the workbook is marked to be
 * computed again, and Cellar computes them as it reads the new version. Every part nothing
 * refers to in a moved sheet is copied as it is stored; a deleted sheet's part and its
 * relationships are left out, with the calculation chain.
 */
export function restructureXlsx(input: {
  size: number;
  openFile: OpenBytes;
  operations: readonly StructureOperation[];
  engine: Pick<FormulaEngine, "restructure" | "move">;
}): WrittenContent {
  async function* content(): AsyncGenerator<Uint8Array> {
    const zip = await openZipArchive(input.openFile, input.size);
    try {
      const { officeDocument, related, sheets } = await readSheetList(zip);
      const plan = new StructurePlan(
        sheets.map((sheet) => sheet.name),
        input.operations,
        input.engine,
      );
      const kept = new Set(plan.sheets.flatMap((sheet) => (sheet.original === null ? [] : [sheet.original])));
      const names = new Set(zip.entries().map((entry) => entry.name.toLowerCase()));
      const relationshipIds = new Set(related.keys());
      const folder = officeDocument.slice(0, officeDocument.lastIndexOf("/") + 1);
      const added = new Map<string, AddedSheet>();
      for (const sheet of plan.sheets) {
        if (sheet.original !== null) continue;
        let number = sheets.length + 1;
        while (names.has(`${folder}worksheets/sheet${number}.xml`.toLowerCase())) number++;
        const part = `${folder}worksheets/sheet${number}.xml`;
        names.add(part.toLowerCase());
        let id = number;
        while (relationshipIds.has(`rIdCellar${id}`)) id++;
        relationshipIds.add(`rIdCellar${id}`);
        added.set(sheet.name, { name: sheet.name, part, relationshipId: `rIdCellar${id}` });
      }
      const deletedParts = new Set(
        sheets.flatMap((sheet, at) =>
          kept.has(at) ? [] : [sheet.part.toLowerCase(), relationshipsPartOf(sheet.part).toLowerCase()],
        ),
      );
      const deletedIds = new Set(
        [...related.entries()].flatMap(([id, target]) =>
          deletedParts.has(target.part.toLowerCase()) && target.type.endsWith("/worksheet") ? [id] : [],
        ),
      );
      const calcChain = [...related.values()].find((r) => r.type.endsWith("/calcChain"))?.part.toLowerCase();
      const workbookRels = relationshipsPartOf(officeDocument).toLowerCase();
      const sheetByPart = new Map(sheets.map((sheet, at) => [sheet.part.toLowerCase(), at]));
      // The parts a moved sheet's notes, tables and drawings are in: their anchors move too.
      const anchoredParts = new Map<string, { sheet: number; type: string }>();
      for (const [at, sheet] of sheets.entries()) {
        if (!kept.has(at) || !plan.movesCells(at)) continue;
        const relationships = relationshipsPartOf(sheet.part);
        if (!zip.has(relationships)) continue;
        const xml = await textOf(zip, relationships);
        for (const tag of xml.match(/<([\w.-]+:)?Relationship\b[^>]*>/g) ?? []) {
          if (/TargetMode\s*=\s*["']External/.test(tag)) continue;
          const type = /Type\s*=\s*["']([^"']*)["']/.exec(tag)?.[1] ?? "";
          const target = /Target\s*=\s*["']([^"']*)["']/.exec(tag)?.[1];
          const kind = ["/comments", "/table", "/drawing", "/vmlDrawing"].find((suffix) => type.endsWith(suffix));
          if (target === undefined || kind === undefined) continue;
          anchoredParts.set(resolvePart(sheet.part, target).toLowerCase(), { sheet: at, type: kind });
        }
      }

      const archive = new ArchiveOutput();
      for (const { name, modified } of zip.entries()) {
        const key = name.toLowerCase();
        if (key === calcChain || deletedParts.has(key) || name.endsWith("/")) continue;
        if (key === officeDocument.toLowerCase()) {
          const xml = restructuredWorkbook(await textOf(zip, name), plan, related, added);
          yield* archive.add(name, modified, deflatedWhole(Buffer.from(xml)));
          continue;
        }
        if (key === workbookRels) {
          let xml = await textOf(zip, name);
          if (calcChain !== undefined) xml = withoutRelationships(xml, "calcChain");
          xml = xml.replace(/<([\w.-]+:)?Relationship\b[^>]*?\/>/g, (tag) => {
            const id = /\sId\s*=\s*["']([^"']*)["']/.exec(tag)?.[1];
            return id !== undefined && deletedIds.has(id) ? "" : tag;
          });
          const added_ = [...added.values()]
            .map(
              (sheet) =>
                `<Relationship Id="${sheet.relationshipId}" Type="${WORKSHEET_TYPE}" Target="${sheet.part.slice(folder.length)}"/>`,
            )
            .join("");
          xml = xml.replace(/<\/([\w.-]+:)?Relationships>\s*$/, (close) => `${added_}${close}`);
          yield* archive.add(name, modified, deflatedWhole(Buffer.from(xml)));
          continue;
        }
        if (key === "[content_types].xml") {
          let xml = await textOf(zip, name);
          if (calcChain !== undefined) xml = withoutOverride(xml, calcChain);
          for (const part of deletedParts) xml = withoutOverride(xml, part);
          const overrides = [...added.values()]
            .map((sheet) => `<Override PartName="/${sheet.part}" ContentType="${WORKSHEET_CONTENT_TYPE}"/>`)
            .join("");
          xml = xml.replace(/<\/([\w.-]+:)?Types>\s*$/, (close) => `${overrides}${close}`);
          yield* archive.add(name, modified, deflatedWhole(Buffer.from(xml)));
          continue;
        }
        const sheet = sheetByPart.get(key);
        if (sheet !== undefined && plan.movesReferences) {
          const source = await zip.open(name, { chunkBytes: ZLIB_CHUNK_BYTES });
          yield* archive.add(name, modified, deflating(restructuredSheet(source, new SheetMoves(plan, sheet), name)));
          continue;
        }
        const anchored = anchoredParts.get(key);
        if (anchored !== undefined) {
          const xml = movedAnchors(await textOf(zip, name), anchored.type, new SheetMoves(plan, anchored.sheet));
          yield* archive.add(name, modified, deflatedWhole(Buffer.from(xml)));
          continue;
        }
        yield* archive.add(name, modified, await zip.raw(name));
      }
      for (const sheet of added.values()) {
        yield* archive.add(sheet.part, new Date(), deflatedWhole(Buffer.from(NEW_SHEET)));
      }
      yield* archive.end();
    } finally {
      zip.close();
    }
  }
  return { content: content(), index: () => null };
}

/**
 * The workbook part after the operations: its sheets listed in their new order, renamed,
 * added and deleted (chart sheets keep their places); defined names read anew, a deleted
 * sheet's own names gone, and each name's sheet found by its new place; the active tab
 * still the sheet it was; marked to be computed again on open.
 */
function restructuredWorkbook(
  xml: string,
  plan: StructurePlan,
  related: ReadonlyMap<string, { readonly type: string; readonly part: string }>,
  added: ReadonlyMap<string, AddedSheet>,
): string {
  const list = /<([\w.-]+:)?sheets\b[^>]*>([\s\S]*?)<\/\1sheets>/.exec(xml);
  if (list === null) return markedForRecalculation(xml);
  const prefix = list[1] ?? "";
  const tags = (list[2] as string).match(new RegExp(`<${escapeRegExp(prefix)}sheet\\b[^>]*>`, "g")) ?? [];
  const idAttribute = (tag: string) => /\s([\w.-]+:id)\s*=\s*["']([^"']*)["']/.exec(tag);
  const namespace = tags.map((tag) => idAttribute(tag)?.[1]).find((name) => name !== undefined) ?? "r:id";
  // Which worksheet (by its place among them) each tag lists; null for a chart or dialog sheet.
  let worksheet = 0;
  const listed = tags.map((tag) => {
    const target = related.get(idAttribute(tag)?.[2] ?? "");
    return target?.type.endsWith("/worksheet") === true ? worksheet++ : null;
  });
  const sheetIds = tags.map((tag) => Number(/\ssheetId\s*=\s*["'](\d+)["']/.exec(tag)?.[1] ?? 0));
  let nextSheetId = Math.max(0, ...sheetIds) + 1;
  const planned = [...plan.sheets];
  const newTags: string[] = [];
  /** Each old tag's new place (null when its sheet is gone). */
  const newPlace = new Map<number, number>();
  const placeWorksheet = (sheet: (typeof planned)[number]) => {
    if (sheet.original === null) {
      const made = added.get(sheet.name);
      if (made === undefined) return;
      newTags.push(
        `<${prefix}sheet name="${escapedAttribute(sheet.name)}" sheetId="${nextSheetId++}" ${namespace}="${made.relationshipId}"/>`,
      );
      return;
    }
    const at = listed.indexOf(sheet.original);
    newPlace.set(at, newTags.length);
    newTags.push(withAttribute(tags[at] as string, "name", escapedAttribute(sheet.name)));
  };
  const lastWorksheetTag = listed.reduce<number>((last, sheet, at) => (sheet === null ? last : at), -1);
  for (const [at, tag] of tags.entries()) {
    if (listed[at] === null) {
      newPlace.set(at, newTags.length);
      newTags.push(tag);
    } else {
      const next = planned.shift();
      if (next !== undefined) placeWorksheet(next);
    }
    if (at === lastWorksheetTag) while (planned.length > 0) placeWorksheet(planned.shift() as (typeof planned)[number]);
  }
  while (planned.length > 0) placeWorksheet(planned.shift() as (typeof planned)[number]);
  if (newTags.every((tag) => /\sstate\s*=\s*["'](hidden|veryHidden)["']/.test(tag))) refuseNoVisibleSheet();

  let result = `${xml.slice(0, list.index)}<${prefix}sheets>${newTags.join("")}</${prefix}sheets>${xml.slice(list.index + list[0].length)}`;
  result = result.replace(
    /<([\w.-]+:)?definedName\b([^>]*)>([\s\S]*?)<\/\1definedName>/g,
    (element: string, namePrefix: string | undefined, attributes: string, text: string) => {
      const local = /\slocalSheetId\s*=\s*["'](\d+)["']/.exec(attributes)?.[1];
      const localTag = local === undefined ? null : Number(local);
      if (localTag !== null && !newPlace.has(localTag)) return localTag < tags.length ? "" : element;
      const sheet = localTag === null ? null : (listed[localTag] ?? null);
      if (localTag !== null && sheet === null)
        return element.replace(/localSheetId\s*=\s*["']\d+["']/, `localSheetId="${newPlace.get(localTag)}"`);
      const formula = plan.movesReferences ? xmlEscaped(plan.formula(xmlDecoded(text), sheet)) : text;
      const tag = `<${namePrefix ?? ""}definedName${attributes}>`;
      const placed = localTag === null ? tag : withAttribute(tag, "localSheetId", String(newPlace.get(localTag)));
      return `${placed}${formula}</${namePrefix ?? ""}definedName>`;
    },
  );
  result = result.replace(/<([\w.-]+:)?definedNames\b[^>]*>\s*<\/\1definedNames>/, "");
  result = result.replace(/<([\w.-]+:)?workbookView\b[^>]*>/g, (tag) => {
    const active = Number(/\sactiveTab\s*=\s*["'](\d+)["']/.exec(tag)?.[1] ?? 0);
    const view = withAttribute(tag, "firstSheet", undefined);
    const place = newPlace.get(active) ?? 0;
    return withAttribute(view, "activeTab", place === 0 ? undefined : String(place));
  });
  return markedForRecalculation(result);
}

/**
 * A moved sheet's notes (`<comment ref>`), tables (`ref`), and drawings' anchors (the
 * cells a picture or a note's box is pinned to, counted from 0), moved with its cells.
 */
function movedAnchors(xml: string, type: string, moves: SheetMoves): string {
  if (type === "/comments") {
    return xml.replace(/<([\w.-]+:)?comment\b([^>]*)>([\s\S]*?)<\/\1comment>/g, (element, _p, attributes: string) => {
      const ref = /\sref\s*=\s*["']([^"']*)["']/.exec(attributes)?.[1];
      if (ref === undefined) return element;
      const moved = moves.range(ref);
      return moved === null ? "" : element.replace(/^<[^>]*>/, (tag) => withAttribute(tag, "ref", moved));
    });
  }
  if (type === "/table") {
    const name = /<([\w.-]+:)?table\b[^>]*\sdisplayName\s*=\s*["']([^"']*)["']/.exec(xml)?.[2] ?? "a table";
    return xml.replace(
      /<([\w.-]+:)?(table|autoFilter|sortState|sortCondition)\b[^>]*>/g,
      (tag, _p, element: string) => {
        const ref = /\sref\s*=\s*["']([^"']*)["']/.exec(tag)?.[1];
        if (ref === undefined) return tag;
        const moved = moves.range(ref);
        if (element === "table") {
          // A table's columns are listed by name, and its first row holds them: a change that
          // adds or removes its columns, or takes its header row, would leave it broken.
          const [from, to = from] = ref.split(":");
          const width = (range: string) => {
            const [first, last = first] = range.split(":");
            return (
              columnNumber(/^\$?([A-Za-z]+)/.exec(last ?? "")?.[1] ?? "A") -
              columnNumber(/^\$?([A-Za-z]+)/.exec(first ?? "")?.[1] ?? "A")
            );
          };
          const headerRow = Number(/\d+/.exec(from ?? "")?.[0] ?? 0);
          if (moved === null || moves.row(headerRow) === null || width(moved) !== width(`${from}:${to}`)) {
            throw invalidField(
              "operations",
              `would change the columns or the header row of table ${name}; Cellar changes a table's rows only`,
            );
          }
        }
        return withAttribute(tag, "ref", moved ?? ref);
      },
    );
  }
  if (type === "/drawing") {
    return xml.replace(
      /(<([\w.-]+:)?(?:from|to)>\s*<\2col>)(\d+)(<\/\2col>[\s\S]*?<\2row>)(\d+)(<\/\2row>)/g,
      (_, open: string, _p, column: string, middle: string, row: string, close: string) => {
        const movedColumn = moves.column(Number(column) + 1) ?? Number(column) + 1;
        const movedRow = moves.row(Number(row) + 1) ?? Number(row) + 1;
        return `${open}${movedColumn - 1}${middle}${movedRow - 1}${close}`;
      },
    );
  }
  // A note's box in the legacy drawing: the cell it belongs to, counted from 0.
  return xml.replace(
    /(<x:Row>)(\d+)(<\/x:Row>\s*<x:Column>)(\d+)(<\/x:Column>)/g,
    (_, open: string, row: string, middle: string, column: string, close: string) =>
      `${open}${(moves.row(Number(row) + 1) ?? Number(row) + 1) - 1}${middle}${(moves.column(Number(column) + 1) ?? Number(column) + 1) - 1}${close}`,
  );
}
