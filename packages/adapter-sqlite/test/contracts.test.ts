import { rateLimitStoreContract, repositoryContracts, webhookRepositoryContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { createSqliteRateLimitStore, createSqliteRepositories } from "../src/index.js";
import { tempDatabase } from "./support.js";

const t = { describe, it, expect };

describe("SQLite adapters against core's contracts", () => {
  repositoryContracts(t, {
    create() {
      const temp = tempDatabase();
      return { ...createSqliteRepositories(temp.db), close: temp.close };
    },
  });
  describe("with reads kept in memory", () => {
    // Every contract that writes then reads back runs through the cache: a write that
    // failed to forget its row would be read back stale.
    repositoryContracts(t, {
      create() {
        const temp = tempDatabase();
        return { ...createSqliteRepositories(temp.db, { cacheReads: true }), close: temp.close };
      },
    });
  });
  webhookRepositoryContract(t, {
    create() {
      const temp = tempDatabase();
      return { ...createSqliteRepositories(temp.db), close: temp.close };
    },
  });
  rateLimitStoreContract(t, {
    create() {
      const temp = tempDatabase();
      return { rateLimits: createSqliteRateLimitStore(temp.db), close: temp.close };
    },
  });
});
