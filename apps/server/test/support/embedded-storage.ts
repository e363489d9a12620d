import { openFsBlobStore } from "@cellar/adapter-fs-storage";
import { openSqliteStorage, type SqliteStorage } from "@cellar/adapter-sqlite";
import type { BlobStore } from "@cellar/core";

/** The embedded default's engines under one `DATA_DIR`, as the server opens them, for tests that look inside. */
export type EmbeddedStorage = SqliteStorage & { readonly blobs: BlobStore };

export async function openEmbeddedStorage(dataDir: string): Promise<EmbeddedStorage> {
  const metadata = await openSqliteStorage({ dataDir });
  const bytes = await openFsBlobStore({ dataDir });
  return {
    ...metadata,
    blobs: bytes.blobs,
    async close() {
      await metadata.close();
      await bytes.close();
    },
  };
}
