import { rateLimitStoreContract, repositoryContracts, webhookRepositoryContract } from "@cellar/core/testing";
import { createTestSchema } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { createPostgresPool, createPostgresRateLimitStore, createPostgresRepositories, migrate } from "../src/index.js";

const t = { describe, it, expect };

/** A fresh, migrated schema and a pool on it, for one test; `close` drops both. */
async function freshPool() {
  const url = inject("postgresUrl");
  const schema = await createTestSchema(url);
  const pool = createPostgresPool({ connectionString: url, schema: schema.name, max: 4 });
  await migrate(pool);
  return {
    pool,
    async close() {
      await pool.end();
      await schema.drop();
    },
  };
}

describe("PostgreSQL adapters against core's contracts", () => {
  repositoryContracts(t, {
    async create() {
      const { pool, close } = await freshPool();
      return { ...createPostgresRepositories(pool), close };
    },
  });
  webhookRepositoryContract(t, {
    async create() {
      const { pool, close } = await freshPool();
      return { ...createPostgresRepositories(pool), close };
    },
  });
  rateLimitStoreContract(t, {
    async create() {
      const { pool, close } = await freshPool();
      // The contract drives time itself: the store takes the caller's clock.
      return { rateLimits: createPostgresRateLimitStore(pool, { clock: "caller" }), close };
    },
  });
});
