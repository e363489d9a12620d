import { type FileRole, type Role, roleIncludes } from "../people/role.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import type { FileRecord } from "./file.entity.js";
import type { FileWithRole } from "./file-repository.port.js";

/**
 * Everything a caller may ask of one file, and the least role each needs. Some are for
 * what is yet to come (versions, cell edits, comments, event streams): they are decided
 * here already, so that they follow the same table.
 */
const LEAST_ROLE = {
  // viewer: read the file and what describes it.
  get: "viewer", // GET /files/:id
  download: "viewer", // its bytes, or them converted (?format=)
  read_cells: "viewer", // its sheets and cell values
  list_versions: "viewer",
  download_version: "viewer", // an old version's bytes
  list_permissions: "viewer", // a role held on it, though: see NEEDS_GIVEN_ROLE
  list_activity: "viewer", // a role held on it, though: see NEEDS_GIVEN_ROLE
  read_comments: "viewer",
  watch: "viewer", // open an event stream of the file
  leave: "viewer", // remove one's own permission
  // commenter: also talk about it.
  write_comment: "commenter", // post, and change or delete one's own comments
  // editor: also change its name and content.
  rename: "editor", // PATCH name
  replace_content: "editor",
  edit_cells: "editor",
  append_rows: "editor",
  restore_version: "editor",
  keep_version: "editor",
  resolve_any_comment: "editor",
  // owner: also who sees it, and whether it exists.
  change_visibility: "owner", // PATCH visibility
  trash: "owner",
  restore: "owner", // from the trash
  share: "owner", // give a role
  change_role: "owner",
  unshare: "owner", // take someone's role away
  delete_any_comment: "owner",
} as const satisfies Record<string, FileRole>;

export type FileAction = keyof typeof LEAST_ROLE;

/** Every action, least role first. */
export const FILE_ACTIONS = Object.keys(LEAST_ROLE) as FileAction[];

/** The least role `action` needs. */
export function leastRoleFor(action: FileAction): FileRole {
  return LEAST_ROLE[action];
}

/**
 * What the owner may still do with a trashed file: see it and what describes it, and take
 * it out of the trash (or put it in again, which changes nothing). Reading its content
 * and every other change waits until it is restored.
 */
const OWNER_WHILE_TRASHED: ReadonlySet<FileAction> = new Set<FileAction>([
  "get",
  "list_versions",
  "list_permissions",
  "list_activity",
  "read_comments",
  "watch",
  "trash",
  "restore",
]);

/**
 * What needs a role held on the file, not only the viewing anyone signed in has of a
 * public one, and why: its people and its activity tell the addresses of those it is
 * shared with, which only they and the owner are shown (decisions §7).
 */
const NEEDS_GIVEN_ROLE: Partial<Record<FileAction, string>> = {
  list_permissions: "Only people the file is shared with may see its people.",
  list_activity: "Only people the file is shared with may see its activity.",
};

/** Whether `action` needs a role held on the file: a public file's no-role caller may not do it. */
export function needsGivenRole(action: FileAction): boolean {
  return NEEDS_GIVEN_ROLE[action] !== undefined;
}

export type AccessDecision = "allow" | "not_found" | "forbidden" | "file_in_trash";

/**
 * A caller's role on a file: `owner` for its owner, else the role a permission gives them,
 * else null (they may still see it when it is public).
 */
export function callerRole(file: FileRecord, callerId: string, given: Role | null): FileRole | null {
  return file.ownerId === callerId ? "owner" : given;
}

/**
 * Who may do what to a file: the one place that decides it. `role` is the caller's
 * (`callerRole`); anyone signed in is a viewer of a public, active file.
 *
 * | action              | needs     | owner | owner, trashed | editor | commenter | viewer | no role, public | no role, private | anyone else, trashed |
 * |---------------------|-----------|-------|----------------|--------|-----------|--------|-----------------|------------------|----------------------|
 * | get                 | viewer    | allow | allow          | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | download            | viewer    | allow | 409            | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | read_cells          | viewer    | allow | 409            | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | list_versions       | viewer    | allow | allow          | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | download_version    | viewer    | allow | 409            | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | list_permissions    | viewer¹   | allow | allow          | allow  | allow     | allow  | 403             | 404              | 404                  |
 * | list_activity       | viewer¹   | allow | allow          | allow  | allow     | allow  | 403             | 404              | 404                  |
 * | read_comments       | viewer    | allow | allow          | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | watch               | viewer    | allow | allow          | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | leave               | viewer    | allow | 409            | allow  | allow     | allow  | allow           | 404              | 404                  |
 * | write_comment       | commenter | allow | 409            | allow  | allow     | 403    | 403             | 404              | 404                  |
 * | rename              | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | replace_content     | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | edit_cells          | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | append_rows         | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | restore_version     | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | keep_version        | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | resolve_any_comment | editor    | allow | 409            | allow  | 403       | 403    | 403             | 404              | 404                  |
 * | change_visibility   | owner     | allow | 409            | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | trash               | owner     | allow | allow          | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | restore             | owner     | allow | allow          | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | share               | owner     | allow | 409            | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | change_role         | owner     | allow | 409            | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | unshare             | owner     | allow | 409            | 403    | 403       | 403    | 403             | 404              | 404                  |
 * | delete_any_comment  | owner     | allow | 409            | 403    | 403       | 403    | 403             | 404              | 404                  |
 *
 * The columns editor, commenter and viewer hold for a private file and a public one
 * alike; "no role, public" is a public, active file's every other signed-in caller (a
 * viewer, whose file object says `role: null`). ¹ A role held on the file: the viewing
 * anyone has of a public file is not enough (`needsGivenRole`), since its people and its
 * activity tell the addresses of those it is shared with. 403 is `forbidden`, 404 `not_found`,
 * 409 `file_in_trash`. A file someone may not see is answered exactly as a missing one,
 * so its existence is never revealed: only the owner sees a trashed file.
 */
export function decideFileAccess(action: FileAction, file: FileRecord | null, role: FileRole | null): AccessDecision {
  if (file === null) return "not_found";
  if (role === "owner") {
    return file.state === "active" || OWNER_WHILE_TRASHED.has(action) ? "allow" : "file_in_trash";
  }
  if (file.state !== "active" || (role === null && file.visibility !== "public")) return "not_found";
  if (role === null && needsGivenRole(action)) return "forbidden";
  return roleIncludes(role ?? "viewer", LEAST_ROLE[action]) ? "allow" : "forbidden";
}

/** A file a caller may act on, and their role on it (`null`: they see it because it is public). */
export interface AuthorizedFile {
  readonly file: FileRecord;
  readonly role: FileRole | null;
}

const REFUSALS: Record<Exclude<AccessDecision, "allow">, (action: FileAction) => CellarError> = {
  not_found: () => new CellarError(ErrorCode.not_found, "No such file."),
  forbidden: (action) =>
    new CellarError(
      ErrorCode.forbidden,
      // A role-needing action is refused only to a caller holding none.
      NEEDS_GIVEN_ROLE[action] ??
        (LEAST_ROLE[action] === "owner"
          ? "Only the file's owner may do that."
          : `Only someone the file is shared with as ${LEAST_ROLE[action] === "editor" ? "an editor" : "a commenter"} or more may do that.`),
    ),
  file_in_trash: () => new CellarError(ErrorCode.file_in_trash, "The file is in the trash; restore it first."),
};

/**
 * Decides `action` for `callerId` on what `FileRepository.findWithRole` found: returns
 * the file and the caller's role when it is allowed, throws the matching error otherwise.
 */
export function authorizeFileAction(action: FileAction, found: FileWithRole | null, callerId: string): AuthorizedFile {
  const role = found === null ? null : callerRole(found.file, callerId, found.role);
  const decision = decideFileAccess(action, found?.file ?? null, role);
  if (decision !== "allow") throw REFUSALS[decision](action);
  return { file: (found as FileWithRole).file, role };
}
