import { type ChromiumBinary, unpackChromium } from "./chromium.js";
import { type RunningPostgres, startPostgres } from "./postgres.js";
import { type RunningS3, type S3Endpoint, startS3 } from "./s3.js";

interface SetupProject {
  provide(key: "postgresUrl", value: string): void;
  provide(key: "s3", value: S3Endpoint): void;
  provide(key: "chromium", value: ChromiumBinary): void;
}

/**
 * vitest's global setup: one PostgreSQL and one S3-compatible store for the whole run,
 * started here unless the environment names real ones, and stopped when the run ends;
 * and Chromium unpacked, once, for the tests that drive a browser.
 *
 * - `CELLAR_TEST_DATABASE_URL`: a PostgreSQL superuser's URL (the tests create and drop
 *   databases and schemas of their own in it);
 * - `CELLAR_TEST_S3_ENDPOINT` (with `CELLAR_TEST_S3_REGION`, `CELLAR_TEST_S3_ACCESS_KEY_ID`,
 *   `CELLAR_TEST_S3_SECRET_ACCESS_KEY`, `CELLAR_TEST_S3_FORCE_PATH_STYLE`): a store in
 *   which the tests may create buckets of their own.
 */
export default async function setup(project: SetupProject): Promise<() => Promise<void>> {
  const env = process.env;
  // Unpacked here, not by each test file: several workers unpacking into one folder at
  // once could start a half-written browser.
  const chromium = await unpackChromium();
  const postgres: RunningPostgres | undefined = env.CELLAR_TEST_DATABASE_URL ? undefined : await startPostgres();
  let s3: RunningS3 | undefined;
  try {
    s3 = env.CELLAR_TEST_S3_ENDPOINT ? undefined : await startS3();
  } catch (error) {
    await postgres?.stop();
    throw error;
  }
  const databaseUrl = postgres?.url ?? (env.CELLAR_TEST_DATABASE_URL as string);
  const store: S3Endpoint = s3 ?? {
    endpoint: env.CELLAR_TEST_S3_ENDPOINT as string,
    region: env.CELLAR_TEST_S3_REGION || "us-east-1",
    accessKeyId: env.CELLAR_TEST_S3_ACCESS_KEY_ID ?? "",
    secretAccessKey: env.CELLAR_TEST_S3_SECRET_ACCESS_KEY ?? "",
    forcePathStyle: env.CELLAR_TEST_S3_FORCE_PATH_STYLE === "true",
  };
  project.provide("postgresUrl", databaseUrl);
  // Only the endpoint's data crosses to the test files, not the running server's handle.
  const { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle } = store;
  project.provide("s3", { endpoint, region, accessKeyId, secretAccessKey, forcePathStyle });
  project.provide("chromium", chromium);
  return async () => {
    await Promise.all([postgres?.stop(), s3?.stop()]);
  };
}
