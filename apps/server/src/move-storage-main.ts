import { StorageUnreachableError } from "@cellar/core";
import { MoveError, moveEmbeddedStorage } from "./move-storage.js";
import { readSettings, SettingsError } from "./settings.js";

/**
 * `scripts/pnpm move-storage`: copies the embedded install under `DATA_DIR` into the
 * PostgreSQL database of `DATABASE_URL` and, when `BLOB_STORE` names a bucket, its bytes
 * into that bucket (docs/deploy.md, "Moving an embedded install"). Prints one line per
 * step and a summary; exit code 1 and one line on stderr when it cannot go on.
 */
try {
  const settings = readSettings(process.env);
  const report = await moveEmbeddedStorage(settings, (message) =>
    process.stdout.write(`cellar move-storage: ${message}\n`),
  );
  process.stdout.write(
    `cellar move-storage: done: ${report.users} users, ${report.sessions} sessions, ${report.accessTokens} access tokens, ${report.files} files, ${report.versions} versions, ${report.permissions} roles and ${report.comments} comments on them copied, ` +
      `${report.alreadyThere} already there; ${report.jwtKeyKept ? "sessions stay valid" : "every session must sign in again"}.\n`,
  );
} catch (error) {
  if (error instanceof SettingsError || error instanceof StorageUnreachableError || error instanceof MoveError) {
    process.stderr.write(`cellar move-storage: ${error.message}\n`);
  } else {
    process.stderr.write(
      `cellar move-storage: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exitCode = 1;
}
