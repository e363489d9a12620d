import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import type { BlobStore } from "./blob-store.port.js";
import { compactContent, dropBlob } from "./checked-bytes.js";
import type { FileRecord } from "./file.entity.js";
import type { FileRepository } from "./file-repository.port.js";

/**
 * A file's current content of more pieces than this is compacted: its bytes written again
 * as one blob, in the background after the edit that made it (`compactSoon`), and by
 * maintenance for any an instance did not get to (`compactDue`). Reads of it are then one
 * request again. Below `MAX_PIECES`, so that an edit rarely meets a content it must write
 * whole.
 */
export const COMPACT_PIECES = 64;

export type Compaction = ReturnType<typeof createCompaction>;

/**
 * Compaction of contents made of many pieces. It never changes a byte: the new blob must
 * hash to the content's SHA-256, and it replaces the pieces it read only while the file's
 * current content still has them in a run (`FileRepository.compactContent`): edits that
 * added pieces before or after them since keep theirs. An edit made from the old pieces
 * meanwhile does not commit and is made again from the new ones. The blobs it
 * lets go stay while any version names them; the orphan sweep takes the others.
 */
export function createCompaction(deps: { files: FileRepository; blobs: BlobStore; random: RandomSource }) {
  const { files, blobs, random } = deps;
  const queued = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();

  /** Compacts the file's current content; says whether it did. */
  async function compact(file: FileRecord): Promise<boolean> {
    const from = file.pieces;
    if (from === undefined || from.length <= 1) return false;
    const key = newId(random, "blob");
    const stored = await compactContent(blobs, { key, kind: file.kind, content: file });
    // Edits meanwhile keep the run of pieces they did not touch: an append adds after it.
    const compacted = await files
      .compactContent({ id: file.id, from, to: [{ key, offset: 0, length: stored.size }] })
      .catch(async (error: unknown) => {
        await dropBlob(blobs, key);
        throw error;
      });
    if (!compacted) await dropBlob(blobs, key);
    return compacted;
  }

  return {
    compact,

    /** Queues the file's compaction on this instance when its content has more than `COMPACT_PIECES` pieces; never waited for. */
    compactSoon(file: FileRecord): void {
      if ((file.pieces?.length ?? 1) <= COMPACT_PIECES || queued.has(file.id)) return;
      queued.add(file.id);
      queue = queue
        .then(async () => {
          // The content may have moved on while this waited: compact what is current.
          const current = await files.findById(file.id);
          if (current !== null && (current.pieces?.length ?? 1) > COMPACT_PIECES) await compact(current);
        })
        .catch(() => {
          // Left for maintenance's `compactDue`.
        })
        .finally(() => queued.delete(file.id));
    },

    /** Compacts up to `limit` files of more than `COMPACT_PIECES` pieces; says how many it compacted. */
    async compactDue(input: { limit?: number } = {}): Promise<number> {
      const due = await files.listPieced({ morePiecesThan: COMPACT_PIECES, limit: input.limit ?? 100 });
      let compacted = 0;
      for (const file of due) {
        try {
          if (await compact(file)) compacted++;
        } catch {
          // One file's failure (a blob unreadable for now) does not hold up the others.
        }
      }
      return compacted;
    },
  };
}
