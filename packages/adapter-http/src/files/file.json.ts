import type { FileMetadata, FileRole, FileState, Visibility } from "@cellar/core";

/** A file as the API shows it; see `fileSchema`. */
export interface FileJson {
  readonly id: string;
  readonly name: string;
  readonly visibility: Visibility;
  readonly created_at: string;
  readonly updated_at: string;
  readonly size: number;
  readonly content_type: string;
  readonly sha256: string;
  readonly owner_id: string;
  readonly state: FileState;
  readonly trashed_at: string | null;
  readonly purge_at: string | null;
  /** The caller's role on the file; null when they see it only because it is public. */
  readonly role: FileRole | null;
  /** 1 at upload, one more on every change of content. */
  readonly version: number;
}

/**
 * JSON made for frozen metadata (see core's `toMetadata`), which cannot change. Core makes
 * one frozen metadata object per record and caller's role, so the JSON remembered for one
 * is never shown to a caller holding another role.
 */
const jsonOfFrozen = new WeakMap<FileMetadata, FileJson>();

/** The one mapping from core's file to the API's JSON; for frozen metadata, the same frozen JSON every time. */
export function toFileJson(file: FileMetadata): FileJson {
  if (!Object.isFrozen(file)) return fileJsonOf(file);
  let json = jsonOfFrozen.get(file);
  if (json === undefined) {
    json = Object.freeze(fileJsonOf(file));
    jsonOfFrozen.set(file, json);
  }
  return json;
}

function fileJsonOf(file: FileMetadata): FileJson {
  return {
    id: file.id,
    name: file.name,
    visibility: file.visibility,
    created_at: file.createdAt.toISOString(),
    updated_at: file.updatedAt.toISOString(),
    size: file.size,
    content_type: file.contentType,
    sha256: file.sha256,
    owner_id: file.ownerId,
    state: file.state,
    trashed_at: file.trashedAt === null ? null : file.trashedAt.toISOString(),
    purge_at: file.purgeAt === null ? null : file.purgeAt.toISOString(),
    role: file.role,
    version: file.version,
  };
}
