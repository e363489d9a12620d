import { type ActivityAction, newActivityEntry } from "../activity/activity.entity.js";
import type { BlobStore } from "../files/blob-store.port.js";
import { type RangeRequest, resolveByteRange } from "../files/byte-range.js";
import { dropBlob, storeCheckedBytes } from "../files/checked-bytes.js";
import { contentBlobKeys, readContent } from "../files/content-pieces.js";
import { sheetRowsBlobKey } from "../files/derived-blob-keys.js";
import { downloadName, type FileMetadata, type FileRecord, toMetadata } from "../files/file.entity.js";
import type { Download } from "../files/file.service.js";
import { type AuthorizedFile, authorizeFileAction, type FileAction } from "../files/file-access.js";
import type { FileRepository, NewContent } from "../files/file-repository.port.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import type { VersionItem, VersionRecord } from "./version.entity.js";
import type { VersionRepository } from "./version-repository.port.js";

/**
 * What a change of content is based on, from the request's `If-Match`: the SHA-256 of
 * the content it was made from, `any` for whatever is there now (`If-Match: *`), or
 * nothing (then it is refused: 428).
 */
export type ContentPrecondition = { readonly sha256: string } | "any" | undefined;

/** A version as listed, and whether it is the file's current one. */
export type ListedVersion = VersionItem & { readonly current: boolean };

export interface VersionServiceDeps {
  readonly files: FileRepository;
  readonly versions: VersionRepository;
  readonly blobs: BlobStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly maxUploadBytes: number;
  readonly retentionDays: number;
  readonly retentionCount: number;
  /** Called with the file once a change of content is committed. */
  readonly onContentChanged?: (file: FileRecord) => void;
}

export type VersionService = ReturnType<typeof createVersionService>;

/**
 * A file's content over time: replacing it (never without saying what it was based on),
 * its versions, their bytes, restoring and keeping them, and forgetting old ones.
 */
export function createVersionService(deps: VersionServiceDeps) {
  const { files, versions, blobs, clock, random } = deps;

  async function loadAuthorized(action: FileAction, callerId: string, fileId: string): Promise<AuthorizedFile> {
    return authorizeFileAction(action, await files.findWithRole({ id: fileId, userId: callerId }), callerId);
  }

  async function findVersion(file: FileRecord, number: unknown): Promise<VersionRecord> {
    if (!Number.isSafeInteger(number) || (number as number) < 1)
      throw invalidField("version", "must be a whole number ≥ 1");
    const version = await versions.find({ fileId: file.id, number: number as number });
    if (version === null) throw new CellarError(ErrorCode.not_found, `The file has no version ${String(number)}.`);
    return version;
  }

  const entry = <A extends ActivityAction>(fields: Parameters<typeof newActivityEntry<A>>[1]) =>
    newActivityEntry(random, fields);

  /**
   * Makes `content` the file's next version, when the file's content is still the one
   * `precondition` names; the activity entry `action` records it. On a refusal the new
   * bytes are the caller's to drop.
   */
  async function commitContent(input: {
    callerId: string;
    authorized: AuthorizedFile;
    precondition: Exclude<ContentPrecondition, undefined>;
    content: NewContent;
    fromVersion?: number;
    action: "content_replaced" | "version_restored";
    details: Record<string, number>;
  }): Promise<FileMetadata> {
    const { file, role } = input.authorized;
    const at = clock.now();
    const result = await files.replaceContent({
      id: file.id,
      expectedSha256: input.precondition === "any" ? null : input.precondition.sha256,
      content: input.content,
      ...(input.fromVersion === undefined ? {} : { fromVersion: input.fromVersion }),
      at,
      authorId: input.callerId,
      activity: [
        entry({
          fileId: file.id,
          at,
          actorId: input.callerId,
          action: input.action,
          // What the content is now: a reader of the file's events follows it by these.
          details: { version: file.version + 1, sha256: input.content.sha256, ...input.details },
        }),
      ],
    });
    if (result.outcome === "replaced") {
      deps.onContentChanged?.(result.file);
      return toMetadata(result.file, role);
    }
    if (result.outcome === "version_gone") {
      throw new CellarError(ErrorCode.not_found, `The file has no version ${String(input.fromVersion)}.`);
    }
    if (result.outcome === "precondition_failed") throw stale(result.file);
    // Trashed or purged meanwhile: say what it is now.
    await loadAuthorized("replace_content", input.callerId, file.id);
    throw new CellarError(ErrorCode.not_found, "No such file.");
  }

  const stale = (file: FileRecord) =>
    new CellarError(
      ErrorCode.precondition_failed,
      `The file changed since: it is now version ${file.version}, "${file.sha256}".`,
    );

  /** Refuses a change of content that names no version it is based on. */
  function required(precondition: ContentPrecondition): Exclude<ContentPrecondition, undefined> {
    if (precondition === undefined) {
      throw new CellarError(
        ErrorCode.precondition_required,
        'A change of content needs If-Match: "<sha256>" of the content it is based on (or * for any).',
      );
    }
    return precondition;
  }

  return {
    /**
     * Replaces the file's content with `content`, streamed into a new blob and checked as
     * an upload of its kind is, as its next version. The new bytes are stored before the
     * precondition is decided, so a refused change costs their transfer but never a lock.
     */
    async replaceContent(input: {
      callerId: string;
      fileId: string;
      precondition: ContentPrecondition;
      content: AsyncIterable<Uint8Array>;
    }): Promise<FileMetadata> {
      const precondition = required(input.precondition);
      const authorized = await loadAuthorized("replace_content", input.callerId, input.fileId);
      // Already stale: refused before a byte is stored (the transaction decides the rest).
      if (precondition !== "any" && precondition.sha256 !== authorized.file.sha256) {
        throw stale(authorized.file);
      }
      const blobKey = newId(random, "blob");
      const stored = await storeCheckedBytes(blobs, {
        key: blobKey,
        kind: authorized.file.kind,
        content: input.content,
        maxBytes: deps.maxUploadBytes,
      });
      try {
        return await commitContent({
          callerId: input.callerId,
          authorized,
          precondition,
          content: { blobKey, ...stored },
          action: "content_replaced",
          details: { size: stored.size },
        });
      } catch (error) {
        await dropBlob(blobs, blobKey);
        throw error;
      }
    },

    /** One page of the file's versions, newest first, each with its author and whether it is current. */
    async list(input: {
      callerId: string;
      fileId: string;
      page?: unknown;
      perPage?: unknown;
    }): Promise<Page<ListedVersion>> {
      const request = toPageRequest(input);
      const { file } = await loadAuthorized("list_versions", input.callerId, input.fileId);
      const { items, total } = await versions.listByFile({
        fileId: file.id,
        offset: request.offset,
        limit: request.perPage,
      });
      return toPage(
        request,
        items.map((version) => ({ ...version, current: version.number === file.version })),
        total,
      );
    },

    /** A version's bytes, as `FileService.openDownload` gives the current ones. */
    async openDownload(input: {
      callerId: string;
      fileId: string;
      number: unknown;
      range?: RangeRequest;
    }): Promise<Download & { readonly version: VersionRecord }> {
      const { file, role } = await loadAuthorized("download_version", input.callerId, input.fileId);
      const version = await findVersion(file, input.number);
      const range = input.range === undefined ? null : resolveByteRange(input.range, version.size);
      return {
        file: toMetadata(file, role),
        version,
        fileName: downloadName(file),
        contentType: file.contentType,
        range,
        contentLength: range === null ? version.size : range.end - range.start + 1,
        sha256: version.sha256,
        size: version.size,
        open: () => readContent(blobs, version, range),
      };
    },

    /**
     * Makes version `number`'s content the file's next version: a change of content like
     * any other, so it names what it is based on. Its bytes are shared, not copied: a blob
     * goes only once no version refers to it (see `pruneExpired`).
     */
    async restore(input: {
      callerId: string;
      fileId: string;
      number: unknown;
      precondition: ContentPrecondition;
    }): Promise<FileMetadata> {
      const precondition = required(input.precondition);
      const authorized = await loadAuthorized("restore_version", input.callerId, input.fileId);
      for (let attempt = 1; ; attempt++) {
        const version = await findVersion(authorized.file, input.number);
        try {
          return await commitContent({
            callerId: input.callerId,
            authorized,
            precondition,
            content: {
              blobKey: version.blobKey,
              size: version.size,
              sha256: version.sha256,
              ...(version.pieces === undefined ? {} : { pieces: version.pieces }),
            },
            fromVersion: version.number,
            action: "version_restored",
            details: { from: version.number },
          });
        } catch (error) {
          // Compacted between its read and the commit: the same bytes, in other pieces.
          const compacted =
            error instanceof CellarError &&
            error.code === ErrorCode.not_found &&
            attempt < 3 &&
            (await versions.find({ fileId: authorized.file.id, number: version.number })) !== null;
          if (!compacted) throw error;
        }
      }
    },

    /** Marks a version kept (or not): a kept version is never removed by retention. */
    async setKeep(input: { callerId: string; fileId: string; number: unknown; keep: unknown }): Promise<ListedVersion> {
      if (typeof input.keep !== "boolean") throw invalidField("keep", "must be a boolean");
      const { file } = await loadAuthorized("keep_version", input.callerId, input.fileId);
      const version = await findVersion(file, input.number);
      const changed = await versions.setKeep({ fileId: file.id, number: version.number, keep: input.keep });
      // Removed by retention between the two: as if it had never been there.
      if (changed === null) throw new CellarError(ErrorCode.not_found, `The file has no version ${version.number}.`);
      return { ...changed, current: changed.number === file.version };
    },

    /**
     * Removes the versions retention lets go (neither current nor kept, not among a file's
     * newest `retentionCount`, and neither the last of their UTC hour within the last day
     * nor the last of their UTC day within `retentionDays`), `batchSize` at a time: rows
     * first, then each blob no version refers to any more, with the rows blob a reader may
     * have written for it. A crash in between leaves orphan blobs for the sweep, never a
     * version without its bytes. Says how many versions went.
     */
    async pruneExpired(input: { batchSize?: number } = {}): Promise<number> {
      const batchSize = input.batchSize ?? 1000;
      const now = clock.now();
      let pruned = 0;
      for (;;) {
        const removed = await versions.removeExpired({
          now,
          retentionDays: deps.retentionDays,
          keepNewest: deps.retentionCount,
          limit: batchSize,
        });
        const keys = [...new Set(removed.flatMap(contentBlobKeys))];
        const stillUsed = await files.findReferencedBlobKeys(keys);
        await Promise.allSettled(
          keys
            .filter((key) => !stillUsed.has(key))
            .flatMap((key) => [blobs.delete(key), blobs.delete(sheetRowsBlobKey(key))]),
        );
        pruned += removed.length;
        if (removed.length < batchSize) return pruned;
      }
    },
  };
}
