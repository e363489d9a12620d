/**
 * `@cellar/core/testing`: what an adapter needs to prove itself. Each contract suite
 * takes vitest's `{ describe, it, expect }` and a factory of fresh subjects:
 *
 * ```ts
 * import { describe, it, expect } from "vitest";
 * import { blobStoreContract } from "@cellar/core/testing";
 * blobStoreContract({ describe, it, expect }, { create: () => ({ blobs: createMyStore() }) });
 * ```
 */

export { accessTokenRepositoryContract } from "./access-token-repository.contract.js";
export { activityRepositoryContract } from "./activity-repository.contract.js";
export { type BlobStoreFixture, blobStoreContract, byteStream, collect } from "./blob-store.contract.js";
export { commentRepositoryContract } from "./comment-repository.contract.js";
export type { Closable, ContractSubject, ContractTestApi } from "./contract-api.js";
export { createFakeClock, type FakeClock } from "./fake-clock.js";
export { fileRepositoryContract } from "./file-repository.contract.js";
export {
  aComment,
  aFile,
  aMagicLink,
  anAccessToken,
  anActivityEntry,
  aPermission,
  aSession,
  aTrashedFile,
  at,
  aUser,
  T0,
} from "./fixtures.js";
export { cellsOf, type FormulaEngineFixture, formulaEngineContract } from "./formula-engine.contract.js";
export { magicLinkRepositoryContract } from "./magic-link-repository.contract.js";
export { permissionRepositoryContract } from "./permission-repository.contract.js";
export { type RateLimitStoreFixture, rateLimitStoreContract } from "./rate-limit-store.contract.js";
export {
  createRecordingWebhookTransport,
  REFUSED_WEBHOOK_HOST,
  type RecordingWebhookTransport,
} from "./recording-webhook-transport.js";
export {
  givePermission,
  type RepositoryFixture,
  storedFile,
  storedUser,
  writeComment,
} from "./repository-fixture.js";
export { seededRandom } from "./seeded.js";
export { sessionRepositoryContract } from "./session-repository.contract.js";
export {
  contractWorkbook,
  type SpreadsheetReaderFixture,
  spreadsheetReaderContract,
} from "./spreadsheet-reader.contract.js";
export { type SpreadsheetWriterFixture, spreadsheetWriterContract } from "./spreadsheet-writer.contract.js";
export { streamLeaseRepositoryContract } from "./stream-lease-repository.contract.js";
export { userRepositoryContract } from "./user-repository.contract.js";
export { versionRepositoryContract } from "./version-repository.contract.js";
export {
  aDelivery,
  aWebhook,
  type WebhookFixture,
  webhookRepositoryContract,
} from "./webhook-repository.contract.js";

import { accessTokenRepositoryContract } from "./access-token-repository.contract.js";
import { activityRepositoryContract } from "./activity-repository.contract.js";
import { commentRepositoryContract } from "./comment-repository.contract.js";
import type { ContractSubject, ContractTestApi } from "./contract-api.js";
import { fileRepositoryContract } from "./file-repository.contract.js";
import { magicLinkRepositoryContract } from "./magic-link-repository.contract.js";
import { permissionRepositoryContract } from "./permission-repository.contract.js";
import type { RepositoryFixture } from "./repository-fixture.js";
import { sessionRepositoryContract } from "./session-repository.contract.js";
import { streamLeaseRepositoryContract } from "./stream-lease-repository.contract.js";
import { userRepositoryContract } from "./user-repository.contract.js";
import { versionRepositoryContract } from "./version-repository.contract.js";

/** Every repository contract at once, for a store that implements them all. */
export function repositoryContracts(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  fileRepositoryContract(t, subject);
  userRepositoryContract(t, subject);
  sessionRepositoryContract(t, subject);
  accessTokenRepositoryContract(t, subject);
  magicLinkRepositoryContract(t, subject);
  permissionRepositoryContract(t, subject);
  activityRepositoryContract(t, subject);
  versionRepositoryContract(t, subject);
  streamLeaseRepositoryContract(t, subject);
  commentRepositoryContract(t, subject);
}
export { buildZip, WORKBOOK_ENTRIES, workbook, type ZipEntry, type ZipOptions } from "./zip.js";
