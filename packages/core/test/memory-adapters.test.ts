import { describe, expect, it } from "vitest";
import {
  createMemoryBlobStore,
  createMemoryFileRepository,
  createMemoryMagicLinkRepository,
  createMemoryRateLimitStore,
  createMemorySessionRepository,
  createMemoryUserRepository,
} from "../src/index.js";
import { blobStoreContract, rateLimitStoreContract, repositoryContracts } from "../src/testing/index.js";

const t = { describe, it, expect };

describe("in-memory adapters", () => {
  repositoryContracts(t, {
    create: () => ({
      files: createMemoryFileRepository(),
      users: createMemoryUserRepository(),
      sessions: createMemorySessionRepository(),
      magicLinks: createMemoryMagicLinkRepository(),
    }),
  });
  blobStoreContract(t, { create: () => ({ blobs: createMemoryBlobStore() }) });
  rateLimitStoreContract(t, { create: () => ({ rateLimits: createMemoryRateLimitStore() }) });
});
