import { describe, expect, it } from "vitest";
import { createMemoryBlobStore, createMemoryRateLimitStore, createMemoryRepositories } from "../src/index.js";
import {
  blobStoreContract,
  rateLimitStoreContract,
  repositoryContracts,
  webhookRepositoryContract,
} from "../src/testing/index.js";

const t = { describe, it, expect };

describe("in-memory adapters", () => {
  repositoryContracts(t, { create: () => createMemoryRepositories() });
  webhookRepositoryContract(t, { create: () => createMemoryRepositories() });
  blobStoreContract(t, { create: () => ({ blobs: createMemoryBlobStore() }) });
  rateLimitStoreContract(t, { create: () => ({ rateLimits: createMemoryRateLimitStore() }) });
});
