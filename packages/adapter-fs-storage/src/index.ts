/** `@cellar/adapter-fs-storage`: Cellar's `BlobStore` on the local file system. */
export { type FsBlobStorageOptions, openFsBlobStore } from "./fs-blob-storage.js";
export { createFsBlobStore, type FsBlobStoreOptions } from "./fs-blob-store.js";
