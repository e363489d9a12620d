import { createHash } from "node:crypto";
import { openFsBlobStore } from "@cellar/adapter-fs-storage";
import { openSqliteStorage, type SqliteStorage, sqliteStorageExists } from "@cellar/adapter-sqlite";
import {
  type ActivityEntry,
  type BlobStore,
  type CommentRecord,
  contentBlobKeys,
  encodePieces,
  type FileRecord,
  readContent,
  readRecorded,
  type VersionRecord,
} from "@cellar/core";
import { createServerContainer } from "./container.js";
import { createLogger } from "./logger.js";
import type { Settings } from "./settings.js";
import { openServerStorage, type ServerStorage } from "./storage.js";

/** The embedded install under `DATA_DIR`: its metadata, and its bytes on disk. */
type EmbeddedInstall = SqliteStorage & { readonly blobs: BlobStore };

export interface MoveReport {
  readonly users: number;
  readonly sessions: number;
  /** Access tokens, by their hash: scripts keep working after the move. */
  readonly accessTokens: number;
  readonly files: number;
  /** Roles on files copied: who each file is shared with. */
  readonly permissions: number;
  /** Versions of files' content, each current one's row among them. */
  readonly versions: number;
  /** Comments on files, replies included. */
  readonly comments: number;
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
 * files and their bytes, each file with every version of its content, its activity (each
 * entry with its number in the file's event log, which streams resume from), the
 * people it is shared with and its comments, and the generated JWT key, so that accounts,
 * sessions, roles, links to files, their history and what was said about them keep working. Sign-in links in flight and
 * rate-limit windows are not copied.
 *
 * Each file's bytes are copied and their SHA-256 checked before its row is written, so
 * the target never has a row without its bytes; its activity follows its row. Rows already in the target are left as
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
  if (!sqliteStorageExists({ dataDir: settings.dataDir })) {
    throw new MoveError(`There is no embedded install in ${settings.dataDir} (no cellar.db).`);
  }
  const metadata = await openSqliteStorage({ dataDir: settings.dataDir });
  const bytes = await openFsBlobStore({ dataDir: settings.dataDir });
  const source: EmbeddedInstall = { ...metadata, blobs: bytes.blobs };
  let target: ServerStorage | undefined;
  try {
    target = await openServerStorage(createServerContainer({ settings, logger: createLogger({ level: "silent" }) }));
    const copyBytes = settings.blobStore.kind !== "fs";
    const report = await copyAll(source, target, copyBytes, progress);
    let jwtKeyKept = settings.jwtSecret !== undefined;
    const embeddedKey = metadata.keptJwtSecret();
    if (settings.jwtSecret === undefined && embeddedKey !== undefined) {
      jwtKeyKept = (await target.sharedJwtSecret(embeddedKey)) === embeddedKey;
      if (!jwtKeyKept)
        progress("the target already had a JWT key of its own: sessions signed before must sign in again");
    }
    return { ...report, jwtKeyKept };
  } finally {
    await target?.close();
    await metadata.close();
    await bytes.close();
  }
}

async function copyAll(
  source: EmbeddedInstall,
  target: ServerStorage,
  copyBytes: boolean,
  progress: (message: string) => void,
): Promise<Omit<MoveReport, "jwtKeyKept">> {
  const ids = (table: "users" | "sessions" | "files") => source.ids(table);
  let users = 0;
  let sessions = 0;
  let accessTokens = 0;
  let files = 0;
  let permissions = 0;
  let versions = 0;
  let comments = 0;
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

  for (const userId of ids("users")) {
    for (let offset = 0; ; offset += 100) {
      const { items } = await source.accessTokens.listByUser({ userId, offset, limit: 100 });
      for (const token of items) {
        if ((await target.accessTokens.findByHash(token.tokenHash)) !== null) alreadyThere++;
        // No limit: each was within it where it was made.
        else if (await target.accessTokens.insertWithinLimit({ token, max: Number.MAX_SAFE_INTEGER })) accessTokens++;
      }
      if (items.length < 100) break;
    }
  }
  progress(`${accessTokens} access tokens`);

  for (const id of ids("files")) {
    const file = await source.files.findById(id);
    if (file === null) continue;
    if ((await target.files.findById(id)) !== null) alreadyThere++;
    else {
      if (copyBytes) await copyContent(source, target, file, new Set());
      await target.files.insert({ file, activity: [] });
      files++;
      if (files % 1000 === 0) progress(`${files} files`);
    }
    // Its log, each entry with the number it had (also for a file a stopped move had
    // copied): a stream that reconnects after the move with an old Last-Event-ID goes on
    // from where it was, or is told reset, as it would have been before the move.
    await target.activity.insertCopy({ fileId: id, ...(await logOf(source, id)) });
    // Every version, the current one's row as it was too (also for a file a stopped move
    // had copied). Versions sharing bytes (a restore, or pieces of one blob) have them copied once.
    const copied = new Set(contentBlobKeys(file));
    for (const version of await versionsOf(source, id)) {
      const there = await target.versions.find({ fileId: id, number: version.number });
      if (there !== null && sameVersion(there, version)) continue;
      if (copyBytes) await copyContent(source, target, { id: `${id} version ${version.number}`, ...version }, copied);
      if (await target.versions.copyIn(version)) versions++;
    }
    // Also for a file a stopped move had copied: its people may not all have followed it.
    for (const { user: _user, ...permission } of await source.permissions.listByFile({ fileId: id })) {
      if (await target.permissions.insertCopy(permission)) permissions++;
    }
    // Likewise its comments: each thread's first comment before its replies.
    for (const comment of await commentsOf(source, id)) {
      if (await target.comments.insertCopy(comment)) comments++;
    }
  }
  progress(`${files} files with ${versions} versions, shared with ${permissions} people, with ${comments} comments`);
  return { users, sessions, accessTokens, files, versions, permissions, comments, alreadyThere };
}

/**
 * Every comment of a file, as stored: a reply without the range and state it shows from
 * its thread. Threads' first comments come first, so that each reply finds its thread.
 */
async function commentsOf(source: EmbeddedInstall, fileId: string): Promise<CommentRecord[]> {
  const found: CommentRecord[] = [];
  for (let offset = 0; ; offset += ACTIVITY_PAGE) {
    const { items } = await source.comments.listByFile({ fileId, offset, limit: ACTIVITY_PAGE });
    for (const { author: _author, ...comment } of items) {
      found.push(comment.parentId === null ? comment : { ...comment, range: null, resolved: false });
    }
    if (items.length < ACTIVITY_PAGE) break;
  }
  return [...found.filter((c) => c.parentId === null), ...found.filter((c) => c.parentId !== null)];
}

/**
 * A file's event log: every entry of its activity as stored (without the actor's details
 * the listing adds), with its number, and the latest number given (`head`), which entries
 * pruned may have left without its entry.
 */
async function logOf(
  source: EmbeddedInstall,
  fileId: string,
): Promise<{ entries: (ActivityEntry & { seq: number })[]; head: number }> {
  const entries: (ActivityEntry & { seq: number })[] = [];
  for (let afterSeq = 0; ; ) {
    const { entries: page, head } = await source.activity.listSince({ fileId, afterSeq, limit: ACTIVITY_PAGE });
    for (const { actor: _actor, ...entry } of page) {
      entries.push(entry as ActivityEntry & { seq: number });
      afterSeq = entry.seq;
    }
    if (page.length < ACTIVITY_PAGE) return { entries, head };
  }
}

const ACTIVITY_PAGE = 1000;

const sameVersion = (a: VersionRecord, b: VersionRecord) =>
  a.blobKey === b.blobKey &&
  encodePieces(a.pieces) === encodePieces(b.pieces) &&
  a.sha256 === b.sha256 &&
  a.size === b.size &&
  a.authorId === b.authorId &&
  a.keep === b.keep &&
  a.createdAt.getTime() === b.createdAt.getTime();

/** Every version of a file, oldest first, as stored (without the author's details the listing adds). */
async function versionsOf(source: EmbeddedInstall, fileId: string): Promise<VersionRecord[]> {
  const found: VersionRecord[] = [];
  for (let offset = 0; ; offset += ACTIVITY_PAGE) {
    const { items } = await source.versions.listByFile({ fileId, offset, limit: ACTIVITY_PAGE });
    for (const { author: _author, ...version } of items) found.push(version);
    if (items.length < ACTIVITY_PAGE) return found.reverse();
  }
}

/**
 * Copies a file's (or a version's) bytes to the target, and checks their count and
 * SHA-256 against its row: a content of one blob is streamed across and checked on the
 * way; one of pieces has each blob its pieces name (and not yet in `copied`) copied whole,
 * then is read back from the target and checked.
 */
async function copyContent(
  source: EmbeddedInstall,
  target: ServerStorage,
  content: Pick<FileRecord, "id" | "blobKey" | "size" | "sha256" | "pieces">,
  copied: Set<string>,
): Promise<void> {
  if (content.pieces === undefined) {
    if (!copied.has(content.blobKey)) await copyBlob(source, target, content);
    copied.add(content.blobKey);
    return;
  }
  for (const key of contentBlobKeys(content)) {
    if (copied.has(key)) continue;
    await target.blobs.write({ key, source: await source.blobs.read({ key }) });
    copied.add(key);
  }
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of await readContent(target.blobs, content)) {
    hash.update(chunk);
    size += chunk.length;
  }
  const sha256 = hash.digest("hex");
  if (size !== content.size || sha256 !== content.sha256) {
    throw new MoveError(`The bytes of ${content.id} do not match its row (${size} bytes, sha256 ${sha256}).`);
  }
}

/** Streams a content of one blob to the target and checks its count and SHA-256 against its row. */
async function copyBlob(
  source: EmbeddedInstall,
  target: ServerStorage,
  file: Pick<FileRecord, "id" | "blobKey" | "size" | "sha256">,
): Promise<void> {
  const hash = createHash("sha256");
  const bytes = await readRecorded(source.blobs, { key: file.blobKey, size: file.size });
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
