import {
  apiError,
  CellarApiError,
  type CellarFile,
  type ContentChange,
  type components,
  formatBytes,
  type StreamEvent,
  type StructureOperation,
  unwrap,
} from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect, useMemo, useRef } from "preact/hooks";
import { downloadSaying } from "../files/download.js";
import { mayEdit } from "../files/roles.js";
import { Frame } from "../files.js";
import { type LiveState, watch } from "../live/watch.js";
import { messageOf } from "../messages.js";
import { navigate } from "../router.js";
import { client } from "../session.js";
import { say } from "../toast.js";
import { type Area, onSheet, parseArea } from "./a1-range.js";
import { columnLetters } from "./cell-text.js";
import { quoted } from "./cell-windows.js";
import { type CommentEvent, createComments } from "./comments.js";
import { CommentsPanel } from "./comments-panel.js";
import { FindPanel, type FoundPlace } from "./find-panel.js";
import { Grid, type RemoteChange } from "./grid.js";
import "./grid.css";
import "./live.css";
import { HistoryDialog } from "./history-dialog.js";
import { Presence, type Viewer } from "./presence.js";
import { SheetTabs } from "./sheet-tabs.js";
import { structureDone } from "./structure-menu.js";

type Sheet = components["schemas"]["Sheet"];

type Opened =
  | { readonly state: "loading" }
  | { readonly state: "failed"; readonly error: CellarApiError | null; readonly message: string }
  | { readonly state: "open"; readonly file: CellarFile; readonly sheets: readonly Sheet[] | CellarApiError };

/**
 * One file, opened: its cells in a grid, a tab per sheet. A file whose cells Cellar cannot
 * read says so, and downloads all the same. Its editors and owner change cells in the
 * grid; anyone who sees it opens its history (the versions of its content), and its
 * editors restore one. This module and the grid load only when a preview opens (the app
 * imports it on demand).
 */
export function Preview(props: { id: string }) {
  const opened = useSignal<Opened>({ state: "loading" });
  const sheetIndex = useSignal(0);
  const history = useSignal(false);
  /** One more each time the content changed other than by the grid's edits (a version restored): the grid starts again. */
  const content = useSignal(0);
  // Live (the file's stream): who has it open, the last change of its content, whether access ended.
  const live = useSignal<LiveState>({ state: "opening" });
  const viewers = useSignal<readonly Viewer[]>([]);
  const remote = useSignal<RemoteChange | null>(null);
  const revoked = useSignal(false);
  const remoteCount = useRef(0);
  const me = useSignal<string | null>(null);
  const comments = useMemo(() => createComments(props.id), [props.id]);
  const commentsOpen = useSignal(false);
  const focusThread = useSignal<{ id: string; seq: number } | null>(null);
  const activeCell = useSignal<{ row: number; column: number } | null>(null);
  const findOpen = useSignal(false);
  /** A cell Find went to, for the grid of its sheet to show. */
  const found = useSignal<(FoundPlace & { seq: number }) | null>(null);

  useEffect(() => {
    unwrap(client.value.api.GET("/users/me")).then(
      (user) => (me.value = user.id),
      () => undefined,
    );
  }, []);

  useEffect(() => {
    void comments.load();
    const stream = watch(`/files/${encodeURIComponent(props.id)}/events`, onEvent);
    const unsubscribe = stream.state.subscribe((state) => (live.value = state));
    return () => {
      unsubscribe();
      stream.stop();
    };
  }, [props.id]);

  /** The file read again: its version, size and the reader's role may have changed. */
  function readFile() {
    unwrap(client.value.api.GET("/files/{id}", { params: { path: { id: props.id } } })).then(changed, () => undefined);
  }

  /**
   * Tells the grid of a change of the content: the areas of the sheet shown it wrote, or
   * null for any cell. A change elsewhere that computed formulas again (`recomputed`) may
   * have changed cells of any sheet: the grid is told of it too.
   */
  function contentChanged(version: number | null, ranges: readonly string[] | null, recomputed = 0, structure = false) {
    const now = opened.value;
    if (now.state !== "open" || now.sheets instanceof CellarApiError) return;
    const sheet = now.sheets[sheetIndex.value];
    const first = now.sheets[0]?.name ?? "";
    const areas = ranges?.map(parseArea).filter((area): area is Area => area !== null) ?? null;
    const here = areas?.filter((area) => sheet !== undefined && onSheet(area, sheet.name, first)) ?? null;
    // A change past a sheet's extent (or of the whole file) changes the sheets' sizes.
    const grows =
      areas === null ||
      areas.some((area) => {
        const of =
          now.sheets instanceof CellarApiError ? undefined : now.sheets.find((each) => onSheet(area, each.name, first));
        return of === undefined || area.bottom > of.row_count || area.right > of.column_count;
      });
    if (grows) void reloadSheets(false);
    if (here === null || here.length > 0 || recomputed > 0) {
      remote.value = { seq: ++remoteCount.current, version, areas: here, structure };
    }
  }

  /** An event of the file's stream (docs/api.md, "GET /files/:id/events"). */
  function onEvent(event: StreamEvent) {
    switch (event.event) {
      case "file":
        changed(event.data as CellarFile);
        break;
      case "content": {
        const change = event.data as ContentChange;
        const ranges =
          change.range === undefined ? null : typeof change.range === "string" ? [change.range] : change.range;
        contentChanged(change.version, ranges, change.recomputed ?? 0, change.structure !== undefined);
        readFile();
        // Rows, columns or sheets moved: comment threads moved with their cells.
        if (change.structure !== undefined) void comments.load();
        break;
      }
      case "permissions":
        readFile();
        break;
      case "comment":
        comments.apply(event.data as CommentEvent);
        break;
      case "presence":
        viewers.value = (event.data as { viewers: readonly Viewer[] }).viewers;
        break;
      case "reset":
        // What was missed is no longer all told: everything shown is read again.
        changed(event.data as CellarFile);
        contentChanged(null, null);
        void comments.load();
        break;
      case "revoked":
        revoked.value = true;
        break;
    }
  }

  useEffect(() => {
    const api = client.value.api;
    const path = { params: { path: { id: props.id } } };
    Promise.all([api.GET("/files/{id}", path), api.GET("/files/{id}/sheets", path)]).then(
      async ([file, sheets]) => {
        if (file.data === undefined) {
          const error = await apiError(file.response, file.error);
          opened.value = { state: "failed", error, message: error.message };
          return;
        }
        opened.value = {
          state: "open",
          file: file.data,
          sheets: sheets.data ?? (await apiError(sheets.response, sheets.error)),
        };
      },
      (error: unknown) => (opened.value = { state: "failed", error: null, message: messageOf(error) }),
    );
  }, [props.id]);

  /** The file at a new version: kept, so the next restore is based on it. */
  function changed(file: CellarFile) {
    const now = opened.value;
    if (now.state === "open") opened.value = { ...now, file };
  }

  /**
   * Reads the sheets again (their extents changed); with `restart`, the grid starts again
   * from them; `then` picks the sheet to show from them (sheets added, moved or deleted).
   */
  async function reloadSheets(restart: boolean, then?: (sheets: readonly Sheet[]) => number) {
    const api = client.value.api;
    const sheets = await api.GET("/files/{id}/sheets", { params: { path: { id: props.id } } }).then(
      async (answer) => answer.data ?? (await apiError(answer.response, answer.error)),
      (error: unknown) => (error instanceof CellarApiError ? error : null),
    );
    const now = opened.value;
    if (now.state !== "open" || sheets === null) return;
    opened.value = { ...now, sheets };
    if (!(sheets instanceof CellarApiError)) {
      if (then !== undefined) sheetIndex.value = then(sheets);
      if (sheetIndex.value >= sheets.length) sheetIndex.value = 0;
    }
    if (restart) content.value++;
  }

  /**
   * One change of structure (rows, columns or sheets), based on the file as this page last
   * read it: the file at its new version, or null when it was refused (said why: a change
   * someone made meanwhile is read, and nothing is written over it).
   */
  async function changeStructure(
    operation: StructureOperation,
    then?: (sheets: readonly Sheet[]) => number,
  ): Promise<CellarFile | null> {
    const now = opened.value;
    if (now.state !== "open") return null;
    try {
      const next = await client.value.structure(now.file.id, [operation], { ifMatch: now.file.sha256 });
      changed(next);
      await reloadSheets(false, then);
      if (
        "add_sheet" in operation ||
        "rename_sheet" in operation ||
        "move_sheet" in operation ||
        "delete_sheet" in operation
      ) {
        say(structureDone(operation), "success");
      }
      return next;
    } catch (error) {
      if (error instanceof CellarApiError && error.code === "precondition_failed") {
        say(
          "The file changed since this page read it, so nothing was changed. It shows the file as it is now: try again.",
          "error",
        );
        readFile();
        void reloadSheets(false);
      } else {
        say(`Not changed: ${messageOf(error)}`, "error");
      }
      return null;
    }
  }

  /** Find went to a cell: its sheet is shown, and the grid selects the cell. */
  function showFound(place: FoundPlace) {
    const now = opened.value;
    if (now.state !== "open" || now.sheets instanceof CellarApiError) return;
    const index = now.sheets.findIndex((each) => each.name === place.sheet);
    if (index < 0) return;
    sheetIndex.value = index;
    found.value = { ...place, seq: (found.value?.seq ?? 0) + 1 };
  }

  function closeFind() {
    findOpen.value = false;
    document.querySelector<HTMLElement>("#sheet-panel [role=grid]")?.focus();
  }

  const now = opened.value;
  if (revoked.value) {
    return (
      <Frame title="Access ended">
        <p role="alert">
          You can no longer see this file: its owner stopped sharing it with you or moved it to the trash, or your
          session ended.
        </p>
        <BackToFiles />
      </Frame>
    );
  }
  if (now.state === "loading") {
    return (
      <Frame title="Opening…">
        <p>Opening the file…</p>
      </Frame>
    );
  }
  if (now.state === "failed") {
    const notHere = now.error?.code === "not_found";
    return (
      <Frame title={notHere ? "No such file" : "This file cannot be opened"}>
        <p role="alert">
          {notHere ? "There is no such file, or it is not shared with you. Ask its owner to share it." : now.message}
        </p>
        <BackToFiles />
      </Frame>
    );
  }

  const { file, sheets } = now;
  const save = () => downloadSaying(file);
  const editable = mayEdit(file.role);
  const sheet = sheets instanceof CellarApiError ? undefined : sheets[sheetIndex.value];
  const firstSheet = sheets instanceof CellarApiError ? "" : (sheets[0]?.name ?? "");
  // The cells that start an open thread on this sheet, marked in the grid.
  const marks = new Map<string, string>();
  let openThreads = 0;
  for (const { root } of comments.threads.value) {
    if (root.resolved) continue;
    openThreads++;
    const area = root.range === null ? null : parseArea(root.range);
    if (area === null || sheet === undefined || !onSheet(area, sheet.name, firstSheet)) continue;
    const key = `${area.top}:${area.left}`;
    if (!marks.has(key)) marks.set(key, root.id);
  }
  const cell = activeCell.value;
  const cellRange =
    cell === null || sheet === undefined
      ? null
      : `${sheets instanceof CellarApiError || sheets.length === 1 ? "" : `${quoted(sheet.name)}!`}${columnLetters(cell.column)}${cell.row}`;
  // A workbook's sheets are tabs under its grid (with one sheet, for its editors, to add more); a CSV has one sheet.
  const workbook = !(sheets instanceof CellarApiError) && sheets.every((each) => each.csv === undefined);
  const showTabs = !(sheets instanceof CellarApiError) && (sheets.length > 1 || (editable && workbook));
  const place = found.value;
  const reveal =
    place !== null && sheet !== undefined && place.sheet === sheet.name
      ? { seq: place.seq, row: place.row, column: place.column }
      : null;
  const openThread = (id: string) => {
    commentsOpen.value = true;
    focusThread.value = { id, seq: (focusThread.value?.seq ?? 0) + 1 };
  };
  return (
    <Frame title={file.name} wide actions={<Presence viewers={viewers.value} me={me.value} live={live.value} />}>
      <div class="bar">
        <span>
          {formatBytes(file.size)}
          {sheet !== undefined &&
            ` · ${sheet.name}: ${sheet.row_count.toLocaleString()} rows × ${sheet.column_count.toLocaleString()} columns`}
          {!editable && " · View only"}
        </span>
        <span class="actions">
          <BackToFiles />
          <button
            type="button"
            aria-expanded={commentsOpen.value}
            aria-controls="comments-panel"
            onClick={() => (commentsOpen.value = !commentsOpen.value)}
          >
            Comments{openThreads > 0 ? ` (${openThreads})` : ""}
          </button>
          <button
            type="button"
            aria-expanded={findOpen.value}
            onClick={() => {
              if (findOpen.value) document.getElementById("find-text")?.focus();
              findOpen.value = true;
            }}
          >
            Find
          </button>
          <button type="button" onClick={() => (history.value = true)}>
            History
          </button>
          <button type="button" onClick={save}>
            Download
          </button>
        </span>
      </div>
      {history.value && (
        <HistoryDialog
          file={file}
          onChanged={(next) => {
            changed(next);
            void reloadSheets(true);
          }}
          onClose={() => (history.value = false)}
        />
      )}
      <div class={commentsOpen.value ? "preview-body with-comments" : "preview-body"}>
        <div class="preview-main">
          {sheets instanceof CellarApiError ? (
            <p role="alert" class="notice">
              {sheets.code === "unreadable_spreadsheet"
                ? "Cellar cannot show the cells of this file: it is not a spreadsheet Cellar can read (a .sheet file, or a damaged workbook). You can still download it."
                : sheets.code === "file_in_trash"
                  ? "This file is in the trash: restore it to see its cells."
                  : sheets.message}
            </p>
          ) : (
            <>
              {findOpen.value && (
                <FindPanel
                  client={client.value}
                  fileId={file.id}
                  version={file.version}
                  onFound={showFound}
                  onClose={closeFind}
                />
              )}
              <div
                id="sheet-panel"
                {...(showTabs
                  ? { role: "tabpanel", "aria-labelledby": `sheet-tab-${sheetIndex.value}` }
                  : { role: "region", "aria-label": sheet?.name ?? "Sheet" })}
              >
                {(sheet === undefined || sheet.row_count === 0) && (
                  <p class="empty">This sheet has no cells with a value.</p>
                )}
                {sheet !== undefined && (sheet.row_count > 0 || editable) && (
                  <Grid
                    key={`${file.id}:${sheet.index}:${content.value}`}
                    client={client.value}
                    fileId={file.id}
                    sheet={sheet}
                    editable={editable}
                    onEdited={(next, grew) => {
                      changed(next);
                      if (grew) void reloadSheets(false);
                    }}
                    remote={remote.value}
                    marks={marks}
                    onMark={openThread}
                    onActive={(next) => (activeCell.value = next)}
                    onFind={() => {
                      if (findOpen.value) document.getElementById("find-text")?.focus();
                      findOpen.value = true;
                    }}
                    reveal={reveal}
                    onRevealed={() => (found.value = null)}
                    onStructure={(operation) => changeStructure(operation)}
                  />
                )}
              </div>
              {showTabs && (
                <SheetTabs
                  sheets={sheets}
                  current={sheetIndex.value}
                  editable={editable}
                  onSelect={(index) => (sheetIndex.value = index)}
                  onChange={async (operation, then) => (await changeStructure(operation, then)) !== null}
                />
              )}
            </>
          )}
        </div>
        {commentsOpen.value && (
          <div id="comments-panel">
            <CommentsPanel
              file={file}
              comments={comments}
              me={me.value}
              cell={cellRange}
              focus={focusThread.value}
              onClose={() => (commentsOpen.value = false)}
            />
          </div>
        )}
      </div>
    </Frame>
  );
}

function BackToFiles() {
  return (
    <a
      href="/files"
      onClick={(event) => {
        event.preventDefault();
        navigate("/files");
      }}
    >
      Back to your files
    </a>
  );
}
