/** `@cellar/adapter-fs-storage`: Cellar's `BlobStore` on the local file system. */
export { createFsBlobStore, type FsBlobStoreOptions } from "./fs-blob-store.js";
