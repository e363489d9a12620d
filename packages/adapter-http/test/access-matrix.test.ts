import type { InjectOptions } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import type { SharedJson } from "../src/people/permission.json.js";
import { buildTestApp, type FileBody, type TestApp } from "./support/test-app.js";

/**
 * The access matrix of decisions §7 ("Roles", "People", "Live": comments) and of core's file-access.ts,
 * walked through the real HTTP adapter: every route that exists × every kind of caller ×
 * every file state. The expected statuses are written out below, cell by cell, not
 * computed from core: a change of any cell in core's decision fails this test.
 */

type Caller = "owner" | "editor" | "commenter" | "viewer" | "stranger";
type State = "private active" | "public active" | "private trashed" | "public trashed";
type Status = 200 | 201 | 204 | 403 | 404 | 409;
/**
 * A request that cannot be made: the owner and a stranger hold no permission of their own
 * to leave; a viewer and a stranger wrote no comment of their own.
 */
type NotApplicable = "n/a";
type Cells = Readonly<Record<Caller, Status | NotApplicable>>;

type Route =
  | "GET /files/:id"
  | "PATCH /files/:id {name}"
  | "PATCH /files/:id {visibility}"
  | "DELETE /files/:id"
  | "POST /files/:id/restore"
  | "GET /files/:id/download"
  | "GET /files/:id/download?format=xlsx"
  | "GET /files/:id/sheets"
  | "GET /files/:id/values?range=A1:B2"
  | "GET /files/:id/permissions"
  | "POST /files/:id/permissions"
  | "PATCH /files/:id/permissions/:pid (someone else's)"
  | "DELETE /files/:id/permissions/:pid (someone else's)"
  | "DELETE /files/:id/permissions/:pid (one's own: leaving)"
  | "GET /files/:id/activity"
  | "GET /files/:id/versions"
  | "PATCH /files/:id/versions/:n {keep}"
  | "POST /files/:id/versions/:n/restore"
  | "GET /files/:id/versions/:n/download"
  | "PUT /files/:id/content"
  | "PATCH /files/:id/values"
  | "POST /files/:id/rows"
  | "GET /files/:id/comments"
  | "POST /files/:id/comments"
  | "PATCH /files/:id/comments/:cid {text} (one's own)"
  | "PATCH /files/:id/comments/:cid {text} (someone else's)"
  | "PATCH /files/:id/comments/:cid {resolved} (one's own thread)"
  | "PATCH /files/:id/comments/:cid {resolved} (someone else's thread)"
  | "DELETE /files/:id/comments/:cid (one's own)"
  | "DELETE /files/:id/comments/:cid (someone else's)";

const CALLERS: readonly Caller[] = ["owner", "editor", "commenter", "viewer", "stranger"];
const STATES: readonly State[] = ["private active", "public active", "private trashed", "public trashed"];

// biome-ignore format: the table reads best one row a line
const MATRIX: readonly (readonly [Route, State, Cells])[] = [
  ["GET /files/:id", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id {name}", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id {name}", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id {name}", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id {name}", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id {visibility}", "private active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id {visibility}", "public active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id {visibility}", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id {visibility}", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["DELETE /files/:id", "private active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["DELETE /files/:id", "public active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["DELETE /files/:id", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["DELETE /files/:id", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["POST /files/:id/restore", "private active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["POST /files/:id/restore", "public active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["POST /files/:id/restore", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["POST /files/:id/restore", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/download", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/download", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/download", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/download", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/download?format=xlsx", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/download?format=xlsx", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/download?format=xlsx", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/download?format=xlsx", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/sheets", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/sheets", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/sheets", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/sheets", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/values?range=A1:B2", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/values?range=A1:B2", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/values?range=A1:B2", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/values?range=A1:B2", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/permissions", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/permissions", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 403 }],
  ["GET /files/:id/permissions", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/permissions", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["POST /files/:id/permissions", "private active", { owner: 201, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["POST /files/:id/permissions", "public active", { owner: 201, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["POST /files/:id/permissions", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["POST /files/:id/permissions", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id/permissions/:pid (someone else's)", "private active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id/permissions/:pid (someone else's)", "public active", { owner: 200, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id/permissions/:pid (someone else's)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id/permissions/:pid (someone else's)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["DELETE /files/:id/permissions/:pid (someone else's)", "private active", { owner: 204, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["DELETE /files/:id/permissions/:pid (someone else's)", "public active", { owner: 204, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["DELETE /files/:id/permissions/:pid (someone else's)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["DELETE /files/:id/permissions/:pid (someone else's)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["DELETE /files/:id/permissions/:pid (one's own: leaving)", "private active", { owner: "n/a", editor: 204, commenter: 204, viewer: 204, stranger: "n/a" }],
  ["DELETE /files/:id/permissions/:pid (one's own: leaving)", "public active", { owner: "n/a", editor: 204, commenter: 204, viewer: 204, stranger: "n/a" }],
  ["DELETE /files/:id/permissions/:pid (one's own: leaving)", "private trashed", { owner: "n/a", editor: 404, commenter: 404, viewer: 404, stranger: "n/a" }],
  ["DELETE /files/:id/permissions/:pid (one's own: leaving)", "public trashed", { owner: "n/a", editor: 404, commenter: 404, viewer: 404, stranger: "n/a" }],

  ["GET /files/:id/activity", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/activity", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 403 }],
  ["GET /files/:id/activity", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/activity", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/versions", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/versions", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/versions", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/versions", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id/versions/:n {keep}", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id/versions/:n {keep}", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id/versions/:n {keep}", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id/versions/:n {keep}", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["POST /files/:id/versions/:n/restore", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["POST /files/:id/versions/:n/restore", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["POST /files/:id/versions/:n/restore", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["POST /files/:id/versions/:n/restore", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/versions/:n/download", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/versions/:n/download", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/versions/:n/download", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/versions/:n/download", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PUT /files/:id/content", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["PUT /files/:id/content", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["PUT /files/:id/content", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PUT /files/:id/content", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id/values", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id/values", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id/values", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id/values", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["POST /files/:id/rows", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["POST /files/:id/rows", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["POST /files/:id/rows", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["POST /files/:id/rows", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["GET /files/:id/comments", "private active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 404 }],
  ["GET /files/:id/comments", "public active", { owner: 200, editor: 200, commenter: 200, viewer: 200, stranger: 200 }],
  ["GET /files/:id/comments", "private trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["GET /files/:id/comments", "public trashed", { owner: 200, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["POST /files/:id/comments", "private active", { owner: 201, editor: 201, commenter: 201, viewer: 403, stranger: 404 }],
  ["POST /files/:id/comments", "public active", { owner: 201, editor: 201, commenter: 201, viewer: 403, stranger: 403 }],
  ["POST /files/:id/comments", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["POST /files/:id/comments", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id/comments/:cid {text} (one's own)", "private active", { owner: 200, editor: 200, commenter: 200, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {text} (one's own)", "public active", { owner: 200, editor: 200, commenter: 200, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {text} (one's own)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {text} (one's own)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],

  ["PATCH /files/:id/comments/:cid {text} (someone else's)", "private active", { owner: 403, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id/comments/:cid {text} (someone else's)", "public active", { owner: 403, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id/comments/:cid {text} (someone else's)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id/comments/:cid {text} (someone else's)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["PATCH /files/:id/comments/:cid {resolved} (one's own thread)", "private active", { owner: 200, editor: 200, commenter: 200, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {resolved} (one's own thread)", "public active", { owner: 200, editor: 200, commenter: 200, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {resolved} (one's own thread)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],
  ["PATCH /files/:id/comments/:cid {resolved} (one's own thread)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],

  ["PATCH /files/:id/comments/:cid {resolved} (someone else's thread)", "private active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 404 }],
  ["PATCH /files/:id/comments/:cid {resolved} (someone else's thread)", "public active", { owner: 200, editor: 200, commenter: 403, viewer: 403, stranger: 403 }],
  ["PATCH /files/:id/comments/:cid {resolved} (someone else's thread)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["PATCH /files/:id/comments/:cid {resolved} (someone else's thread)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],

  ["DELETE /files/:id/comments/:cid (one's own)", "private active", { owner: 204, editor: 204, commenter: 204, viewer: "n/a", stranger: "n/a" }],
  ["DELETE /files/:id/comments/:cid (one's own)", "public active", { owner: 204, editor: 204, commenter: 204, viewer: "n/a", stranger: "n/a" }],
  ["DELETE /files/:id/comments/:cid (one's own)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],
  ["DELETE /files/:id/comments/:cid (one's own)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: "n/a", stranger: "n/a" }],

  ["DELETE /files/:id/comments/:cid (someone else's)", "private active", { owner: 204, editor: 403, commenter: 403, viewer: 403, stranger: 404 }],
  ["DELETE /files/:id/comments/:cid (someone else's)", "public active", { owner: 204, editor: 403, commenter: 403, viewer: 403, stranger: 403 }],
  ["DELETE /files/:id/comments/:cid (someone else's)", "private trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
  ["DELETE /files/:id/comments/:cid (someone else's)", "public trashed", { owner: 409, editor: 404, commenter: 404, viewer: 404, stranger: 404 }],
];

/** Whether `GET /files?shared=true` lists the file to each caller: to the people it is shared with, while it is active. */
// biome-ignore format: the table reads best one row a line
const SHARED_LISTING: readonly (readonly [State, Readonly<Record<Caller, boolean>>])[] = [
  ["private active", { owner: false, editor: true, commenter: true, viewer: true, stranger: false }],
  ["public active", { owner: false, editor: true, commenter: true, viewer: true, stranger: false }],
  ["private trashed", { owner: false, editor: false, commenter: false, viewer: false, stranger: false }],
  ["public trashed", { owner: false, editor: false, commenter: false, viewer: false, stranger: false }],
];

/** The `role` each caller's file object says, wherever they may see the file. */
const ROLE_IN_BODY: Readonly<Record<Caller, string | null>> = {
  owner: "owner",
  editor: "editor",
  commenter: "commenter",
  viewer: "viewer",
  stranger: null,
};

/** The error code that goes with each refusal. */
const ERROR_CODES: Readonly<Record<number, string>> = { 403: "forbidden", 404: "not_found", 409: "file_in_trash" };

/**
 * A person who holds a role on every file (commenter) but never calls the routes under
 * test: whose permission, and whose comment, is "someone else's" to everyone.
 */
const BYSTANDER = "bystander@example.com";

type Headers = { authorization: string };
type Held = "editor" | "commenter" | "viewer";

/** Who wrote a comment on each file that has them. */
type Author = "owner" | "editor" | "commenter" | "bystander";

/**
 * A file in a given state, shared with the three roles and the bystander, and the ids of
 * those permissions; and, for the routes that need them, of a comment by each who may
 * write one (made before the file went to the trash).
 */
interface Fixture {
  readonly file: FileBody;
  readonly permissions: Readonly<Record<Held | "bystander", string>>;
  readonly comments: Readonly<Partial<Record<Author, string>>>;
}

interface RouteSpec {
  /** Whether the call may change the file: then every cell gets a fresh file. */
  readonly mutates: boolean;
  /** Whether the call needs comments on the file. */
  readonly comments?: boolean;
  /** The request, or null when the caller cannot make it; its headers go with the caller's. */
  readonly request: (
    fixture: Fixture,
    caller: Caller,
  ) => (Omit<InjectOptions, "headers"> & { headers?: Record<string, string> }) | null;
}

const HELD: readonly Held[] = ["editor", "commenter", "viewer"];
const isHeld = (caller: Caller): caller is Held => (HELD as readonly string[]).includes(caller);
const AUTHORS: readonly Author[] = ["owner", "editor", "commenter", "bystander"];
const isAuthor = (caller: Caller): caller is Author & Caller => (AUTHORS as readonly string[]).includes(caller);

/** The caller's own comment, or null when they wrote none (a viewer, a stranger). */
const ownComment = ({ comments }: Fixture, caller: Caller) => (isAuthor(caller) ? (comments[caller] ?? null) : null);

/** A request on a comment of the fixture's file. */
const onComment = (
  { file }: Fixture,
  commentId: string | null,
  method: "PATCH" | "DELETE",
  payload?: Record<string, unknown>,
) =>
  commentId === null
    ? null
    : {
        method,
        url: `/v1/files/${file.id}/comments/${commentId}`,
        ...(payload === undefined ? {} : { payload }),
      };

const ROUTES: Readonly<Record<Route, RouteSpec>> = {
  "GET /files/:id": { mutates: false, request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}` }) },
  "PATCH /files/:id {name}": {
    mutates: true,
    request: ({ file }) => ({ method: "PATCH", url: `/v1/files/${file.id}`, payload: { name: "Renamed.csv" } }),
  },
  "PATCH /files/:id {visibility}": {
    mutates: true,
    request: ({ file }) => ({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      payload: { visibility: file.visibility === "public" ? "private" : "public" },
    }),
  },
  "DELETE /files/:id": { mutates: true, request: ({ file }) => ({ method: "DELETE", url: `/v1/files/${file.id}` }) },
  "POST /files/:id/restore": {
    mutates: true,
    request: ({ file }) => ({ method: "POST", url: `/v1/files/${file.id}/restore` }),
  },
  "GET /files/:id/download": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/download` }),
  },
  "GET /files/:id/download?format=xlsx": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/download?format=xlsx` }),
  },
  "GET /files/:id/sheets": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/sheets` }),
  },
  "GET /files/:id/values?range=A1:B2": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/values?range=A1:B2` }),
  },
  "GET /files/:id/permissions": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/permissions` }),
  },
  "POST /files/:id/permissions": {
    mutates: true,
    request: ({ file }) => ({
      method: "POST",
      url: `/v1/files/${file.id}/permissions`,
      payload: { email: "newcomer@example.com", role: "viewer", notify: false },
    }),
  },
  "PATCH /files/:id/permissions/:pid (someone else's)": {
    mutates: true,
    request: ({ file, permissions }) => ({
      method: "PATCH",
      url: `/v1/files/${file.id}/permissions/${permissions.bystander}`,
      payload: { role: "editor" },
    }),
  },
  "DELETE /files/:id/permissions/:pid (someone else's)": {
    mutates: true,
    request: ({ file, permissions }) => ({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/${permissions.bystander}`,
    }),
  },
  "DELETE /files/:id/permissions/:pid (one's own: leaving)": {
    mutates: true,
    request: ({ file, permissions }, caller) =>
      isHeld(caller) ? { method: "DELETE", url: `/v1/files/${file.id}/permissions/${permissions[caller]}` } : null,
  },
  "GET /files/:id/activity": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/activity` }),
  },
  "GET /files/:id/versions": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/versions` }),
  },
  "PATCH /files/:id/versions/:n {keep}": {
    mutates: true,
    request: ({ file }) => ({ method: "PATCH", url: `/v1/files/${file.id}/versions/1`, payload: { keep: true } }),
  },
  "POST /files/:id/versions/:n/restore": {
    mutates: true,
    request: ({ file }) => ({
      method: "POST",
      url: `/v1/files/${file.id}/versions/1/restore`,
      headers: { "if-match": "*" },
    }),
  },
  "GET /files/:id/versions/:n/download": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/versions/1/download` }),
  },
  "PUT /files/:id/content": {
    mutates: true,
    request: ({ file }) => ({
      method: "PUT",
      url: `/v1/files/${file.id}/content`,
      headers: { "if-match": "*", "content-type": "text/csv" },
      payload: "a,b\n5,6\n",
    }),
  },
  "PATCH /files/:id/values": {
    mutates: true,
    request: ({ file }) => ({
      method: "PATCH",
      url: `/v1/files/${file.id}/values`,
      headers: { "if-match": "*" },
      payload: { range: "A1", values: [["x"]] },
    }),
  },
  "POST /files/:id/rows": {
    mutates: true,
    request: ({ file }) => ({ method: "POST", url: `/v1/files/${file.id}/rows`, payload: { values: [["x", 1]] } }),
  },
  "GET /files/:id/comments": {
    mutates: false,
    request: ({ file }) => ({ method: "GET", url: `/v1/files/${file.id}/comments` }),
  },
  "POST /files/:id/comments": {
    mutates: true,
    request: ({ file }) => ({ method: "POST", url: `/v1/files/${file.id}/comments`, payload: { text: "Hello" } }),
  },
  "PATCH /files/:id/comments/:cid {text} (one's own)": {
    mutates: true,
    comments: true,
    request: (fixture, caller) => onComment(fixture, ownComment(fixture, caller), "PATCH", { text: "Changed" }),
  },
  "PATCH /files/:id/comments/:cid {text} (someone else's)": {
    mutates: true,
    comments: true,
    request: (fixture) => onComment(fixture, fixture.comments.bystander ?? null, "PATCH", { text: "Changed" }),
  },
  "PATCH /files/:id/comments/:cid {resolved} (one's own thread)": {
    mutates: true,
    comments: true,
    request: (fixture, caller) => onComment(fixture, ownComment(fixture, caller), "PATCH", { resolved: true }),
  },
  "PATCH /files/:id/comments/:cid {resolved} (someone else's thread)": {
    mutates: true,
    comments: true,
    request: (fixture) => onComment(fixture, fixture.comments.bystander ?? null, "PATCH", { resolved: true }),
  },
  "DELETE /files/:id/comments/:cid (one's own)": {
    mutates: true,
    comments: true,
    request: (fixture, caller) => onComment(fixture, ownComment(fixture, caller), "DELETE"),
  },
  "DELETE /files/:id/comments/:cid (someone else's)": {
    mutates: true,
    comments: true,
    request: (fixture) => onComment(fixture, fixture.comments.bystander ?? null, "DELETE"),
  },
};

describe("the access matrix: every route × every caller × every file state", () => {
  let t: TestApp;
  const users = {} as Record<Caller | "bystander", { headers: Headers; email: string }>;
  /** One file per state for the routes that change nothing. */
  const readOnly = new Map<State, Fixture>();
  let made = 0;

  /**
   * A fresh file of the owner's in `state`, shared with the editor, commenter, viewer and
   * bystander; with a comment by each who may write one when `withComments`.
   */
  async function fileIn(state: State, withComments = false, name = `matrix-${++made}.csv`): Promise<Fixture> {
    const [visibility, lifecycle] = state.split(" ") as ["private" | "public", "active" | "trashed"];
    const file = await t.uploadCsv(users.owner.headers, { name, visibility });
    const permissions = {} as Record<Held | "bystander", string>;
    for (const [who, email, role] of [
      ["editor", users.editor.email, "editor"],
      ["commenter", users.commenter.email, "commenter"],
      ["viewer", users.viewer.email, "viewer"],
      ["bystander", BYSTANDER, "commenter"],
    ] as const) {
      const shared = await t.share(users.owner.headers, file.id, { email, role, notify: false });
      if (shared.statusCode !== 201) throw new Error(`Sharing answered ${shared.statusCode}: ${shared.body}`);
      permissions[who] = shared.json<SharedJson>().id;
    }
    const comments: Partial<Record<Author, string>> = {};
    for (const author of withComments ? AUTHORS : []) {
      const written = await t.inject({
        method: "POST",
        url: `/v1/files/${file.id}/comments`,
        headers: users[author].headers,
        payload: { text: `By the ${author}` },
      });
      if (written.statusCode !== 201) throw new Error(`Commenting answered ${written.statusCode}: ${written.body}`);
      comments[author] = written.json<{ id: string }>().id;
    }
    if (lifecycle === "trashed") {
      const trashed = await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: users.owner.headers });
      if (trashed.statusCode !== 200) throw new Error(`Trashing answered ${trashed.statusCode}: ${trashed.body}`);
    }
    return { file, permissions, comments };
  }

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 1_000_000 } });
    for (const caller of CALLERS) {
      const email = `${caller}@example.com`;
      users[caller] = { headers: (await t.signIn(email)).headers, email };
    }
    users.bystander = { headers: (await t.signIn(BYSTANDER)).headers, email: BYSTANDER };
    for (const state of STATES) readOnly.set(state, await fileIn(state));
  });

  it("has one row for every route in every state", () => {
    const rows = MATRIX.map(([route, state]) => `${route} | ${state}`);
    const wanted = Object.keys(ROUTES).flatMap((route) => STATES.map((state) => `${route} | ${state}`));
    expect(rows).toEqual(wanted);
  });

  it.each(MATRIX)("%s on a %s file", async (route, state, expected) => {
    const spec = ROUTES[route];
    const answered = {} as Record<Caller, number | string>;
    for (const caller of CALLERS) {
      const fixture = spec.mutates ? await fileIn(state, spec.comments === true) : (readOnly.get(state) as Fixture);
      const request = spec.request(fixture, caller);
      if (request === null) {
        answered[caller] = "n/a";
        continue;
      }
      const response = await t.inject({
        ...request,
        headers: { ...users[caller].headers, ...request.headers },
      } as InjectOptions);
      const status = response.statusCode;
      const code = ERROR_CODES[status];
      const actualCode = status >= 400 ? response.json<{ error?: { code?: string } }>().error?.code : undefined;
      // A status with the wrong error code shows as both, so the cell cannot pass.
      answered[caller] = code === undefined || actualCode === code ? status : `${status} ${actualCode}`;
    }
    expect(answered).toEqual(expected);
  });

  it.each(STATES)('GET /files/:id names each caller\'s role and answers ETag "<sha256>" (%s file)', async (state) => {
    const { file } = readOnly.get(state) as Fixture;
    expect(file.sha256).toMatch(/^[0-9a-f]{64}$/);
    for (const caller of CALLERS) {
      const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: users[caller].headers });
      if (response.statusCode !== 200) continue; // The matrix says who may see it.
      expect(response.json<FileBody>().role, caller).toBe(ROLE_IN_BODY[caller]);
      expect(response.headers.etag, caller).toBe(`"${file.sha256}"`);
    }
  });

  it.each(SHARED_LISTING)(
    "GET /files?shared=true lists a %s file to the people it is shared with",
    async (state, expected) => {
      const name = `listed-${state.replace(" ", "-")}.csv`;
      const { file } = await fileIn(state, false, name);
      const listed = {} as Record<Caller, boolean>;
      for (const caller of CALLERS) {
        const response = await t.inject({
          method: "GET",
          url: `/v1/files?shared=true&q=${encodeURIComponent(name)}`,
          headers: users[caller].headers,
        });
        expect(response.statusCode, caller).toBe(200);
        const found = response.json<FileBody[]>().find((candidate) => candidate.id === file.id);
        listed[caller] = found !== undefined;
        if (found !== undefined) expect(found.role, caller).toBe(ROLE_IN_BODY[caller]);
      }
      expect(listed).toEqual(expected);
    },
  );
});
