import { type ActivityAction, type ActivityEntry, newActivityEntry } from "../activity/activity.entity.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import { NEWEST_SHARE_FIRST } from "../people/shared-files.js";
import type { Clock } from "../shared/clock.port.js";
import { invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import type { BlobStore, ByteRange, StoredBlob } from "./blob-store.port.js";
import { type RangeRequest, resolveByteRange } from "./byte-range.js";
import { type ContentHashes, dropBlob as dropStoredBlob, storeCheckedBytes } from "./checked-bytes.js";
import { readContent } from "./content-pieces.js";
import { owningBlobKey, sheetRowsBlobKey } from "./derived-blob-keys.js";
import {
  baseName,
  CONTENT_TYPES,
  downloadName,
  type FileKind,
  type FileMetadata,
  type FileRecord,
  kindFromFileName,
  normaliseFileName,
  parseVisibility,
  toMetadata,
  type Visibility,
} from "./file.entity.js";
import { type AuthorizedFile, authorizeFileAction, type FileAction } from "./file-access.js";
import { toFileListRequest } from "./file-listing.js";
import type { FileChanges, FileRepository } from "./file-repository.port.js";

export interface FileServiceDeps {
  readonly files: FileRepository;
  /** For the files others share with the caller. */
  readonly permissions: PermissionRepository;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly maxUploadBytes: number;
  readonly trashRetentionDays: number;
  /** Where an upload's hash states are kept, so that its first edit hashes from about where it is. */
  readonly hashes?: ContentHashes;
  /** Told of every file once its row is stored; it must not throw, and is not awaited. */
  readonly onCommitted?: (file: FileRecord) => void;
}

/**
 * An upload whose bytes are stored and checked but which has no row yet. Adapters that
 * learn the file's name only after its bytes (multipart parts in any order) hold one of
 * these, then `commit` or `discard` it.
 */
export interface ReceivedUpload {
  readonly fileId: string;
  readonly ownerId: string;
  readonly blobKey: string;
  readonly kind: FileKind;
  readonly size: number;
  readonly sha256: string;
  /** The client's file name without any folder part: the default display name. */
  readonly clientBaseName: string;
}

export interface UploadOptions {
  readonly name?: unknown;
  readonly visibility?: unknown;
}

export interface Download {
  readonly file: FileMetadata;
  /** The name to offer the client: the display name with its kind's extension. */
  readonly fileName: string;
  readonly contentType: string;
  /** The part of the file served, or null for all of it. */
  readonly range: ByteRange | null;
  /** Bytes in the body: the range's length, or the content's size. */
  readonly contentLength: number;
  /** The SHA-256 of the whole content served (the file's, or one version's): its entity tag. */
  readonly sha256: string;
  /** The size of the whole content served, whatever the range. */
  readonly size: number;
  /** Opens the byte stream; deferred so that a conditional request can skip it. */
  open(): Promise<AsyncIterable<Uint8Array>>;
}

const DAY_MS = 86_400_000;

/** Lets queued requests run between purge batches, so a long purge never stalls them. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export type FileService = ReturnType<typeof createFileService>;

export function createFileService(deps: FileServiceDeps) {
  const { files, blobs, clock, random } = deps;

  const dropBlob = (key: string) => dropStoredBlob(blobs, key);

  /** The file, when the caller may do every one of `actions` to it; the first refusal otherwise. */
  async function loadAuthorized(
    actions: readonly [FileAction, ...FileAction[]],
    callerId: string,
    fileId: string,
  ): Promise<AuthorizedFile> {
    const found = await files.findWithRole({ id: fileId, userId: callerId });
    let authorized: AuthorizedFile | undefined;
    for (const action of actions) authorized = authorizeFileAction(action, found, callerId);
    return authorized as AuthorizedFile;
  }

  /**
   * Applies `changes`, and writes `activity` with them, while the file is still in
   * `state`; if it moved on in between (trashed, restored or purged by a concurrent
   * request), decides again on what it is now, and nothing is written.
   */
  async function updateWhile(
    actions: readonly [FileAction, ...FileAction[]],
    { file, role }: AuthorizedFile,
    callerId: string,
    state: FileRecord["state"],
    changes: FileChanges,
    activity: readonly ActivityEntry[],
  ): Promise<FileMetadata> {
    const updated = await files.update({ id: file.id, changes, onlyIfState: state, activity });
    if (updated !== null) return toMetadata(updated, role);
    const current = await loadAuthorized(actions, callerId, file.id);
    return toMetadata(current.file, current.role);
  }

  /** A new activity entry, with a fresh id. */
  const entry = <A extends ActivityAction>(fields: Parameters<typeof newActivityEntry<A>>[1]) =>
    newActivityEntry(random, fields);

  const service = {
    /**
     * Streams an upload's bytes into the blob store, counting, hashing and checking them
     * on the way. On any failure (wrong type, too large, the source breaking) nothing is
     * left behind and the error propagates.
     */
    async receive(input: {
      ownerId: string;
      clientFileName: string;
      content: AsyncIterable<Uint8Array>;
    }): Promise<ReceivedUpload> {
      const kind = kindFromFileName(input.clientFileName);
      const fileId = newId(random, "file");
      const blobKey = fileId;
      const { size, sha256 } = await storeCheckedBytes(blobs, {
        key: blobKey,
        kind,
        content: input.content,
        maxBytes: deps.maxUploadBytes,
        ...(deps.hashes === undefined ? {} : { hashes: deps.hashes }),
      });
      return {
        fileId,
        ownerId: input.ownerId,
        blobKey,
        kind,
        size,
        sha256,
        clientBaseName: baseName(input.clientFileName),
      };
    },

    /** Records a received upload. On failure its blob is removed and no row exists. */
    async commit(input: { upload: ReceivedUpload } & UploadOptions): Promise<FileMetadata> {
      const { upload } = input;
      try {
        const name =
          input.name === undefined ? normaliseFileName(upload.clientBaseName, "file") : normaliseFileName(input.name);
        const visibility: Visibility = input.visibility === undefined ? "private" : parseVisibility(input.visibility);
        const now = clock.now();
        const record: FileRecord = {
          id: upload.fileId,
          ownerId: upload.ownerId,
          name,
          visibility,
          state: "active",
          kind: upload.kind,
          contentType: CONTENT_TYPES[upload.kind],
          size: upload.size,
          sha256: upload.sha256,
          blobKey: upload.blobKey,
          createdAt: now,
          updatedAt: now,
          trashedAt: null,
          purgeAt: null,
          version: 1,
        };
        const uploaded = entry({
          fileId: record.id,
          at: now,
          actorId: record.ownerId,
          action: "uploaded",
          details: { name },
        });
        await files.insert({ file: record, activity: [uploaded] });
        deps.onCommitted?.(record);
        return toMetadata(record, "owner");
      } catch (error) {
        await dropBlob(upload.blobKey);
        throw error;
      }
    },

    /** Gives up on a received upload: its blob is removed. */
    async discard(upload: ReceivedUpload): Promise<void> {
      await dropBlob(upload.blobKey);
    },

    /**
     * Uploads a file in one call. `name` and `visibility` are checked before a byte is
     * stored; `name` defaults to the client's file name without its folders.
     */
    async upload(
      input: { ownerId: string; clientFileName: string; content: AsyncIterable<Uint8Array> } & UploadOptions,
    ): Promise<FileMetadata> {
      if (input.name !== undefined) normaliseFileName(input.name);
      if (input.visibility !== undefined) parseVisibility(input.visibility);
      const upload = await service.receive(input);
      return service.commit({ upload, name: input.name, visibility: input.visibility });
    },

    async get(input: { callerId: string; fileId: string }): Promise<FileMetadata> {
      // loadAuthorized's work, inline: every authenticated read of a file comes here.
      const { file, role } = authorizeFileAction(
        "get",
        await files.findWithRole({ id: input.fileId, userId: input.callerId }),
        input.callerId,
      );
      return toMetadata(file, role);
    },

    /**
     * One page of a listing of files: the caller's own active ones, their trash
     * (`trashed`), or the active files others share with them (`shared`, each with the
     * role given). Only those whose name contains `q` (case-insensitively) when given,
     * in the order `sort` names (`FILE_SORTS`); newest first by default, or for shared
     * files newest share first.
     */
    async list(input: {
      callerId: string;
      trashed?: boolean;
      shared?: boolean;
      page?: unknown;
      perPage?: unknown;
      q?: unknown;
      sort?: unknown;
    }): Promise<Page<FileMetadata>> {
      const request = toFileListRequest(input);
      if (input.shared && input.trashed) {
        throw invalidField("shared", "cannot be combined with trashed: files shared with you are never in your trash");
      }
      const query = {
        ...(request.nameContains === undefined ? {} : { nameContains: request.nameContains }),
        offset: request.page.offset,
        limit: request.page.perPage,
      };
      if (input.shared) {
        const { items, total } = await deps.permissions.listSharedWith({
          userId: input.callerId,
          sort: input.sort === undefined ? NEWEST_SHARE_FIRST : request.sort,
          ...query,
        });
        return toPage(
          request.page,
          items.map((item) => toMetadata(item.file, item.role)),
          total,
        );
      }
      const { items, total } = await files.listByOwner({
        ownerId: input.callerId,
        state: input.trashed ? "trashed" : "active",
        sort: request.sort,
        ...query,
      });
      return toPage(
        request.page,
        items.map((file) => toMetadata(file, "owner")),
        total,
      );
    },

    /**
     * Renames (editors and the owner) and/or changes visibility (the owner); not while in
     * trash. Each change is recorded in the file's activity.
     */
    async update(input: {
      callerId: string;
      fileId: string;
      changes: { name?: unknown; visibility?: unknown };
    }): Promise<FileMetadata> {
      const { name, visibility } = input.changes;
      if (name === undefined && visibility === undefined) {
        throw invalidField("body", "must change at least one of name and visibility");
      }
      const now = clock.now();
      const changes: { -readonly [K in keyof FileChanges]: FileChanges[K] } = { updatedAt: now };
      const needs: FileAction[] = [];
      const activity: ActivityEntry[] = [];
      const recorded = { fileId: input.fileId, at: now, actorId: input.callerId };
      if (name !== undefined) {
        changes.name = normaliseFileName(name);
        needs.push("rename");
        activity.push(entry({ ...recorded, action: "renamed", details: { name: changes.name } }));
      }
      if (visibility !== undefined) {
        changes.visibility = parseVisibility(visibility);
        needs.push("change_visibility");
        activity.push(
          entry({ ...recorded, action: "visibility_changed", details: { visibility: changes.visibility } }),
        );
      }
      const needed = needs as [FileAction, ...FileAction[]];
      const authorized = await loadAuthorized(needed, input.callerId, input.fileId);
      return updateWhile(needed, authorized, input.callerId, "active", changes, activity);
    },

    /** Moves a file to the trash. Owner only; trashing a trashed file changes nothing. */
    async trash(input: { callerId: string; fileId: string }): Promise<FileMetadata> {
      const authorized = await loadAuthorized(["trash"], input.callerId, input.fileId);
      if (authorized.file.state === "trashed") return toMetadata(authorized.file, authorized.role);
      const now = clock.now();
      const changes: FileChanges = {
        state: "trashed",
        trashedAt: now,
        purgeAt: new Date(now.getTime() + deps.trashRetentionDays * DAY_MS),
        updatedAt: now,
      };
      const trashed = entry({ fileId: input.fileId, at: now, actorId: input.callerId, action: "trashed", details: {} });
      return updateWhile(["trash"], authorized, input.callerId, "active", changes, [trashed]);
    },

    /** Brings a file back from the trash. Owner only; restoring an active file changes nothing. */
    async restore(input: { callerId: string; fileId: string }): Promise<FileMetadata> {
      const authorized = await loadAuthorized(["restore"], input.callerId, input.fileId);
      if (authorized.file.state === "active") return toMetadata(authorized.file, authorized.role);
      const now = clock.now();
      const changes: FileChanges = { state: "active", trashedAt: null, purgeAt: null, updatedAt: now };
      const restored = entry({
        fileId: input.fileId,
        at: now,
        actorId: input.callerId,
        action: "restored",
        details: {},
      });
      return updateWhile(["restore"], authorized, input.callerId, "trashed", changes, [restored]);
    },

    /**
     * Authorises a download and describes it; the bytes flow only when `open` is called.
     * Throws `range_not_satisfiable` for a range outside the file.
     */
    async openDownload(input: { callerId: string; fileId: string; range?: RangeRequest }): Promise<Download> {
      const { file, role } = await loadAuthorized(["download"], input.callerId, input.fileId);
      const range = input.range === undefined ? null : resolveByteRange(input.range, file.size);
      return {
        file: toMetadata(file, role),
        fileName: downloadName(file),
        contentType: file.contentType,
        range,
        contentLength: range === null ? file.size : range.end - range.start + 1,
        sha256: file.sha256,
        size: file.size,
        open: () => readContent(blobs, file, range),
      };
    },

    /**
     * Permanently deletes every file whose `purge_at` has passed, `batchSize` at a time.
     * Rows go first (the sheet index, permissions and activity with them), in one atomic
     * step per batch, then their blobs and any rows blob a reader wrote for them: a crash
     * in between leaves orphan blobs, which no one can see and the orphan sweep removes.
     */
    async purgeDue(input: { batchSize?: number } = {}): Promise<{ purged: number; blobsLeft: number }> {
      const batchSize = input.batchSize ?? 1000;
      let purged = 0;
      let blobsLeft = 0;
      for (;;) {
        const batch = await files.removeDueForPurge({ now: clock.now(), limit: batchSize });
        // Counted per file: the bytes of each of its versions, and the rows blob a reader may have written for each.
        const deletions = await Promise.allSettled(
          batch.map(({ blobKeys }) =>
            Promise.all(blobKeys.flatMap((key) => [blobs.delete(key), blobs.delete(sheetRowsBlobKey(key))])),
          ),
        );
        blobsLeft += deletions.filter((result) => result.status === "rejected").length;
        purged += batch.length;
        if (batch.length < batchSize) return { purged, blobsLeft };
        await yieldToEventLoop();
      }
    },

    /**
     * Removes blobs that no file refers to and that are older than `graceMs`: what a
     * crash between a blob write and its row, or between a purge and its blob deletes,
     * left behind. A file's rows blob (sheet-index.ts) belongs to the file's own key. The
     * grace keeps uploads in flight safe.
     */
    async sweepOrphanBlobs(input: { graceMs: number }): Promise<{ removed: number }> {
      const cutoff = clock.now().getTime() - input.graceMs;
      let removed = 0;
      let batch: StoredBlob[] = [];
      const flush = async () => {
        const referenced = await files.findReferencedBlobKeys([
          ...new Set(batch.map((blob) => owningBlobKey(blob.key))),
        ]);
        for (const blob of batch) {
          if (!referenced.has(owningBlobKey(blob.key))) {
            await blobs.delete(blob.key);
            removed++;
          }
        }
        batch = [];
      };
      for await (const blob of blobs.list()) {
        if (blob.createdAt.getTime() > cutoff) continue;
        batch.push(blob);
        if (batch.length >= 500) await flush();
      }
      if (batch.length > 0) await flush();
      return { removed };
    },
  };
  return service;
}
