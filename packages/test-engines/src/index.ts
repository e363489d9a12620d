import type {} from "vitest";

declare module "vitest" {
  /** What vitest-global-setup.ts provides to every test file (vitest's `inject`). */
  export interface ProvidedContext {
    /** A PostgreSQL superuser's URL: `CELLAR_TEST_DATABASE_URL`, or a server started for this run. */
    postgresUrl: string;
  }
}

export {
  createTestDatabase,
  createTestSchema,
  freePort,
  type RunningPostgres,
  startPostgres,
  type TestDatabase,
  type TestSchema,
} from "./postgres.js";
