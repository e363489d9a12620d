import { type FileMetadata, type FileState, rememberedForFrozen, type Visibility } from "@cellar/core";
import { isoTimestamp } from "../shared/iso-timestamp.js";

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
}

/**
 * The one mapping from core's file to the API's JSON. Frozen metadata (a row core read
 * from a cache) never changes, so its JSON is made once and reused.
 */
export const toFileJson: (file: FileMetadata) => FileJson = rememberedForFrozen(fileJsonOf);

function fileJsonOf(file: FileMetadata): FileJson {
  return {
    id: file.id,
    name: file.name,
    visibility: file.visibility,
    created_at: isoTimestamp(file.createdAt),
    updated_at: isoTimestamp(file.updatedAt),
    size: file.size,
    content_type: file.contentType,
    sha256: file.sha256,
    owner_id: file.ownerId,
    state: file.state,
    trashed_at: file.trashedAt === null ? null : isoTimestamp(file.trashedAt),
    purge_at: file.purgeAt === null ? null : isoTimestamp(file.purgeAt),
  };
}
