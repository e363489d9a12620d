import { fileNameKey } from "@cellar/core";
import type { Database } from "better-sqlite3";

/** One step of the schema: SQL, or a function for work SQL alone cannot do. */
export type Migration = string | ((db: Database) => void);

/**
 * The schema, as an append-only list: migration N brings a database from
 * `user_version` N-1 to N. Never edit a migration that has shipped; add the next one.
 *
 * Times are INTEGER milliseconds since the epoch (UTC), so they sort and compare as
 * numbers and round-trip to the millisecond.
 */
export const MIGRATIONS: readonly Migration[] = [
  /* 1 */ `
  CREATE TABLE users (
    id          TEXT PRIMARY KEY,
    email       TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE files (
    id            TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES users (id),
    name          TEXT NOT NULL,
    visibility    TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
    state         TEXT NOT NULL CHECK (state IN ('active', 'trashed')),
    kind          TEXT NOT NULL CHECK (kind IN ('csv', 'xlsx', 'sheet')),
    content_type  TEXT NOT NULL,
    size          INTEGER NOT NULL CHECK (size >= 0),
    sha256        TEXT NOT NULL,
    blob_key      TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    trashed_at    INTEGER,
    purge_at      INTEGER
  ) STRICT;

  -- A user's files in one state, newest first: serves every page of the list.
  CREATE INDEX files_by_owner ON files (owner_id, state, created_at DESC, id DESC);
  -- Trashed files by when they fall due: serves the purge job.
  CREATE INDEX files_due_for_purge ON files (purge_at, id) WHERE state = 'trashed';

  -- How many files each user has in each state, kept by triggers, so a list's
  -- X-Total-Count costs one lookup instead of a scan of the user's files.
  CREATE TABLE file_counts (
    owner_id  TEXT NOT NULL,
    state     TEXT NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (owner_id, state)
  ) STRICT, WITHOUT ROWID;

  CREATE TRIGGER file_counts_insert AFTER INSERT ON files BEGIN
    INSERT INTO file_counts (owner_id, state, count) VALUES (NEW.owner_id, NEW.state, 1)
      ON CONFLICT (owner_id, state) DO UPDATE SET count = count + 1;
  END;
  CREATE TRIGGER file_counts_delete AFTER DELETE ON files BEGIN
    UPDATE file_counts SET count = count - 1 WHERE owner_id = OLD.owner_id AND state = OLD.state;
  END;
  CREATE TRIGGER file_counts_move AFTER UPDATE OF state ON files WHEN OLD.state <> NEW.state BEGIN
    UPDATE file_counts SET count = count - 1 WHERE owner_id = OLD.owner_id AND state = OLD.state;
    INSERT INTO file_counts (owner_id, state, count) VALUES (NEW.owner_id, NEW.state, 1)
      ON CONFLICT (owner_id, state) DO UPDATE SET count = count + 1;
  END;

  CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    revoked_at  INTEGER
  ) STRICT;
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);

  CREATE TABLE magic_links (
    token_hash  TEXT PRIMARY KEY,
    email       TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX magic_links_by_expiry ON magic_links (expires_at);

  CREATE TABLE rate_windows (
    key       TEXT PRIMARY KEY,
    count     INTEGER NOT NULL,
    reset_at  INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX rate_windows_by_reset ON rate_windows (reset_at);
  `,
  /* 2 */ `
  -- What a spreadsheet reader found in a file's cells (core's SheetIndex, as JSON): one
  -- per file, gone with it.
  CREATE TABLE sheet_indexes (
    file_id  TEXT PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    body     TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  /* 3 */ (db) => {
    // Each name's key (core's fileNameKey), written with the name by the repository: what
    // a search looks for, and what sorting by name compares, byte by byte (BINARY), which
    // is code point order. Existing names get theirs from core's own function.
    db.exec("ALTER TABLE files ADD COLUMN name_key TEXT NOT NULL DEFAULT ''");
    db.function("cellar_file_name_key", { deterministic: true }, (name) => fileNameKey(String(name)));
    db.exec("UPDATE files SET name_key = cellar_file_name_key(name)");
    db.exec(`
    -- A user's files in one state in each order a list can be sorted by. Each index holds
    -- the name key too, so a search tests it on index entries and reads a file's row only
    -- when its name matches.
    DROP INDEX files_by_owner;
    CREATE INDEX files_by_created ON files (owner_id, state, created_at, id, name_key);
    CREATE INDEX files_by_updated ON files (owner_id, state, updated_at, id, name_key);
    CREATE INDEX files_by_size ON files (owner_id, state, size, id, name_key);
    CREATE INDEX files_by_name ON files (owner_id, state, name_key, id);
    `);
  },
];

export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}

/**
 * Brings the database up to the latest schema, one migration per transaction, each
 * recorded in `PRAGMA user_version` inside that transaction, so a crash never leaves a
 * half-applied migration. `BEGIN IMMEDIATE` and a re-read of the version inside it let
 * two processes open one new database at once: the second finds the work done.
 */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const latest = migrations.length;
  const version = () => db.pragma("user_version", { simple: true }) as number;
  if (version() > latest) {
    throw new SchemaTooNewError(
      `The database at ${db.name} has schema version ${version()}, newer than this Cellar understands (${latest}). Upgrade Cellar, or restore a backup made for this version.`,
    );
  }
  for (let target = version() + 1; target <= latest; target++) {
    db.exec("BEGIN IMMEDIATE");
    try {
      if (version() < target) {
        const migration = migrations[target - 1] as Migration;
        if (typeof migration === "string") db.exec(migration);
        else migration(db);
        db.pragma(`user_version = ${target}`);
      }
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  }
  return version();
}
