import type { BlobStorage, BlobStore } from "@cellar/core";
import type { DependencyContainer } from "tsyringe";
import { type ServerMetadataStorage, Tokens } from "./tokens.js";

/** Both engines the server stands on, as one: metadata, and `blobs` for the bytes. */
export interface ServerStorage extends ServerMetadataStorage {
  readonly blobs: BlobStore;
}

/**
 * Opens the engines the container chose — the blob store first, then the metadata — and
 * joins them: ready when both answer, unavailable when either says so, closed together.
 * Whatever opened is closed again when the other fails.
 */
export async function openServerStorage(scope: DependencyContainer): Promise<ServerStorage> {
  const blobStorage = await scope.resolve(Tokens.BlobStorage);
  let metadata: ServerMetadataStorage;
  try {
    metadata = await scope.resolve(Tokens.MetadataStorage);
  } catch (error) {
    await blobStorage.close();
    throw error;
  }
  return joined(metadata, blobStorage);
}

function joined(metadata: ServerMetadataStorage, blobStorage: BlobStorage): ServerStorage {
  return {
    ...metadata,
    blobs: blobStorage.blobs,
    async ping() {
      await Promise.all([metadata.ping(), blobStorage.ping()]);
    },
    isUnavailable: (error) => metadata.isUnavailable(error) || blobStorage.isUnavailable(error),
    async close() {
      await Promise.allSettled([metadata.close(), blobStorage.close()]);
    },
  };
}
