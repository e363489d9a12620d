import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const JWT_SECRET_FILE = "jwt-secret";

/**
 * The JWT key kept in `dataDir` (mode 0600): the one there, or else `proposed` (by
 * default a new random key), kept from now on, so restarts keep sessions valid. The key
 * is written to a temp file and hard-linked into place, which fails if the file exists:
 * two processes starting together agree on one key, and neither can read a half-written one.
 */
export function loadJwtSecret(dataDir: string, proposed: string = randomBytes(48).toString("base64url")): string {
  const path = join(dataDir, JWT_SECRET_FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, proposed, { mode: 0o600 });
  try {
    linkSync(temp, path);
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
  } finally {
    rmSync(temp, { force: true });
  }
  const stored = readFileSync(path, "utf8").trim();
  if (Buffer.byteLength(stored) < 32)
    throw new Error(`The key in ${path} is too short; delete the file to make a new one.`);
  return stored;
}
