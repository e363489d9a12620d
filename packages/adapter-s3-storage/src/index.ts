/** `@cellar/adapter-s3-storage`: Cellar's `BlobStore` on an S3-compatible object store. */
export { isS3Unavailable, openS3BlobStore, type S3BlobStorageOptions } from "./s3-blob-storage.js";
export { createS3BlobStore, type S3BlobStoreOptions } from "./s3-blob-store.js";
