import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FileRecord } from "@cellar/core";
import type { Settings } from "./settings.js";
import { type EmbeddedStorage, openEmbeddedStorage, openStorage, type Storage } from "./storage.js";

export interface MoveReport {
  readonly users: number;
  readonly sessions: number;
  readonly files: number;
  /** Rows and objects already in the target, left as they were. */
  readonly alreadyThere: number;
  /** Whether the target now signs with the embedded install's JWT key (its sessions stay valid). */
  readonly jwtKeyKept: boolean;
}

export class MoveError extends Error {
  override readonly name = "MoveError";
}

/**
 * Copies an embedded install (SQLite and files under `DATA_DIR`) into the storage the
 * settings name (`DATABASE_URL`, and `BLOB_STORE` when it is not `fs`): users, sessions,
 * files and their bytes, and the generated JWT key, so that accounts, sessions and links
 * to files keep working. Sign-in links in flight and rate-limit windows are not copied.
 *
 * Each file's bytes are copied and their SHA-256 checked before its row is written, so
 * the target never has a row without its bytes. Rows already in the target are left as
 * they are, so a move that stopped half-way can be run again. Run it with the server
 * stopped: what the embedded install changes meanwhile is not copied.
 */
export async function moveEmbeddedStorage(
  settings: Settings,
  progress: (message: string) => void = () => {},
): Promise<MoveReport> {
  if (settings.databaseUrl === undefined) {
    throw new MoveError("DATABASE_URL must name the PostgreSQL database to move to.");
  }
  if (!existsSync(join(settings.dataDir, "cellar.db"))) {
    throw new MoveError(`There is no embedded install in ${settings.dataDir} (no cellar.db).`);
  }
  const source = await openEmbeddedStorage(settings.dataDir);
  let target: Storage | undefined;
  try {
    target = await openStorage(settings);
    const copyBytes = settings.blobStore.kind !== "fs";
    const report = await copyAll(source, target, copyBytes, progress);
    const keyFile = join(settings.dataDir, "jwt-secret");
    let jwtKeyKept = settings.jwtSecret !== undefined;
    if (settings.jwtSecret === undefined && existsSync(keyFile)) {
      const embeddedKey = readFileSync(keyFile, "utf8").trim();
      jwtKeyKept = (await target.generatedJwtSecret(embeddedKey)) === embeddedKey;
      if (!jwtKeyKept)
        progress("the target already had a JWT key of its own: sessions signed before must sign in again");
    }
    return { ...report, jwtKeyKept };
  } finally {
    await target?.close();
    await source.close();
  }
}

async function copyAll(
  source: EmbeddedStorage,
  target: Storage,
  copyBytes: boolean,
  progress: (message: string) => void,
): Promise<Omit<MoveReport, "jwtKeyKept">> {
  const ids = (table: string) => source.db.prepare(`SELECT id FROM ${table} ORDER BY id`).pluck().all() as string[];
  let users = 0;
  let sessions = 0;
  let files = 0;
  let alreadyThere = 0;

  for (const id of ids("users")) {
    const user = await source.users.findById(id);
    if (user === null) continue;
    if ((await target.users.findById(id)) !== null) {
      alreadyThere++;
      continue;
    }
    const stored = await target.users.insertIfAbsent(user);
    if (stored.id !== user.id) {
      throw new MoveError(`The target already has ${user.email} as ${stored.id}, not ${user.id}: not moving over it.`);
    }
    users++;
  }
  progress(`${users} users`);

  for (const id of ids("sessions")) {
    const session = await source.sessions.findById(id);
    if (session === null) continue;
    if ((await target.sessions.findById(id)) !== null) alreadyThere++;
    else {
      await target.sessions.insert(session);
      sessions++;
    }
  }
  progress(`${sessions} sessions`);

  for (const id of ids("files")) {
    const file = await source.files.findById(id);
    if (file === null) continue;
    if ((await target.files.findById(id)) !== null) {
      alreadyThere++;
      continue;
    }
    if (copyBytes) await copyBlob(source, target, file);
    await target.files.insert(file);
    files++;
    if (files % 1000 === 0) progress(`${files} files`);
  }
  progress(`${files} files`);
  return { users, sessions, files, alreadyThere };
}

/** Streams a file's bytes to the target and checks their count and SHA-256 against its row. */
async function copyBlob(source: Storage, target: Storage, file: FileRecord): Promise<void> {
  const hash = createHash("sha256");
  const bytes = await source.blobs.read({ key: file.blobKey });
  async function* hashed(): AsyncGenerator<Uint8Array> {
    for await (const chunk of bytes) {
      hash.update(chunk);
      yield chunk;
    }
  }
  const { size } = await target.blobs.write({ key: file.blobKey, source: hashed() });
  const sha256 = hash.digest("hex");
  if (size !== file.size || sha256 !== file.sha256) {
    await target.blobs.delete(file.blobKey);
    throw new MoveError(`The bytes of ${file.id} do not match its row (${size} bytes, sha256 ${sha256}).`);
  }
}
