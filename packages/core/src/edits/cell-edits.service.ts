import { type JsonObject, newActivityEntry } from "../activity/activity.entity.js";
import { BlobNotFoundError, type BlobStore } from "../files/blob-store.port.js";
import { ContentHashes, dropBlob, storeCheckedBytes, storeContentParts } from "../files/checked-bytes.js";
import { encodePieces, MAX_PIECES, type WrittenPart } from "../files/content-pieces.js";
import { sheetRowsBlobKey } from "../files/derived-blob-keys.js";
import { type FileMetadata, type FileRecord, toMetadata } from "../files/file.entity.js";
import { type AuthorizedFile, authorizeFileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import { type GraphedFormulas, recalculateEdit, writesOverFormulas } from "../formulas/edit-recalculation.js";
import type { FormulaEngine } from "../formulas/formula-engine.port.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, type FieldProblem, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import { formatA1Range, MAX_COLUMNS, MAX_ROW } from "../sheets/a1-range.js";
import { readOrUnreadable, type SheetContents, sheetOf, unreadable } from "../sheets/sheet-contents.js";
import type { CellValue, ReadableSheetIndex, SheetSummary } from "../sheets/sheet-index.js";
import type { CellRectangle } from "../sheets/spreadsheet-reader.port.js";
import {
  isStructureChange,
  movedRange,
  STRUCTURE_MAX_COLUMNS,
  type StructureChange,
} from "../structure/structure-change.js";
import {
  operationJson,
  readStructureOperations,
  type StructureOperation,
  WORKBOOK_STRUCTURE_LIMITS,
} from "../structure/structure-operations.js";
import type { ContentPrecondition } from "../versions/versions.service.js";
import {
  cellCount,
  parseAppendedRows,
  parseCellInput,
  parseCellWrites,
  type RequestedWrite,
  type ValueGrid,
} from "./cell-writes.js";
import type { SheetWrites, SpreadsheetWriter, WrittenContent } from "./spreadsheet-writer.port.js";
import { type CellInput, TYPED_FORMAT_CODES, typedEntry } from "./typed-input.js";

/** The rows a workbook's sheet may reach (a CSV has no such bound but `MAX_ROW`). */
const XLSX_MAX_ROWS = 1_048_576;

/**
 * How often an edit that names no file version (cell preconditions, or an append) is
 * made again on the new content when another change committed first, before it gives up
 * with 503. Changes on one instance never race (they queue per file); this bounds
 * contention between instances.
 */
const MAX_ATTEMPTS = 20;

/** Changes of one file waiting their turn on one instance, at most; more get 503 with Retry-After. */
export const MAX_WAITING_CHANGES = 64;

export interface CellEditsDeps {
  readonly files: FileRepository;
  readonly blobs: BlobStore;
  readonly contents: SheetContents;
  /** Without one, no file's cells can be changed (`unreadable_spreadsheet`). */
  readonly writer?: SpreadsheetWriter;
  /**
   * Loads the formula engine an edit recomputes a workbook's formulas with (decisions §8),
   * on the first edit that needs it. Without one, formulas keep the results they hold.
   */
  readonly formulaEngine?: () => Promise<FormulaEngine>;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly maxUploadBytes: number;
  /** The hash states of contents stored lately, shared with uploads (`ContentHashes`). */
  readonly hashes?: ContentHashes;
  /** Told of each content an edit committed, to compact it when it has many pieces (`Compaction.compactSoon`); not awaited. */
  readonly onPieced?: (file: FileRecord) => void;
}

export interface EditedCells {
  readonly file: FileMetadata;
  /** Each range written, with its sheet, in the order asked. */
  readonly updatedRanges: string[];
  readonly updatedCells: number;
  /** Formula cells computed again because of the edit (and written with their results). */
  readonly recomputedCells: number;
}

export interface AppendedRows {
  readonly file: FileMetadata;
  /** Where the rows went, with its sheet. */
  readonly updatedRange: string;
  /** As `EditedCells.recomputedCells`. */
  readonly recomputedCells: number;
}

export type CellEditsService = ReturnType<typeof createCellEditsService>;

/** A change another writer committed first: the edit is made again on the new content, when it may be. */
class ContentMoved extends Error {}

/**
 * Changing a spreadsheet's cells: writing ranges (`editValues`), appending rows
 * (`appendRows`), and moving them (`changeStructure`: what the operations are and do is
 * `structure/`). Each request is one new version, made by the `SpreadsheetWriter` from the
 * current content and committed only if that content is still current. An edit based on
 * the whole file (`If-Match`) fails when it is not; one based on its cells (`expect`) is
 * made again on the new content and applies while its cells still hold what it expects,
 * so people editing different cells never conflict; an append always lands.
 */
export function createCellEditsService(deps: CellEditsDeps) {
  const { files, blobs, contents, clock, random } = deps;
  const hashes = deps.hashes ?? new ContentHashes();
  // One change at a time per file on this instance: they would only race each other.
  const queues = new Map<string, Promise<unknown>>();
  // Changes waiting per file: each holds its request's body, so their number is bounded.
  const waiting = new Map<string, number>();
  // The formulas graphed by the last edits, by the content they describe (which never
  // changes under its key): the next edit of that content that changes no formula
  // computes from it without reading and graphing the workbook's formulas again. Building
  // a 10,000-formula graph took most of such an edit's time (docs/performance.md).
  const graphs = new GraphedFormulasCache();

  function serialised<T>(fileId: string, change: () => Promise<T>): Promise<T> {
    const count = waiting.get(fileId) ?? 0;
    if (count >= MAX_WAITING_CHANGES) {
      return Promise.reject(
        new CellarError(
          ErrorCode.unavailable,
          `${MAX_WAITING_CHANGES} changes of this file are already waiting their turn; try again shortly.`,
          { retryAfterSeconds: 1 },
        ),
      );
    }
    waiting.set(fileId, count + 1);
    const previous = queues.get(fileId) ?? Promise.resolve();
    const next = previous.then(change, change);
    const tail = next.catch(() => {});
    queues.set(fileId, tail);
    void tail.then(() => {
      const left = (waiting.get(fileId) ?? 1) - 1;
      if (left === 0) waiting.delete(fileId);
      else waiting.set(fileId, left);
      if (queues.get(fileId) === tail) queues.delete(fileId);
    });
    return next;
  }

  async function loadAuthorized(callerId: string, fileId: string): Promise<AuthorizedFile> {
    return authorizeFileAction("edit_cells", await files.findWithRole({ id: fileId, userId: callerId }), callerId);
  }

  function writerOrRefuse(): SpreadsheetWriter {
    if (deps.writer === undefined) throw unreadable("this server writes no spreadsheet's cells.");
    return deps.writer;
  }

  /**
   * Writes `sheets` into the file's current content and commits it as the next version
   * when that content is still current; throws `ContentMoved` when another change came
   * first.
   */
  async function commitWrites(input: {
    callerId: string;
    file: FileRecord;
    index: ReadableSheetIndex;
    sheets: SheetWrites[];
    action: "cells_edited" | "rows_appended";
    details: Record<string, string | number | string[]>;
  }): Promise<FileRecord> {
    const { file } = input;
    return commitContent({
      ...input,
      write: () =>
        writerOrRefuse().write({
          kind: file.kind as "csv" | "xlsx",
          index: input.index,
          size: file.size,
          openFile: contents.contentOpener(file),
          sheets: input.sheets,
        }),
    });
  }

  /**
   * Stores what `write` makes of the file's current content and commits it as the next
   * version when that content is still current; throws `ContentMoved` when another change
   * came first.
   */
  async function commitContent(input: {
    callerId: string;
    file: FileRecord;
    write: () => WrittenContent;
    action: "cells_edited" | "rows_appended" | "structure_changed";
    details: JsonObject;
    /** For a change of structure: each comment thread's range after it, in the same step. */
    moveCommentRanges?: (range: string) => string | null;
  }): Promise<FileRecord> {
    const { file, write } = input;
    const blobKey = newId(random, "blob");
    const checked = { key: blobKey, kind: file.kind, maxBytes: deps.maxUploadBytes, hashes };
    const written = write();
    const parts = await readOrUnreadable(() => writtenParts(file, written));
    const stored = await readOrUnreadable(() =>
      parts === null
        ? storeCheckedBytes(blobs, { ...checked, content: written.content })
        : storeContentParts(blobs, { ...checked, base: file, parts }),
    );
    const at = clock.now();
    const result = await files.replaceContent({
      id: file.id,
      expectedSha256: file.sha256,
      // Not compacted since it was read: the new content refers to these pieces.
      expectedPieces: file.pieces ?? null,
      content: { blobKey, ...stored },
      at,
      authorId: input.callerId,
      ...(input.moveCommentRanges === undefined ? {} : { moveCommentRanges: input.moveCommentRanges }),
      activity: [
        newActivityEntry(random, {
          fileId: file.id,
          at,
          actorId: input.callerId,
          action: input.action,
          details: { version: file.version + 1, sha256: stored.sha256, ...input.details },
        }),
      ],
    });
    if (result.outcome !== "replaced") {
      await dropBlob(blobs, blobKey);
      if (result.outcome === "precondition_failed") throw new ContentMoved();
      // Trashed or purged meanwhile: say what it is now.
      await loadAuthorized(input.callerId, file.id);
      throw new CellarError(ErrorCode.not_found, "No such file.");
    }
    if (result.file.pieces !== undefined) deps.onPieced?.(result.file);
    const index = written.index();
    if (index === null) contents.analyseSoon(result.file);
    else {
      // The change is committed: an index that could not be kept is made again later.
      await contents.saveIndex(result.file, index).catch(() => contents.analyseSoon(result.file));
    }
    return result.file;
  }

  /**
   * What `written` makes, as parts of the file's content: only the rows added, when that
   * is all it is; else the writer's parts; or null when the content is to be stored whole
   * (a writer that names no spans, or a content of more than `MAX_PIECES` pieces).
   */
  async function writtenParts(file: FileRecord, written: WrittenContent): Promise<AsyncIterable<WrittenPart> | null> {
    if ((file.pieces?.length ?? 1) > MAX_PIECES) return null;
    const added = (await written.added?.()) ?? null;
    if (added !== null) {
      return (async function* () {
        yield { start: 0, end: file.size - 1 };
        yield* added;
      })();
    }
    return written.parts?.() ?? null;
  }

  /**
   * Runs `attempt` on the file's current content until it commits: once when the caller
   * named the content it is based on (a change since is a 412), else again after each
   * change another instance committed first.
   */
  async function untilCommitted<T>(
    callerId: string,
    fileId: string,
    precondition: Exclude<ContentPrecondition, undefined> | "cells",
    attempt: (authorized: AuthorizedFile, index: ReadableSheetIndex) => Promise<T>,
  ): Promise<T> {
    return serialised(fileId, async () => {
      for (let attempts = 1; ; attempts++) {
        const authorized = await loadAuthorized(callerId, fileId);
        const { file } = authorized;
        if (typeof precondition === "object" && precondition.sha256 !== file.sha256) throw stale(file);
        if (file.kind === "sheet") throw unreadable("a .sheet file is stored as it is; replace its content whole.");
        const index = await contents.readableIndex(file);
        try {
          return await attempt(authorized, index);
        } catch (error) {
          if (!(error instanceof ContentMoved) && !(await contentWentFrom(file, error))) throw error;
          if (typeof precondition === "object") {
            // The same content, only compacted meanwhile: made again on its new pieces.
            const now = (await loadAuthorized(callerId, fileId)).file;
            if (now.sha256 !== precondition.sha256) throw stale(now);
          }
          if (attempts >= MAX_ATTEMPTS) {
            throw new CellarError(
              ErrorCode.unavailable,
              "The file is changing too fast to apply this change; try again shortly.",
              { retryAfterSeconds: 1 },
            );
          }
        }
      }
    });
  }

  /**
   * Whether `error` is a blob of `file`'s content gone because the content moved on while
   * it was read: compacted (its old pieces let go), or changed and its old version
   * removed. The change is then made again on what is there now, as after `ContentMoved`.
   */
  async function contentWentFrom(file: FileRecord, error: unknown): Promise<boolean> {
    if (!(error instanceof BlobNotFoundError)) return false;
    const now = await files.findById(file.id);
    return (
      now !== null &&
      (now.sha256 !== file.sha256 ||
        now.blobKey !== file.blobKey ||
        encodePieces(now.pieces) !== encodePieces(file.pieces))
    );
  }

  /** The cells of `write` that do not hold what it expects, with what they hold now. */
  async function conflicts(
    file: FileRecord,
    index: ReadableSheetIndex,
    sheet: SheetSummary,
    write: RequestedWrite & { expect: ValueGrid },
  ): Promise<FieldProblem[]> {
    const { rectangle, expect } = write;
    const clipped = {
      ...rectangle,
      lastRow: Math.min(rectangle.lastRow, sheet.rowCount),
      lastColumn: Math.min(rectangle.lastColumn, sheet.columnCount),
    };
    const inside = clipped.firstRow <= clipped.lastRow && clipped.firstColumn <= clipped.lastColumn;
    const grid = inside
      ? (
          await readOrUnreadable(() =>
            contents.readerOrRefuse().window({
              kind: file.kind as "csv" | "xlsx",
              index,
              sheet: sheet.index,
              rectangle: clipped,
              size: file.size,
              openFile: contents.contentOpener(file),
              openRows: contents.opener(sheetRowsBlobKey(file.blobKey)),
            }),
          )
        ).values
      : [];
    const problems: FieldProblem[] = [];
    for (let r = 0; r < expect.length; r++) {
      const expectedRow = expect[r] as readonly CellValue[];
      for (let c = 0; c < expectedRow.length; c++) {
        const now = grid[r]?.[c] ?? null;
        const expected = expectedRow[c] ?? null;
        if (now === expected) continue;
        const cell = formatA1Range({
          sheet: sheet.name,
          firstRow: rectangle.firstRow + r,
          lastRow: rectangle.firstRow + r,
          firstColumn: rectangle.firstColumn + c,
          lastColumn: rectangle.firstColumn + c,
        });
        problems.push({
          field: write.field.replace(/range$/, "expect"),
          message: `${cell} holds ${JSON.stringify(now)}, not ${JSON.stringify(expected)}`,
          cell,
          value: now,
        });
      }
    }
    return problems;
  }

  /**
   * The writes as `input` reads their strings: for `user`, as a person types them
   * (`typedEntry`): values, formulas and the formats dates ask for, in a workbook; in a
   * CSV, every value as typed, and a formula refused, naming its cells.
   */
  function typedWrites(
    file: FileRecord,
    index: ReadableSheetIndex,
    sheets: SheetWrites[],
    input: CellInput,
    field: string,
  ): SheetWrites[] {
    if (input === "raw") return sheets;
    const date1904 = index.xlsx?.date1904 ?? false;
    const formulaCells: string[] = [];
    const typed = sheets.map((sheet) => ({
      ...sheet,
      writes: sheet.writes.map((write) => {
        let hasFormula = false;
        let hasFormat = false;
        const entries = write.values.map((line) =>
          line.map((value) => {
            const entry = typedEntry(value, date1904);
            if (entry.kind === "formula") hasFormula = true;
            else if (entry.format !== undefined) hasFormat = true;
            return entry;
          }),
        );
        if (file.kind === "csv") {
          entries.forEach((line, r) => {
            line.forEach((entry, c) => {
              if (entry.kind !== "formula") return;
              formulaCells.push(
                formatA1Range({
                  sheet: index.sheets[sheet.sheet]?.name ?? "",
                  firstRow: write.rectangle.firstRow + r,
                  lastRow: write.rectangle.firstRow + r,
                  firstColumn: write.rectangle.firstColumn + c,
                  lastColumn: write.rectangle.firstColumn + c,
                }),
              );
            });
          });
          return write;
        }
        return {
          rectangle: write.rectangle,
          values: entries.map((line) => line.map((entry) => (entry.kind === "value" ? entry.value : null))),
          ...(hasFormula
            ? {
                formulas: entries.map((line) => line.map((entry) => (entry.kind === "formula" ? entry.formula : null))),
              }
            : {}),
          ...(hasFormat
            ? {
                formats: entries.map((line) =>
                  line.map((entry) =>
                    entry.kind === "value" && entry.format !== undefined ? TYPED_FORMAT_CODES[entry.format] : null,
                  ),
                ),
              }
            : {}),
        };
      }),
    }));
    if (formulaCells.length > 0) {
      throw new CellarError(
        ErrorCode.validation_error,
        `${field}: a CSV holds no formulas, and ${formulaCells.slice(0, 5).join(", ")}${formulaCells.length > 5 ? ", …" : ""} would hold one; to write such text as it is, send it with "input": "raw".`,
        {
          details: formulaCells.map((cell) => ({ field, message: `${cell}: a CSV holds no formulas`, cell })),
        },
      );
    }
    return typed;
  }

  /**
   * The writes with the results of every formula they make stale (and of those they
   * write), when the file is a workbook whose formulas Cellar keeps; how many were computed.
   */
  async function withResults(
    file: FileRecord,
    index: ReadableSheetIndex,
    sheets: SheetWrites[],
    field: string,
  ): Promise<{ sheets: SheetWrites[]; recomputed?: number; next?: GraphedFormulas }> {
    const reader = contents.readerOrRefuse();
    if (file.kind !== "xlsx" || deps.formulaEngine === undefined || reader.formulas === undefined) return { sheets };
    const openRows = contents.opener(sheetRowsBlobKey(file.blobKey));
    // The graph the edit before left, when this edit changes no formula: not read and built again.
    const known = graphs.get(file.blobKey);
    const reused = known !== undefined && !writesOverFormulas(known.graph, sheets) ? known : undefined;
    const kept = reused ?? (await readOrUnreadable(async () => (await reader.formulas?.({ index, openRows })) ?? null));
    const writesFormulas = sheets.some((sheet) => sheet.writes.some((write) => write.formulas !== undefined));
    // Past what Cellar computes, formulas keep the results they hold (`computed: false`).
    if (kept === null || ("complete" in kept && (!kept.complete || (kept.formulas.length === 0 && !writesFormulas)))) {
      return { sheets, recomputed: 0 };
    }
    const engine = await deps.formulaEngine();
    const recalculation = await recalculateEdit({
      engine,
      formulas: kept,
      index,
      sheets,
      field,
      read: (sheet, rectangle) =>
        readOrUnreadable(() =>
          reader.window({
            kind: "xlsx",
            index,
            sheet,
            rectangle,
            size: file.size,
            openFile: contents.contentOpener(file),
            openRows,
          }),
        ),
    });
    const withResults = sheets.map((sheet) => ({ ...sheet, results: recalculation.results.get(sheet.sheet) ?? [] }));
    for (const [sheet, results] of recalculation.results) {
      if (!sheets.some((written) => written.sheet === sheet)) withResults.push({ sheet, writes: [], results });
    }
    return { sheets: withResults, recomputed: recalculation.recomputed, next: recalculation.next };
  }

  const stale = (file: FileRecord) =>
    new CellarError(
      ErrorCode.precondition_failed,
      `The file changed since: it is now version ${file.version}, "${file.sha256}".`,
    );

  return {
    /**
     * Writes one range or several (`data`) as one new version. Based on the content
     * `precondition` names (`If-Match`), or, when every range carries `expect`, on those
     * cells alone: 412 with each differing cell when they no longer hold it.
     */
    async editValues(input: {
      callerId: string;
      fileId: string;
      precondition: ContentPrecondition;
      body: unknown;
    }): Promise<EditedCells> {
      const writes = parseCellWrites(input.body);
      const cellInput = parseCellInput((input.body as { input?: unknown }).input);
      const byCells = writes.every((write) => write.expect !== undefined);
      if (input.precondition === undefined && !byCells) {
        throw new CellarError(
          ErrorCode.precondition_required,
          'A cell edit needs If-Match: "<sha256>" of the content it is based on, or an `expect` for every range.',
        );
      }
      const precondition = input.precondition ?? "cells";
      return untilCommitted(input.callerId, input.fileId, precondition, async (authorized, index) => {
        const { file } = authorized;
        const resolved = writes.map((write) => ({ write, sheet: sheetOf(index, write.sheet, write.field) }));
        for (const { write, sheet } of resolved)
          checkBounds(file, sheet, write.rectangle, write.field, deps.maxUploadBytes);
        // Every `expect` given holds, whatever `If-Match` says too (`*` included).
        if (writes.some((write) => write.expect !== undefined)) {
          const problems: FieldProblem[] = [];
          for (const { write, sheet } of resolved) {
            if (write.expect !== undefined) {
              problems.push(...(await conflicts(file, index, sheet, { ...write, expect: write.expect })));
            }
          }
          if (problems.length > 0) {
            throw new CellarError(
              ErrorCode.precondition_failed,
              `${problems.length === 1 ? "A cell" : `${problems.length} cells`} changed since: ${problems
                .slice(0, 5)
                .map((problem) => problem.message)
                .join("; ")}${problems.length > 5 ? "; …" : ""}.`,
              { details: problems },
            );
          }
        }
        const updatedRanges = resolved.map(({ write, sheet }) =>
          formatA1Range({ ...write.rectangle, sheet: sheet.name }),
        );
        const updatedCells = writes.reduce((sum, write) => sum + cellCount(write.rectangle), 0);
        const field = writes.length === 1 ? "values" : "data";
        const { sheets, recomputed, next } = await withResults(
          file,
          index,
          typedWrites(
            file,
            index,
            groupBySheet(resolved.map(({ write, sheet }) => ({ sheet: sheet.index, write }))),
            cellInput,
            field,
          ),
          field,
        );
        const committed = await commitWrites({
          callerId: input.callerId,
          file,
          index,
          sheets,
          action: "cells_edited",
          details: { ranges: updatedRanges, cells: updatedCells, ...(recomputed === undefined ? {} : { recomputed }) },
        });
        if (next !== undefined) graphs.set(committed.blobKey, next);
        return {
          file: toMetadata(committed, authorized.role),
          updatedRanges,
          updatedCells,
          recomputedCells: recomputed ?? 0,
        };
      });
    },

    /**
     * Changes a file's structure (decisions §9): the request's `operations` in order, as
     * one new version, all or nothing, based on the content `If-Match` names.
     */
    async changeStructure(input: {
      callerId: string;
      fileId: string;
      precondition: ContentPrecondition;
      body: unknown;
    }): Promise<{ file: FileMetadata; operations: StructureOperation[] }> {
      if (input.precondition === undefined) {
        throw new CellarError(
          ErrorCode.precondition_required,
          'A change of structure needs If-Match: "<sha256>" of the content it is based on, or "*".',
        );
      }
      const body = input.body;
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw invalidField("operations", "is required: a list of 1 or more operations");
      }
      const extra = Object.keys(body).find((key) => key !== "operations");
      if (extra !== undefined) throw invalidField(extra, "is not a field of a change of structure");
      return untilCommitted(input.callerId, input.fileId, input.precondition, async (authorized, index) => {
        const { file } = authorized;
        const operations = readStructureOperations(
          (body as { operations?: unknown }).operations,
          index.sheets,
          file.kind === "csv"
            ? { csv: true, maxRows: MAX_ROW, maxColumns: STRUCTURE_MAX_COLUMNS }
            : WORKBOOK_STRUCTURE_LIMITS,
        );
        // Comment threads' cells move as the content's do (decisions §9); a range without a
        // sheet is the first sheet's as the file is now.
        const changes = operations.filter((operation): operation is StructureChange => isStructureChange(operation));
        const firstSheet = index.sheets[0]?.name ?? "";
        const writer = writerOrRefuse();
        if (writer.restructure === undefined) throw unreadable("this server changes no spreadsheet's structure.");
        const restructure = writer.restructure.bind(writer);
        // A workbook's formulas follow their cells through the engine.
        const formulas =
          file.kind === "xlsx" && deps.formulaEngine !== undefined ? await deps.formulaEngine() : undefined;
        const committed = await commitContent({
          callerId: input.callerId,
          file,
          write: () =>
            restructure({
              kind: file.kind as "csv" | "xlsx",
              index,
              size: file.size,
              openFile: contents.contentOpener(file),
              operations,
              ...(formulas === undefined ? {} : { formulas }),
            }),
          action: "structure_changed",
          details: { operations: operations.map(operationJson) },
          moveCommentRanges: (range) => movedRange(range, changes, firstSheet),
        });
        return { file: toMetadata(committed, authorized.role), operations };
      });
    },

    /**
     * Adds rows after the last row with a value of a sheet (the first by default). Needs no
     * precondition (an `If-Match` given is honoured): appends never conflict, and
     * concurrent ones all land, each after the others.
     */
    async appendRows(input: {
      callerId: string;
      fileId: string;
      precondition: ContentPrecondition;
      sheet?: unknown;
      values: unknown;
      /** How its strings are read; `raw` when absent. */
      input?: unknown;
    }): Promise<AppendedRows> {
      if (input.sheet !== undefined && (typeof input.sheet !== "string" || input.sheet === "")) {
        throw invalidField("sheet", "must be a sheet's name");
      }
      const values = parseAppendedRows(input.values);
      const cellInput = parseCellInput(input.input);
      return untilCommitted(input.callerId, input.fileId, input.precondition ?? "any", async (authorized, index) => {
        const { file } = authorized;
        const sheet = sheetOf(index, (input.sheet as string | undefined) ?? null, "sheet");
        const rectangle = {
          firstRow: sheet.rowCount + 1,
          lastRow: sheet.rowCount + values.length,
          firstColumn: 1,
          lastColumn: (values[0] as readonly CellValue[]).length,
        };
        checkBounds(file, sheet, rectangle, "values", deps.maxUploadBytes);
        const updatedRange = formatA1Range({ ...rectangle, sheet: sheet.name });
        const { sheets, recomputed, next } = await withResults(
          file,
          index,
          typedWrites(file, index, [{ sheet: sheet.index, writes: [{ rectangle, values }] }], cellInput, "values"),
          "values",
        );
        const committed = await commitWrites({
          callerId: input.callerId,
          file,
          index,
          sheets,
          action: "rows_appended",
          details: { range: updatedRange, rows: values.length, ...(recomputed === undefined ? {} : { recomputed }) },
        });
        if (next !== undefined) graphs.set(committed.blobKey, next);
        return { file: toMetadata(committed, authorized.role), updatedRange, recomputedCells: recomputed ?? 0 };
      });
    },
  };
}

/**
 * Refuses a write past the last row or column its kind of file can hold, and, in a CSV,
 * one so far past the last row that its empty rows alone (a line end each) would make
 * the file larger than Cellar accepts: refused before a byte is written.
 */
function checkBounds(
  file: FileRecord,
  sheet: SheetSummary,
  rectangle: CellRectangle,
  field: string,
  maxBytes: number,
): void {
  const maxRow = file.kind === "xlsx" ? XLSX_MAX_ROWS : MAX_ROW;
  if (rectangle.lastRow > maxRow) {
    throw invalidField(field, `reaches row ${rectangle.lastRow}; a ${file.kind.toUpperCase()} sheet ends at ${maxRow}`);
  }
  if (rectangle.lastColumn > MAX_COLUMNS) {
    throw invalidField(field, "reaches past column XFD, the last a sheet has");
  }
  if (file.kind === "csv" && file.size + Math.max(0, rectangle.lastRow - sheet.rowCount) > maxBytes) {
    throw new CellarError(
      ErrorCode.payload_too_large,
      `Row ${rectangle.lastRow} is so far past the last row (${sheet.rowCount}) that the file would be larger than the ${maxBytes} bytes Cellar accepts.`,
    );
  }
}

function groupBySheet(writes: { sheet: number; write: RequestedWrite }[]): SheetWrites[] {
  const bySheet = new Map<number, SheetWrites["writes"][number][]>();
  for (const { sheet, write } of writes) {
    const list = bySheet.get(sheet) ?? [];
    list.push({ rectangle: write.rectangle, values: write.values });
    bySheet.set(sheet, list);
  }
  return [...bySheet].map(([sheet, list]) => ({ sheet, writes: list }));
}

/** Graphed formulas by content, the most recently used kept: at most 16 workbooks and 400,000 formulas in all. */
class GraphedFormulasCache {
  private readonly entries = new Map<string, GraphedFormulas>();
  private nodes = 0;

  get(blobKey: string): GraphedFormulas | undefined {
    const found = this.entries.get(blobKey);
    if (found !== undefined) {
      this.entries.delete(blobKey);
      this.entries.set(blobKey, found);
    }
    return found;
  }

  set(blobKey: string, formulas: GraphedFormulas): void {
    if (formulas.graph.nodes.length > 400_000) return;
    const replaced = this.entries.get(blobKey);
    if (replaced !== undefined) this.nodes -= replaced.graph.nodes.length;
    this.entries.delete(blobKey);
    this.entries.set(blobKey, formulas);
    this.nodes += formulas.graph.nodes.length;
    for (const [key, oldest] of this.entries) {
      if (this.entries.size <= 16 && this.nodes <= 400_000) break;
      this.entries.delete(key);
      this.nodes -= oldest.graph.nodes.length;
    }
  }
}
