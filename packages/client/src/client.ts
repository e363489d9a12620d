import createClient, { type Client } from "openapi-fetch";
import { ifMatchOf, type ReplaceContentOptions, replaceContent } from "./content.js";
import { type Download, type DownloadOptions, download, type VersionDownloadOptions } from "./download.js";
import { apiError, unwrap } from "./errors.js";
import {
  type AccountStreamEvent,
  type EventStreamOptions,
  type FileStreamEvent,
  readEventStream,
  type StreamEvent,
  type StreamEventOf,
} from "./event-stream.js";
import type { components, operations, paths } from "./generated/openapi.js";
import { retryingFetch } from "./retrying-fetch.js";
import { type BodySource, type CellarFile, type UploadOptions, type UploadSource, upload } from "./upload.js";

export interface CellarClientOptions {
  /** Where the server is, without `/v1`: `https://files.example.org`. */
  readonly baseUrl: string;
  /** The JWT from a sign-in, sent as a bearer token. */
  readonly token?: string;
  /** Another `fetch` (a test's, or one with a proxy). */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * How often a request answered 429 or 503 is sent again after the `Retry-After` the
   * server gave (default 2), and the longest wait accepted (default 30 s): a longer one
   * is answered as it came. `max` also bounds how often one download resumes after its
   * connection dropped.
   */
  readonly retries?: { readonly max?: number; readonly maxWaitSeconds?: number };
}

/** A window of cells as `GET /files/{id}/values` answers it. */
export type CellWindow = components["schemas"]["CellWindow"];

/** How cells come: `raw`, the stored values; `formatted`, the text a spreadsheet program displays. */
export type CellRender = NonNullable<operations["getValues"]["parameters"]["query"]["render"]>;

export interface ValuesOptions {
  /** `raw` (the default) or `formatted`. */
  readonly render?: CellRender;
  /** Adds each cell's type (`types`). */
  readonly types?: boolean;
}

/** An order a listing can be asked for: a field, ascending, or with a leading `-`, descending. */
export type FileSortOrder = NonNullable<NonNullable<operations["listFiles"]["parameters"]["query"]>["sort"]>;

// Keyed by every order the server's document names, no more: the type check says when
// the two part.
const SORT_ORDERS: Readonly<Record<FileSortOrder, true>> = {
  created_at: true,
  "-created_at": true,
  updated_at: true,
  "-updated_at": true,
  name: true,
  "-name": true,
  size: true,
  "-size": true,
};

/** Every `FileSortOrder`, for a program that offers the choice. */
export const FILE_SORT_ORDERS = Object.keys(SORT_ORDERS) as readonly FileSortOrder[];

/** Which files `files` lists, and in which order. */
export interface FileListOptions {
  /** The trash instead of the active files. */
  readonly trashed?: boolean;
  /**
   * The active files others share with you instead of your own, each with your `role`,
   * newest share first unless `sort` says otherwise. Not with `trashed`.
   */
  readonly shared?: boolean;
  /** Only the files whose name contains this text, ignoring case: 1–100 characters. */
  readonly q?: string;
  /** Default `-created_at`, newest first. */
  readonly sort?: FileSortOrder;
  /** Files fetched a request, 1–100 (default 100). */
  readonly perPage?: number;
}

/** A role the owner may give a person on a file: each allows what the one before does, and more. */
export type PermissionRole = components["schemas"]["Permission"]["role"];

// Keyed by every role the server's document names, as SORT_ORDERS is.
const ROLES: Readonly<Record<PermissionRole, true>> = { viewer: true, commenter: true, editor: true };

/** Every `PermissionRole`, weakest first. */
export const PERMISSION_ROLES = Object.keys(ROLES) as readonly PermissionRole[];

/** A person's role on a file, as `GET /files/{id}/permissions` lists it. */
export type Permission = components["schemas"]["Permission"];

/** What sharing answers: the permission, and whether a mail told its holder. */
export type SharedPermission = operations["shareFile"]["responses"][201]["content"]["application/json"];

/** One thing that happened to a file, as `GET /files/{id}/activity` lists it. */
export type ActivityEntry = components["schemas"]["ActivityEntry"];

/** Whom `share` gives a role, and how they are told. */
export interface ShareOptions {
  /** The person's address, with or without an account yet; not the owner's own. */
  readonly email: string;
  readonly role: PermissionRole;
  /** Whether a person new to the file gets a mail (default true). */
  readonly notify?: boolean;
  /** A note for the mail, at most 1,000 characters. */
  readonly message?: string;
}

/** How `activity` pages. */
/** A cell `find` found: where it is, its value, and its text as shown. */
export type FoundCell = components["schemas"]["FoundCell"];

export interface FindOptions {
  /** Only this sheet, by name; every sheet when absent. */
  readonly sheet?: string;
  /** Cells fetched a request, 1–100 (default 100). */
  readonly perPage?: number;
}

export interface ActivityListOptions {
  /** Entries fetched a request, 1–100 (default 100). */
  readonly perPage?: number;
}

/** One version of a file's content, as `GET /files/{id}/versions` lists it. */
export type FileVersion = components["schemas"]["Version"];

/** How `versions` pages. */
export interface VersionListOptions {
  /** Versions fetched a request, 1–100 (default 100). */
  readonly perPage?: number;
}

/** A value as a cell edit writes it: text stays text (never a formula), null empties the cell. */
export type CellInput = string | number | boolean | null;

/** A cell edit: one range (`range`, `values`, and `expect`), or several in `data`, written as one version. */
export type ValuesEdit = operations["editValues"]["requestBody"]["content"]["application/json"];

/** What a cell edit answers: the file at its new version, the range (or ranges) written, and how many cells. */
export type EditedValues = operations["editValues"]["responses"][200]["content"]["application/json"];

/** Rows to append, to the first sheet unless `sheet` names another. */
export type RowsAppend = operations["appendRows"]["requestBody"]["content"]["application/json"];
/**
 * A change of structure, sheets by name (decisions §9): `{ insert: "rows", sheet, before, count }`,
 * `{ insert: "columns", sheet, before: "C", count }`, `{ delete: "rows", sheet, from, count }`,
 * `{ delete: "columns", sheet, from: "C", count }`, `{ add_sheet, index? }`,
 * `{ rename_sheet, to }`, `{ move_sheet, to }`, `{ delete_sheet }`.
 */
export type StructureOperation =
  | { readonly insert: "rows"; readonly sheet: string; readonly before: number; readonly count: number }
  | { readonly insert: "columns"; readonly sheet: string; readonly before: string; readonly count: number }
  | { readonly delete: "rows"; readonly sheet: string; readonly from: number; readonly count: number }
  | { readonly delete: "columns"; readonly sheet: string; readonly from: string; readonly count: number }
  | { readonly add_sheet: string; readonly index?: number }
  | { readonly rename_sheet: string; readonly to: string }
  | { readonly move_sheet: string; readonly to: number }
  | { readonly delete_sheet: string };

/** What appending answers: the file at its new version, and where the rows went. */
export type AppendedRows = operations["appendRows"]["responses"][200]["content"]["application/json"];

/** What a change of content is based on (`If-Match`). */
export interface ContentCondition {
  /**
   * The file's `sha256` (or `ETag`) as last read: a change made since by someone else is
   * refused (412, `precondition_failed`) rather than lost. `*`: whatever is there now.
   */
  readonly ifMatch: string;
}

/** An access token as listed: never its value. */
export type AccessToken = components["schemas"]["AccessToken"];
/** A token just made, with its value: shown this once. */
export type NewAccessToken = operations["createAccessToken"]["responses"][201]["content"]["application/json"];
/** What a new token is: its name, its scope, and for how many days it works (without: until deleted). */
export type AccessTokenRequest = operations["createAccessToken"]["requestBody"]["content"]["application/json"];
/** A sign-in that still holds, as `GET /sessions` lists it. */
export type Session = components["schemas"]["Session"];

/** A webhook as read: never its secret. */
export type Webhook = components["schemas"]["Webhook"];
/** A webhook just made, with its secret (`whsec_…`): shown this once. */
export type NewWebhook = operations["createWebhook"]["responses"][201]["content"]["application/json"];
/** What a new webhook is: where deliveries go, the kinds of event (or `["*"]`), and the one file it follows, if any. */
export type WebhookRequest = operations["createWebhook"]["requestBody"]["content"]["application/json"];
/** What may change of a webhook: at least one of `url`, `events` and `active`. */
export type WebhookChanges = operations["updateWebhook"]["requestBody"]["content"]["application/json"];
/** One attempt at delivering one event to a webhook. */
export type WebhookAttempt = components["schemas"]["WebhookAttempt"];

/**
 * Webhooks (decisions §10): signed POSTs of your files' events to another service;
 * managed from a signed-in session only, on a server that delivers webhooks.
 */
export interface Webhooks {
  /** Makes a webhook; its signing secret (`secret`) is in this answer only. */
  create(request: WebhookRequest): Promise<NewWebhook>;
  /** Your webhooks, newest first, page after page, as one sequence. */
  list(): AsyncIterable<Webhook>;
  /** One of your webhooks. */
  get(id: string): Promise<Webhook>;
  /** Changes its `url`, its `events`, or turns it off or on again (`active`). */
  update(id: string, changes: WebhookChanges): Promise<Webhook>;
  /** Deletes a webhook: nothing more is delivered to it. */
  delete(id: string): Promise<void>;
  /** Its delivery attempts, newest first, page after page, as one sequence. */
  deliveries(id: string): AsyncIterable<WebhookAttempt>;
}

/** Access tokens for scripts and services (decisions §10); managed from a signed-in session only. */
export interface AccessTokens {
  /** Makes a token; its value (`token`) is in this answer only. */
  create(request: AccessTokenRequest): Promise<NewAccessToken>;
  /** Your tokens, newest first, page after page, as one sequence. */
  list(): AsyncIterable<AccessToken>;
  /** Deletes a token: refused by every server from the answer on. */
  delete(id: string): Promise<void>;
}

/** Where you are signed in (decisions §10); managed from a signed-in session only. */
export interface Sessions {
  /** Your sessions that still hold, newest first; `current` is the one this client uses. */
  list(): AsyncIterable<Session>;
  /** Signs one session out (another device's, or this one). */
  end(id: string): Promise<void>;
}

export interface CellarClient {
  /** Every /v1 route, typed from the server's OpenAPI document (openapi-fetch). */
  readonly api: Client<paths>;
  /** Access tokens: make, list, delete. */
  readonly tokens: AccessTokens;
  /** Sessions: where you are signed in, and signing one out. */
  readonly sessions: Sessions;
  /** Webhooks: make, list, read, change, delete, and their delivery attempts. */
  readonly webhooks: Webhooks;
  /**
   * Uploads a file as it streams (never whole in memory when given a stream or a blob),
   * reporting progress as its bytes go out. Not retried: a stream is sent once.
   */
  upload(source: UploadSource, options?: UploadOptions): Promise<CellarFile>;
  /** Downloads a file (or its conversion) as a stream, resuming from `from` and after dropped connections. */
  download(id: string, options?: DownloadOptions): Promise<Download>;
  /**
   * Your files, or your trash, page after page, as one sequence: those whose name
   * contains `q` when given, in the order `sort` names.
   */
  files(options?: FileListOptions): AsyncIterable<CellarFile>;
  /**
   * A window of a spreadsheet's cells: `range` in A1 notation (`B2:D10`, `'Q1 Budget'!A:C`);
   * `{ render: "formatted" }` for each cell as its author sees it, `{ render: "formula" }`
   * for each formula cell's formula (`=SUM(B2:B9)`).
   */
  values(id: string, range: string, options?: ValuesOptions): Promise<CellWindow>;
  /**
   * The cells whose text as shown holds `text`, case aside, in sheet, row and column
   * order, page after page, as one sequence.
   */
  find(id: string, text: string, options?: FindOptions): AsyncIterable<FoundCell>;
  /**
   * Gives a person a role on your file, by address; the same address again changes its
   * role (and sends no mail). `notified` says whether a mail told them.
   */
  share(fileId: string, options: ShareOptions): Promise<SharedPermission>;
  /** The people on a file, oldest first (at most 100, so never paged). */
  permissions(fileId: string): Promise<Permission[]>;
  /** Gives a person on your file another role. */
  changeRole(fileId: string, permissionId: string, role: PermissionRole): Promise<Permission>;
  /** Takes a person off your file, or, with your own permission, leaves someone else's. */
  removePermission(fileId: string, permissionId: string): Promise<void>;
  /** What happened to a file, newest first, page after page, as one sequence. */
  activity(fileId: string, options?: ActivityListOptions): AsyncIterable<ActivityEntry>;
  /**
   * Replaces a file's content with new bytes as they stream (never whole in memory when
   * given a stream or a blob): its next version, same name and type, based on the content
   * `ifMatch` names. Not retried: a stream is sent once.
   */
  replaceContent(fileId: string, source: BodySource, options: ReplaceContentOptions): Promise<CellarFile>;
  /** The versions of a file's content, newest first, page after page, as one sequence. */
  versions(fileId: string, options?: VersionListOptions): AsyncIterable<FileVersion>;
  /** Downloads one version's bytes as a stream, resuming as `download` does. */
  downloadVersion(fileId: string, version: number, options?: VersionDownloadOptions): Promise<Download>;
  /** Makes an earlier version the content again, as a new version, based on the content `ifMatch` names. */
  restoreVersion(fileId: string, version: number, condition: ContentCondition): Promise<CellarFile>;
  /** Keeps a version from retention (`true`), or lets retention have it again (`false`). */
  keepVersion(fileId: string, version: number, keep: boolean): Promise<FileVersion>;
  /**
   * Writes cells as one new version: based on the content `ifMatch` names, or, with no
   * `ifMatch`, on the cells each range's `expect` says they hold (412 naming every cell
   * that differs, in `CellarApiError.details`).
   */
  editValues(fileId: string, edit: ValuesEdit, condition?: Partial<ContentCondition>): Promise<EditedValues>;
  /** Adds rows after the last row with a value of a sheet, as one new version: appends never conflict. */
  appendRows(fileId: string, rows: RowsAppend, condition?: Partial<ContentCondition>): Promise<AppendedRows>;
  /**
   * Inserts or deletes rows and columns, or adds, renames, moves or deletes sheets: the
   * operations in order, as one new version, all or nothing, based on the content
   * `ifMatch` names (`*`: whatever it is now).
   */
  structure(
    fileId: string,
    operations: readonly StructureOperation[],
    condition: ContentCondition,
  ): Promise<CellarFile>;
  /**
   * A file's changes as they happen (`GET /files/{id}/events`): `file` first (or, given
   * `lastEventId`, each event after it), `presence` right after, then `content`,
   * `permissions`, `comment`, `file`, `presence`, `reset` as they come, until `revoked`,
   * `signal`, or the loop is left. Dropped connections are made again, resuming after the
   * last event received (`presence` comes again first); an error answer is thrown
   * (`CellarApiError`). `isFileEvent` narrows an event to its typed data.
   */
  watchFile(fileId: string, options?: EventStreamOptions): AsyncIterable<FileStreamEvent>;
  /**
   * Your own stream (`GET /events`): what changes in the lists of your files, as it
   * happens. `ready` first (or, given `lastEventId`, what changed after it), then `file`,
   * `shared`, `unshared`, `reset` as they come, until `revoked` (the session ended),
   * `signal`, or the loop is left; read as `watchFile` reads a file's. `isAccountEvent`
   * narrows an event to its typed data.
   */
  watchAccount(options?: EventStreamOptions): AsyncIterable<AccountStreamEvent>;
  /**
   * Any event stream of the API, by its path under `/v1` (`/files/{id}/events`), read as
   * `watchFile` reads a file's: every event passed on, whatever its name. `Known` maps the
   * names of the events whose data the caller knows to its type.
   */
  eventStream<Known = Record<never, never>>(
    path: `/${string}`,
    options?: EventStreamOptions,
  ): AsyncIterable<StreamEventOf<Known> | StreamEvent>;
}

type PageAnswer<T> = { data?: T[]; error?: unknown; response: Response };

/** Every item of a paged listing, asking for page after page until `X-Total-Pages` says it is done. */
async function* everyPage<T>(pageOf: (page: number) => Promise<PageAnswer<T>>): AsyncGenerator<T> {
  for (let page = 1; ; page++) {
    const { data, error, response } = await pageOf(page);
    if (!response.ok || data === undefined) throw await apiError(response, error);
    yield* data;
    const pages = Number(response.headers.get("x-total-pages"));
    if (data.length === 0 || !(page < pages)) return;
  }
}

export function createCellarClient(options: CellarClientOptions): CellarClient {
  const apiUrl = `${options.baseUrl.replace(/\/+$/, "")}/v1`;
  // Looked up at each call: Node loads its fetch (undici) on first use, which a program
  // that only uploads with `uploadFile` never needs.
  const fetch: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  // Made on first use: openapi-fetch reads the global Request when a client is made,
  // which loads Node's fetch (undici, 30 ms), and a program that only uploads with
  // `uploadFile` never needs it.
  let made: Client<paths> | undefined;
  const api = () =>
    (made ??= createClient<paths>({
      baseUrl: apiUrl,
      fetch: retryingFetch(fetch, options.retries),
      ...(options.token === undefined ? {} : { headers: { authorization: `Bearer ${options.token}` } }),
    }));
  const target = { apiUrl, token: options.token, fetch };
  const ifMatchHeader = (condition: Partial<ContentCondition> | undefined) =>
    condition?.ifMatch === undefined ? {} : { header: { "if-match": ifMatchOf(condition.ifMatch) } };
  // Downloads and event streams honour Retry-After as every other request without a body does.
  const retrying = retryingFetch(fetch, options.retries);
  const eventStream = (path: string, streamOptions?: EventStreamOptions) =>
    readEventStream({ url: `${apiUrl}${path}`, token: options.token, fetch: retrying }, streamOptions);
  return {
    get api() {
      return api();
    },
    upload: (source, uploadOptions) =>
      upload({ ...target, platformFetch: options.fetch === undefined }, source, uploadOptions),
    download: (id, downloadOptions) =>
      download({ ...target, fetch: retrying, resumeAttempts: options.retries?.max ?? 2 }, id, downloadOptions),
    async values(id, range, { render, types } = {}) {
      const query = {
        range,
        ...(render === undefined ? {} : { render }),
        ...(types === undefined ? {} : { types: types ? ("true" as const) : ("false" as const) }),
      };
      const { data, error, response } = await api().GET("/files/{id}/values", { params: { path: { id }, query } });
      if (!response.ok || data === undefined) throw await apiError(response, error);
      return data;
    },
    files: ({ trashed = false, shared = false, q, sort, perPage = 100 } = {}) =>
      everyPage((page) =>
        api().GET("/files", {
          params: {
            query: {
              page: String(page),
              per_page: String(perPage),
              ...(trashed ? { trashed: "true" } : {}),
              ...(shared ? { shared: "true" } : {}),
              ...(q === undefined ? {} : { q }),
              ...(sort === undefined ? {} : { sort }),
            },
          },
        }),
      ),
    share: (fileId, { email, role, notify, message }) =>
      unwrap(
        api().POST("/files/{id}/permissions", {
          params: { path: { id: fileId } },
          body: {
            email,
            role,
            ...(notify === undefined ? {} : { notify }),
            ...(message === undefined ? {} : { message }),
          },
        }),
      ),
    permissions: (fileId) => unwrap(api().GET("/files/{id}/permissions", { params: { path: { id: fileId } } })),
    changeRole: (fileId, permissionId, role) =>
      unwrap(
        api().PATCH("/files/{id}/permissions/{pid}", {
          params: { path: { id: fileId, pid: permissionId } },
          body: { role },
        }),
      ),
    async removePermission(fileId, permissionId) {
      await unwrap(
        api().DELETE("/files/{id}/permissions/{pid}", { params: { path: { id: fileId, pid: permissionId } } }),
      );
    },
    find: (id, text, { sheet, perPage = 100 } = {}) =>
      everyPage((page) =>
        api().GET("/files/{id}/find", {
          params: {
            path: { id },
            query: {
              q: text,
              ...(sheet === undefined ? {} : { sheet }),
              page: String(page),
              per_page: String(perPage),
            },
          },
        }),
      ),
    activity: (fileId, { perPage = 100 } = {}) =>
      everyPage((page) =>
        api().GET("/files/{id}/activity", {
          params: { path: { id: fileId }, query: { page: String(page), per_page: String(perPage) } },
        }),
      ),
    replaceContent: (fileId, source, replaceOptions) =>
      replaceContent({ ...target, platformFetch: options.fetch === undefined }, fileId, source, replaceOptions),
    versions: (fileId, { perPage = 100 } = {}) =>
      everyPage((page) =>
        api().GET("/files/{id}/versions", {
          params: { path: { id: fileId }, query: { page: String(page), per_page: String(perPage) } },
        }),
      ),
    downloadVersion: (fileId, version, downloadOptions) =>
      download(
        { ...target, fetch: retrying, resumeAttempts: options.retries?.max ?? 2 },
        fileId,
        downloadOptions,
        version,
      ),
    restoreVersion: (fileId, version, condition) =>
      unwrap(
        api().POST("/files/{id}/versions/{n}/restore", {
          params: { path: { id: fileId, n: String(version) }, ...ifMatchHeader(condition) },
        }),
      ),
    keepVersion: (fileId, version, keep) =>
      unwrap(
        api().PATCH("/files/{id}/versions/{n}", {
          params: { path: { id: fileId, n: String(version) } },
          body: { keep },
        }),
      ),
    editValues: (fileId, edit, condition) =>
      unwrap(
        api().PATCH("/files/{id}/values", {
          params: { path: { id: fileId }, ...ifMatchHeader(condition) },
          body: edit,
        }),
      ),
    appendRows: (fileId, rows, condition) =>
      unwrap(
        api().POST("/files/{id}/rows", {
          params: { path: { id: fileId }, ...ifMatchHeader(condition) },
          body: rows,
        }),
      ),
    structure: async (fileId, operations, condition) =>
      (
        await unwrap(
          api().POST("/files/{id}/structure", {
            params: { path: { id: fileId }, ...ifMatchHeader(condition) },
            body: { operations: [...operations] as Record<string, unknown>[] },
          }),
        )
      ).file,
    tokens: {
      create: (request) => unwrap(api().POST("/tokens", { body: request })),
      list: () =>
        everyPage((page) => api().GET("/tokens", { params: { query: { page: String(page), per_page: "100" } } })),
      async delete(id) {
        await unwrap(api().DELETE("/tokens/{id}", { params: { path: { id } } }));
      },
    },
    sessions: {
      list: () =>
        everyPage((page) => api().GET("/sessions", { params: { query: { page: String(page), per_page: "100" } } })),
      async end(id) {
        await unwrap(api().DELETE("/sessions/{id}", { params: { path: { id } } }));
      },
    },
    webhooks: {
      create: (request) => unwrap(api().POST("/webhooks", { body: request })),
      list: () =>
        everyPage((page) => api().GET("/webhooks", { params: { query: { page: String(page), per_page: "100" } } })),
      get: (id) => unwrap(api().GET("/webhooks/{id}", { params: { path: { id } } })),
      update: (id, changes) => unwrap(api().PATCH("/webhooks/{id}", { params: { path: { id } }, body: changes })),
      async delete(id) {
        await unwrap(api().DELETE("/webhooks/{id}", { params: { path: { id } } }));
      },
      deliveries: (id) =>
        everyPage((page) =>
          api().GET("/webhooks/{id}/deliveries", {
            params: { path: { id }, query: { page: String(page), per_page: "100" } },
          }),
        ),
    },
    watchFile: (fileId, streamOptions) =>
      eventStream(`/files/${encodeURIComponent(fileId)}/events`, streamOptions) as AsyncIterable<FileStreamEvent>,
    watchAccount: (streamOptions) => eventStream("/events", streamOptions) as AsyncIterable<AccountStreamEvent>,
    eventStream: (path, streamOptions) => eventStream(path, streamOptions),
  };
}
