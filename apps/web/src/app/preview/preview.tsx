import { apiError, CellarApiError, type CellarFile, type components, formatBytes } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { downloadSaying } from "../files/download.js";
import { mayEdit } from "../files/roles.js";
import { Frame } from "../files.js";
import { messageOf } from "../messages.js";
import { navigate } from "../router.js";
import { client } from "../session.js";
import { Grid } from "./grid.js";
import "./grid.css";
import { HistoryDialog } from "./history-dialog.js";

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

  /** Reads the sheets again (their extents changed); with `restart`, the grid starts again from them. */
  async function reloadSheets(restart: boolean) {
    const api = client.value.api;
    const sheets = await api.GET("/files/{id}/sheets", { params: { path: { id: props.id } } }).then(
      async (answer) => answer.data ?? (await apiError(answer.response, answer.error)),
      (error: unknown) => (error instanceof CellarApiError ? error : null),
    );
    const now = opened.value;
    if (now.state !== "open" || sheets === null) return;
    opened.value = { ...now, sheets };
    if (!(sheets instanceof CellarApiError) && sheetIndex.value >= sheets.length) sheetIndex.value = 0;
    if (restart) content.value++;
  }

  const now = opened.value;
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
  return (
    <Frame title={file.name} wide>
      <div class="bar">
        <span>
          {formatBytes(file.size)}
          {sheet !== undefined &&
            ` · ${sheet.name}: ${sheet.row_count.toLocaleString()} rows × ${sheet.column_count.toLocaleString()} columns`}
          {!editable && " · View only"}
        </span>
        <span class="actions">
          <BackToFiles />
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
          {sheets.length > 1 && (
            <div role="tablist" aria-label="Sheets" class="tabs">
              {sheets.map((each) => (
                <button
                  type="button"
                  role="tab"
                  key={each.index}
                  id={`sheet-tab-${each.index}`}
                  aria-selected={each.index === sheetIndex.value}
                  aria-controls="sheet-panel"
                  tabIndex={each.index === sheetIndex.value ? 0 : -1}
                  onClick={() => (sheetIndex.value = each.index)}
                  onKeyDown={(event) => {
                    const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
                    if (step === 0) return;
                    const next = (each.index + step + sheets.length) % sheets.length;
                    sheetIndex.value = next;
                    document.getElementById(`sheet-tab-${next}`)?.focus();
                  }}
                >
                  {each.name}
                </button>
              ))}
            </div>
          )}
          <div
            id="sheet-panel"
            {...(sheets.length > 1
              ? { role: "tabpanel", "aria-labelledby": `sheet-tab-${sheetIndex.value}` }
              : { role: "region", "aria-label": sheet?.name ?? "Sheet" })}
          >
            {sheet === undefined || sheet.row_count === 0 ? (
              <p class="empty">This sheet has no cells with a value.</p>
            ) : (
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
              />
            )}
          </div>
        </>
      )}
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
