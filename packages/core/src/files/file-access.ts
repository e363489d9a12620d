import { CellarError, ErrorCode } from "../shared/errors.js";
import type { FileRecord } from "./file.entity.js";

export type FileAction = "get" | "list" | "patch" | "trash" | "restore" | "download";

export type AccessDecision = "allow" | "not_found" | "forbidden" | "file_in_trash";

/**
 * Who may do what to a file: the one place that decides it.
 *
 * | caller | file              | get   | list  | patch | trash | restore | download |
 * |--------|-------------------|-------|-------|-------|-------|---------|----------|
 * | owner  | active            | allow | allow | allow | allow | allow   | allow    |
 * | owner  | trashed           | allow | allow | 409   | allow | allow   | 409      |
 * | other  | public, active    | allow | 404   | 403   | 403   | 403     | allow    |
 * | other  | private, any      | 404   | 404   | 404   | 404   | 404     | 404      |
 * | other  | public, trashed   | 404   | 404   | 404   | 404   | 404     | 404      |
 *
 * A file someone else may not see is answered exactly as a missing one, so its
 * existence is never revealed. `list` only ever shows the caller's own files.
 */
export function decideFileAccess(action: FileAction, file: FileRecord | null, callerId: string): AccessDecision {
  if (file === null) return "not_found";
  if (file.ownerId === callerId) {
    if (file.state === "trashed" && (action === "patch" || action === "download")) return "file_in_trash";
    return "allow";
  }
  if (file.visibility !== "public" || file.state !== "active" || action === "list") return "not_found";
  return action === "get" || action === "download" ? "allow" : "forbidden";
}

const REFUSALS: Record<Exclude<AccessDecision, "allow">, () => CellarError> = {
  not_found: () => new CellarError(ErrorCode.not_found, "No such file."),
  forbidden: () => new CellarError(ErrorCode.forbidden, "Only the file's owner may do that."),
  file_in_trash: () => new CellarError(ErrorCode.file_in_trash, "The file is in the trash; restore it first."),
};

/** Returns the file when `action` is allowed, throws the matching error otherwise. */
export function authorizeFileAction(action: FileAction, file: FileRecord | null, callerId: string): FileRecord {
  const decision = decideFileAccess(action, file, callerId);
  if (decision !== "allow") throw REFUSALS[decision]();
  return file as FileRecord;
}
