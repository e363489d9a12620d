import type { FileRole } from "../people/role.js";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import { normaliseDisplayName } from "../shared/text-rules.js";
import type { ContentPiece } from "./content-pieces.js";

export type Visibility = "private" | "public";
export const VISIBILITIES: readonly Visibility[] = ["private", "public"];

/**
 * A file's life: `active` → `trashed` → purged. Purged files have no state: their row
 * and blob are gone.
 */
export type FileState = "active" | "trashed";

/** The spreadsheet formats Cellar accepts, keyed by their extension. */
export type FileKind = "csv" | "xlsx" | "sheet";

export const CONTENT_TYPES: Readonly<Record<FileKind, string>> = {
  csv: "text/csv",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  sheet: "application/octet-stream",
};

/** Everything stored about a file. `blobKey` names its bytes in the blob store. */
export interface FileRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly visibility: Visibility;
  readonly state: FileState;
  readonly kind: FileKind;
  readonly contentType: string;
  readonly size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  readonly sha256: string;
  readonly blobKey: string;
  /** Where its bytes are when they are pieces of several blobs (`StoredContent`); absent, they are blob `blobKey`'s. */
  readonly pieces?: readonly ContentPiece[];
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly trashedAt: Date | null;
  /** When a trashed file becomes due for permanent deletion. */
  readonly purgeAt: Date | null;
  /** The version of its content: 1 at upload, one more on every change of content. */
  readonly version: number;
}

/**
 * A file as the core shows it to one caller: the record less its storage details, with
 * the caller's `role` on it (`owner`, a role given to them, or null when they see it only
 * because it is public).
 */
export type FileMetadata = Omit<FileRecord, "blobKey" | "pieces"> & { readonly role: FileRole | null };

/**
 * Metadata made from frozen records, by record and role. A frozen record (a row the
 * SQLite adapter's read cache hands out) cannot change, so what is made from it once
 * stands as long as it lives; and the same metadata object lets the HTTP adapter reuse
 * the JSON it made for it (`rememberedJsonPayload`). Measured: remaking them cost the
 * hottest route, `GET /v1/files/:id`, about a tenth of its throughput.
 */
const metadataOfFrozen = new WeakMap<FileRecord, Partial<Record<FileRole | "none", FileMetadata>>>();

/**
 * What core shows of a stored file to a caller holding `role` on it: everything but where
 * its bytes are. Field by field, so that the type check catches a field added to
 * `FileRecord` and not here. For a frozen record, the same frozen metadata every time.
 */
export function toMetadata(record: FileRecord, role: FileRole | null): FileMetadata {
  if (!Object.isFrozen(record)) return metadataOf(record, role);
  let byRole = metadataOfFrozen.get(record);
  if (byRole === undefined) {
    byRole = {};
    metadataOfFrozen.set(record, byRole);
  }
  const key = role ?? "none";
  let metadata = byRole[key];
  if (metadata === undefined) {
    metadata = Object.freeze(metadataOf(record, role));
    byRole[key] = metadata;
  }
  return metadata;
}

function metadataOf(record: FileRecord, role: FileRole | null): FileMetadata {
  const metadata: Required<FileMetadata> = {
    id: record.id,
    ownerId: record.ownerId,
    name: record.name,
    visibility: record.visibility,
    state: record.state,
    kind: record.kind,
    contentType: record.contentType,
    size: record.size,
    sha256: record.sha256,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    trashedAt: record.trashedAt,
    purgeAt: record.purgeAt,
    version: record.version,
    role,
  };
  return metadata;
}

const MAX_FILE_NAME_LENGTH = 255;

/** Trimmed, 1–255 code points, no control characters. */
export function normaliseFileName(value: unknown, field = "name"): string {
  return normaliseDisplayName(value, field, { min: 1, max: MAX_FILE_NAME_LENGTH });
}

export function parseVisibility(value: unknown): Visibility {
  if (value === "private" || value === "public") return value;
  throw invalidField("visibility", "must be 'private' or 'public'");
}

/**
 * The base name of what a client called its upload: any folder part, in either slash
 * style, is dropped, so "C:\\reports\\q3.csv" and "../../q3.csv" both become "q3.csv".
 */
export function baseName(clientFileName: string): string {
  const parts = clientFileName.split(/[\\/]/);
  return parts[parts.length - 1] ?? "";
}

/**
 * The kind of an upload, from its file name's extension, case-insensitively. Anything
 * else is refused before a byte is stored.
 */
export function kindFromFileName(clientFileName: string): FileKind {
  const match = /\.([^.]+)$/.exec(baseName(clientFileName));
  const extension = match?.[1]?.toLowerCase();
  if (extension === "csv" || extension === "xlsx" || extension === "sheet") return extension;
  throw new CellarError(ErrorCode.unsupported_media_type, "Only .csv, .xlsx and .sheet files can be uploaded.");
}

/** The name to show for a download: the kind's extension added when the name lacks it. */
export function downloadName(file: Pick<FileRecord, "name" | "kind">): string {
  return file.name.toLowerCase().endsWith(`.${file.kind}`) ? file.name : `${file.name}.${file.kind}`;
}
