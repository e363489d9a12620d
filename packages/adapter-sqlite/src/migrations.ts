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
  /* 4 */ `
  -- Who holds which role on which file: one permission per address and file. user_id is
  -- the address's account, null until its first sign-in attaches it.
  CREATE TABLE permissions (
    id          TEXT PRIMARY KEY,
    file_id     TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    email       TEXT NOT NULL,
    user_id     TEXT REFERENCES users (id),
    role        TEXT NOT NULL CHECK (role IN ('viewer', 'commenter', 'editor')),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    -- The file's state and the columns its listings sort and search by, copied from the
    -- file (by the repository's insert, then by the trigger below), so that a listing of
    -- the files shared with someone walks one index of theirs in order and reads only the
    -- page's files. Joined from files instead, 10,000 shared files took 21 ms to count
    -- and 17 ms to sort by name; from these indexes, 0.3 ms and 0.4 ms.
    file_state       TEXT NOT NULL CHECK (file_state IN ('active', 'trashed')),
    file_name_key    TEXT NOT NULL,
    file_size        INTEGER NOT NULL,
    file_created_at  INTEGER NOT NULL,
    file_updated_at  INTEGER NOT NULL,
    UNIQUE (file_id, email)
  ) STRICT;

  -- A file read with the caller's role: one lookup, the role read from the index.
  CREATE INDEX permissions_by_file_user ON permissions (file_id, user_id, role);
  -- The roles waiting for an address, which its first sign-in attaches.
  CREATE INDEX permissions_waiting ON permissions (email) WHERE user_id IS NULL;
  -- The files shared with a user, in each order their listing can be sorted by (when
  -- shared, then as a user's own files are). Each index holds the name key, so a search
  -- tests it on index entries, as the files_by_* indexes do.
  CREATE INDEX permissions_shared_by_share ON permissions (user_id, file_state, created_at, file_id, file_name_key);
  CREATE INDEX permissions_shared_by_created ON permissions (user_id, file_state, file_created_at, file_id, file_name_key);
  CREATE INDEX permissions_shared_by_updated ON permissions (user_id, file_state, file_updated_at, file_id, file_name_key);
  CREATE INDEX permissions_shared_by_size ON permissions (user_id, file_state, file_size, file_id, file_name_key);
  CREATE INDEX permissions_shared_by_name ON permissions (user_id, file_state, file_name_key, file_id);

  CREATE TRIGGER permissions_follow_file AFTER UPDATE OF state, name_key, size, created_at, updated_at ON files BEGIN
    UPDATE permissions SET
      file_state = NEW.state,
      file_name_key = NEW.name_key,
      file_size = NEW.size,
      file_created_at = NEW.created_at,
      file_updated_at = NEW.updated_at
    WHERE file_id = NEW.id;
  END;

  -- What happened to each file, written with the change it records. actor_id has no
  -- foreign key: an entry stays as written, and a listing shows no actor when there is no
  -- such user.
  CREATE TABLE activity (
    id        TEXT PRIMARY KEY,
    file_id   TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    at        INTEGER NOT NULL,
    actor_id  TEXT NOT NULL,
    action    TEXT NOT NULL,
    details   TEXT NOT NULL -- JSON
  ) STRICT;
  -- A file's entries, newest first: every page of its activity, and the purge's cascade.
  CREATE INDEX activity_by_file ON activity (file_id, at DESC, id DESC);
  -- Every file's entries, oldest first: the retention job.
  CREATE INDEX activity_by_age ON activity (at);
  `,
  /* 5 */ `
  -- The version of a file's content: 1 at upload, one more on every change of content.
  ALTER TABLE files ADD COLUMN version INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1);
  `,
  /* 6 */ `
  -- Every version of a file's content, the current one included; they go with their file.
  CREATE TABLE versions (
    file_id    TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    number     INTEGER NOT NULL CHECK (number >= 1),
    blob_key   TEXT NOT NULL,
    size       INTEGER NOT NULL,
    sha256     TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    author_id  TEXT NOT NULL,
    keep       INTEGER NOT NULL DEFAULT 0 CHECK (keep IN (0, 1)),
    PRIMARY KEY (file_id, number)
  ) STRICT, WITHOUT ROWID;
  -- The orphan sweep and retention ask whether any version still holds a blob.
  CREATE INDEX versions_by_blob ON versions (blob_key);
  -- Retention walks the versions it may remove, oldest first.
  CREATE INDEX versions_by_age ON versions (created_at) WHERE keep = 0;
  -- Each file's content so far is its version: the upload's, by its owner.
  INSERT INTO versions (file_id, number, blob_key, size, sha256, created_at, author_id)
  SELECT id, version, blob_key, size, sha256, created_at, owner_id FROM files;
  `,
  /* 7 */ `
  -- Each file's event log: every activity entry takes the next number of its file (seq),
  -- from the file's counter (event_seq: the latest number given), raised by the writer in
  -- the transaction of the entry. The counter never goes down, also when old entries are
  -- pruned, so no number is given twice. Neither column is in the file's listings'
  -- indexes, nor among the columns the permissions_follow_file trigger copies.
  ALTER TABLE files ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0 CHECK (event_seq >= 0);
  ALTER TABLE activity ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
  -- Entries written before are numbered in the order they happened, and each file's
  -- counter set to its count.
  UPDATE activity SET seq = numbered.seq
  FROM (SELECT rowid AS entry, row_number() OVER (PARTITION BY file_id ORDER BY at, id) AS seq FROM activity) AS numbered
  WHERE activity.rowid = numbered.entry;
  UPDATE files SET event_seq = (SELECT count(*) FROM activity WHERE file_id = files.id)
  WHERE id IN (SELECT file_id FROM activity);
  -- A number once per file; and a file's entries after a number, in order (listSince).
  CREATE UNIQUE INDEX activity_by_seq ON activity (file_id, seq);
  `,
  /* 8 */ `
  -- The event streams open on every process (StreamLeaseRepository): each account's
  -- count, and who has each file open. A lease outlives its process by at most its TTL.
  CREATE TABLE stream_leases (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    file_id     TEXT REFERENCES files(id) ON DELETE CASCADE,
    opened_at   INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX stream_leases_by_user ON stream_leases (user_id, expires_at);
  CREATE INDEX stream_leases_by_file ON stream_leases (file_id, expires_at) WHERE file_id IS NOT NULL;
  `,
  /* 9 */ `
  -- Every entry's place among all entries, in the order they committed (listCommitted:
  -- an account's own event stream). SQLite has one writer at a time, so the order entries
  -- are written in is the order they commit; the counter never goes down, so no place is
  -- given twice, also after the newest entries go with a purged file (a rowid could be).
  CREATE TABLE counters (
    name   TEXT PRIMARY KEY,
    value  INTEGER NOT NULL
  ) STRICT;
  ALTER TABLE activity ADD COLUMN position INTEGER;
  UPDATE activity SET position = rowid;
  INSERT INTO counters (name, value) VALUES ('activity_position', coalesce((SELECT max(position) FROM activity), 0));
  CREATE UNIQUE INDEX activity_by_position ON activity (position);
  `,
  /* 10 */ `
  -- Comments on files, in threads one level deep: a reply names its thread's first
  -- comment (parent_id) and goes with it, as every comment goes with its file. A reply
  -- keeps no range (cell_range) or state of its own: its thread's are read through parent_id.
  -- author_id has no foreign key: a comment stays as written, and shows no author when
  -- there is no such user.
  CREATE TABLE comments (
    id          TEXT PRIMARY KEY,
    file_id     TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    author_id   TEXT NOT NULL,
    text        TEXT NOT NULL,
    cell_range  TEXT,
    parent_id   TEXT REFERENCES comments (id) ON DELETE CASCADE,
    resolved    INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  ) STRICT;
  -- A file's comments oldest first: every page of them, their count, and the purge's cascade.
  CREATE INDEX comments_by_file ON comments (file_id, created_at, id);
  -- A thread's replies: the cascade when its first comment is deleted.
  CREATE INDEX comments_by_parent ON comments (parent_id);
  `,
  /* 11 */ `
  -- Where and when each session was last used (decisions §10: GET /sessions).
  ALTER TABLE sessions ADD COLUMN user_agent TEXT;
  ALTER TABLE sessions ADD COLUMN last_used_at INTEGER;
  -- A user's live sessions, newest first.
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at DESC, id DESC);

  -- Access tokens (decisions §10), by the SHA-256 of their value; they go with their user.
  CREATE TABLE access_tokens (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    scope         TEXT NOT NULL CHECK (scope IN ('read', 'write')),
    token_hash    TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    last_used_at  INTEGER
  ) STRICT;
  CREATE INDEX access_tokens_by_user ON access_tokens (user_id, created_at DESC, id DESC);
  CREATE INDEX access_tokens_by_expiry ON access_tokens (expires_at) WHERE expires_at IS NOT NULL;
  `,
  /* 12 */ `
  -- Webhooks (decisions §10): they go with their user, and one of a single file with it.
  CREATE TABLE webhooks (
    id             TEXT PRIMARY KEY,
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url            TEXT NOT NULL,
    events         TEXT NOT NULL,  -- a JSON array of kinds
    file_id        TEXT REFERENCES files (id) ON DELETE CASCADE,
    secret         TEXT NOT NULL,
    active         INTEGER NOT NULL CHECK (active IN (0, 1)),
    failing_since  INTEGER,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX webhooks_by_user ON webhooks (user_id, created_at DESC, id DESC);
  CREATE INDEX webhooks_by_file ON webhooks (file_id) WHERE file_id IS NOT NULL;

  -- Where the feed of the queue stands in the activity log: one row, null before its first step.
  CREATE TABLE webhook_cursor (
    one       INTEGER PRIMARY KEY CHECK (one = 1),
    position  TEXT
  ) STRICT;
  INSERT INTO webhook_cursor (one, position) VALUES (1, NULL);

  -- One event to deliver to one webhook; claimed_until: whose turn it is (0: no one's).
  CREATE TABLE webhook_deliveries (
    id             TEXT PRIMARY KEY,
    hook_id        TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id       TEXT NOT NULL,
    file_id        TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    seq            INTEGER NOT NULL,
    type           TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    attempts       INTEGER NOT NULL,
    due_at         INTEGER NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'dropped')),
    claimed_until  INTEGER NOT NULL DEFAULT 0
  ) STRICT;
  -- Each webhook's and file's oldest pending delivery: what may be claimed.
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (hook_id, file_id, seq) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_by_file ON webhook_deliveries (file_id);

  CREATE TABLE webhook_attempts (
    hook_id      TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    delivery_id  TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    attempt      INTEGER NOT NULL,
    status       INTEGER,
    duration_ms  INTEGER NOT NULL,
    at           INTEGER NOT NULL,
    error        TEXT,
    PRIMARY KEY (delivery_id, attempt)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX webhook_attempts_by_hook ON webhook_attempts (hook_id, at DESC, attempt DESC);
  `,
  /* 13 */ `
  -- A content made of pieces of several blobs (JSON [[key, offset, length], …]); NULL: blob_key's alone.
  ALTER TABLE files ADD COLUMN pieces TEXT;
  ALTER TABLE versions ADD COLUMN pieces TEXT;
  -- Compaction looks for the files of many pieces among those of any.
  CREATE INDEX files_pieced ON files (id) WHERE pieces IS NOT NULL;
  -- Each blob a version's pieces refer to: a blob is deleted only when no row here or in
  -- versions names it.
  CREATE TABLE version_blobs (
    file_id   TEXT NOT NULL,
    number    INTEGER NOT NULL,
    blob_key  TEXT NOT NULL,
    PRIMARY KEY (file_id, number, blob_key),
    FOREIGN KEY (file_id, number) REFERENCES versions (file_id, number) ON DELETE CASCADE
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX version_blobs_by_blob ON version_blobs (blob_key);
  `,
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
