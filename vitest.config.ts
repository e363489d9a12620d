import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources (the "@cellar/source" export
// condition), so tests run without a build step. Not the "module" condition: dependencies
// load as Node loads them, and some (the AWS SDK) publish under "module" an ES build that
// only a bundler can load.
const conditions = ["@cellar/source", ...defaultServerConditions.filter((condition) => condition !== "module")];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@cellar/source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "packaging/test/**/*.test.ts"],
    environment: "node",
    // What a slow, busy 2-core machine needs (checked with two busy loops beside the suite),
    // not vitest's 5 s: a test doing real work (a workbook written and read, a server
    // started) takes seconds there. Suites of server processes set longer limits of their own.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // One real PostgreSQL for the run (or CELLAR_TEST_DATABASE_URL's): see @cellar/test-engines.
    globalSetup: ["packages/test-engines/src/vitest-global-setup.ts"],
    coverage: {
      provider: "v8",
      include: ["packages/*/src/**/*.ts", "apps/*/src/**/*.ts"],
      reporter: [["text", { skipFull: true }], "text-summary"],
      thresholds: {
        "packages/core/src/**": { lines: 90 },
      },
    },
  },
});
