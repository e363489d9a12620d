import type { MagicLinkRepository } from "../auth/magic-link-repository.port.js";
import type { SessionRepository } from "../auth/session-repository.port.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { SheetIndexRepository } from "../sheets/sheet-index-repository.port.js";
import type { UserRepository } from "../users/user-repository.port.js";
import type { Closable } from "./contract-api.js";

/**
 * The metadata repositories of one store, fresh and empty. They come together because a
 * real store relates them (a file's owner must exist).
 */
export interface RepositoryFixture extends Closable {
  /** Files, and the sheet index kept beside each. */
  readonly files: FileRepository & SheetIndexRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly magicLinks: MagicLinkRepository;
}
