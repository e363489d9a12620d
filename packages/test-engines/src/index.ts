import type {} from "vitest";

declare module "vitest" {
  /** What vitest-global-setup.ts provides to every test file (vitest's `inject`). */
  export interface ProvidedContext {
    /** A PostgreSQL superuser's URL: `CELLAR_TEST_DATABASE_URL`, or a server started for this run. */
    postgresUrl: string;
    /** An S3-compatible store: `CELLAR_TEST_S3_*`, or an s3rver started for this run. */
    s3: import("./s3.js").S3Endpoint;
    /** Chromium, unpacked for this run, and the flags to start it with (playwright-core). */
    chromium: import("./chromium.js").ChromiumBinary;
  }
}

export { type ChromiumBinary, unpackChromium } from "./chromium.js";
export { type FormulaConformance, formulaConformance } from "./formula-conformance.js";
export {
  type CorpusFile,
  type PoiCorpusManifest,
  poiCorpus,
  poiCorpusDir,
  poiCorpusFile,
  poiCorpusManifest,
  type StoredFormulaResult,
  storedFormulaResults,
  withoutStoredResults,
} from "./formula-corpus.js";
export {
  createTestDatabase,
  createTestSchema,
  freePort,
  type RunningPostgres,
  startPostgres,
  type TestDatabase,
  type TestSchema,
} from "./postgres.js";
export { createTestBucket, type RunningS3, type S3Endpoint, s3ClientFor, startS3 } from "./s3.js";
export { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";
