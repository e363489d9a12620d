import { fileNameKey } from "@cellar/core";
import type { ClientBase, Pool } from "pg";

/**
 * One step of the schema: SQL, or a function for work SQL alone cannot do. A function runs
 * on the migration's connection, inside its transaction.
 */
export type Migration = string | ((client: ClientBase) => Promise<void>);

/**
 * The schema, as an append-only list: migration N brings a database from version N-1 to
 * N. Never edit a migration that has shipped; add the next one.
 *
 * Times are `timestamptz`: they read as times in psql, and they hold JavaScript's
 * milliseconds exactly (PostgreSQL keeps microseconds).
 */
export const MIGRATIONS: readonly Migration[] = [
  /* 1 */ `
  CREATE TABLE users (
    id          text PRIMARY KEY,
    email       text NOT NULL UNIQUE,
    name        text NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
  );

  CREATE TABLE files (
    id            text PRIMARY KEY,
    owner_id      text NOT NULL REFERENCES users (id),
    name          text NOT NULL,
    visibility    text NOT NULL CHECK (visibility IN ('private', 'public')),
    state         text NOT NULL CHECK (state IN ('active', 'trashed')),
    kind          text NOT NULL CHECK (kind IN ('csv', 'xlsx', 'sheet')),
    content_type  text NOT NULL,
    size          bigint NOT NULL CHECK (size >= 0),
    sha256        text NOT NULL,
    blob_key      text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    updated_at    timestamptz NOT NULL,
    trashed_at    timestamptz,
    purge_at      timestamptz
  );

  -- A user's files in one state, newest first: serves every page of the list, from
  -- either end.
  CREATE INDEX files_by_owner ON files (owner_id, state, created_at DESC, id DESC);
  -- Trashed files by when they fall due: serves the purge job.
  CREATE INDEX files_due_for_purge ON files (purge_at, id) WHERE state = 'trashed';

  -- How many files each user has in each state, kept by triggers, so a list's total
  -- costs one lookup instead of a count over the user's files.
  CREATE TABLE file_counts (
    owner_id  text NOT NULL,
    state     text NOT NULL,
    count     bigint NOT NULL,
    PRIMARY KEY (owner_id, state)
  );

  -- The triggers run once per statement, over the rows it changed (transition tables):
  -- a row trigger wrote the same count row once per file, which made a bulk insert of
  -- 100,000 files take minutes. The count rows a statement changes are locked in one
  -- order first, so two statements (two purges) never wait on each other in a cycle.
  CREATE FUNCTION file_counts_add(changes jsonb) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM file_counts c
      JOIN jsonb_to_recordset(changes) AS d(owner_id text, state text, n bigint)
        ON c.owner_id = d.owner_id AND c.state = d.state
      ORDER BY c.owner_id, c.state FOR UPDATE OF c;
    INSERT INTO file_counts (owner_id, state, count)
      SELECT d.owner_id, d.state, d.n FROM jsonb_to_recordset(changes) AS d(owner_id text, state text, n bigint)
      WHERE d.n <> 0
      ORDER BY d.owner_id, d.state
      ON CONFLICT (owner_id, state) DO UPDATE SET count = file_counts.count + EXCLUDED.count;
  END $$;

  CREATE FUNCTION file_counts_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM file_counts_add(coalesce((SELECT jsonb_agg(g) FROM (
      SELECT owner_id, state, count(*) AS n FROM new_rows GROUP BY owner_id, state) g), '[]'));
    RETURN NULL;
  END $$;
  CREATE FUNCTION file_counts_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM file_counts_add(coalesce((SELECT jsonb_agg(g) FROM (
      SELECT owner_id, state, -count(*) AS n FROM old_rows GROUP BY owner_id, state) g), '[]'));
    RETURN NULL;
  END $$;
  CREATE FUNCTION file_counts_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM file_counts_add(coalesce((SELECT jsonb_agg(g) FROM (
      SELECT owner_id, state, sum(n) AS n FROM (
        SELECT o.owner_id, o.state, -1 AS n FROM old_rows o JOIN new_rows w ON w.id = o.id WHERE o.state <> w.state
        UNION ALL
        SELECT w.owner_id, w.state, 1 AS n FROM old_rows o JOIN new_rows w ON w.id = o.id WHERE o.state <> w.state
      ) moved GROUP BY owner_id, state) g), '[]'));
    RETURN NULL;
  END $$;
  CREATE TRIGGER file_counts_insert AFTER INSERT ON files REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION file_counts_after_insert();
  CREATE TRIGGER file_counts_delete AFTER DELETE ON files REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION file_counts_after_delete();
  CREATE TRIGGER file_counts_update AFTER UPDATE ON files REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION file_counts_after_update();

  CREATE TABLE sessions (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    revoked_at  timestamptz
  );
  CREATE INDEX sessions_by_expiry ON sessions (expires_at);

  CREATE TABLE magic_links (
    token_hash  text PRIMARY KEY,
    email       text NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
  );
  CREATE INDEX magic_links_by_expiry ON magic_links (expires_at);

  CREATE TABLE rate_windows (
    key       text PRIMARY KEY,
    count     bigint NOT NULL,
    reset_at  timestamptz NOT NULL
  );
  CREATE INDEX rate_windows_by_reset ON rate_windows (reset_at);

  -- Values every instance on the database shares, made once by whichever comes first
  -- (the generated JWT key when JWT_SECRET is unset).
  CREATE TABLE shared_settings (
    key    text PRIMARY KEY,
    value  text NOT NULL
  );
  `,
  /* 2 */ `
  -- Rate-limit windows are disposable: unlogged, a hit writes no WAL and its commit waits
  -- for no disk flush. A crash of PostgreSQL (not a clean restart) empties the table, and
  -- standbys do not have it: after either, every window starts again from zero.
  ALTER TABLE rate_windows SET UNLOGGED;

  -- Which sessions, users and files each transaction updated or deleted, so that every
  -- instance can drop the rows it keeps in memory (shared-row-cache.ts). Each instance
  -- reads the changes of transactions at or after the oldest one still running at its
  -- last read, by transaction id; those of transactions that ended ten minutes ago or
  -- more are deleted, by transaction id too.
  CREATE TABLE cellar_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
    table_name  text NOT NULL,
    row_id      text NOT NULL,
    noted_at    timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX cellar_changes_by_xid ON cellar_changes (xid);

  -- Once per statement, over the rows it changed: a bulk purge notes its files in one insert.
  CREATE FUNCTION cellar_note_changes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO cellar_changes (table_name, row_id) SELECT TG_TABLE_NAME, id FROM old_rows;
    RETURN NULL;
  END $$;
  CREATE TRIGGER sessions_noted_update AFTER UPDATE ON sessions REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();
  CREATE TRIGGER sessions_noted_delete AFTER DELETE ON sessions REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();
  CREATE TRIGGER users_noted_update AFTER UPDATE ON users REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();
  CREATE TRIGGER users_noted_delete AFTER DELETE ON users REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();
  CREATE TRIGGER files_noted_update AFTER UPDATE ON files REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();
  CREATE TRIGGER files_noted_delete AFTER DELETE ON files REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION cellar_note_changes();

  -- What a spreadsheet reader found in a file's cells (core's SheetIndex): one per file,
  -- gone with it.
  CREATE TABLE sheet_indexes (
    file_id  text PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
    body     jsonb NOT NULL
  );
  `,
  /* 3 */ `
  -- No more row cache across instances: reads go to the database (many concurrent
  -- lookups to a statement), so no write waits for other instances to forget a row.
  DROP TRIGGER sessions_noted_update ON sessions;
  DROP TRIGGER sessions_noted_delete ON sessions;
  DROP TRIGGER users_noted_update ON users;
  DROP TRIGGER users_noted_delete ON users;
  DROP TRIGGER files_noted_update ON files;
  DROP TRIGGER files_noted_delete ON files;
  DROP FUNCTION cellar_note_changes();
  DROP TABLE cellar_changes;
  `,
  /* 4 */ async (client) => {
    // Each name's key (core's fileNameKey), written with the name by the repository: what
    // a search looks for, and what sorting by name compares, in code point order
    // (COLLATE "C", whatever the database's own collation). PostgreSQL's lower() follows
    // the server's locale, so existing names get their keys from core's own function.
    await client.query(`ALTER TABLE files ADD COLUMN name_key text COLLATE "C"`);
    await fillNameKeys(client);
    await client.query(`
    ALTER TABLE files ALTER COLUMN name_key SET NOT NULL;
    -- A user's files in one state in each order a list can be sorted by. Each index holds
    -- the name key too, so a search tests it on index entries (an index-only scan) and
    -- reads a file's row only for the page it answers.
    DROP INDEX files_by_owner;
    CREATE INDEX files_by_created ON files (owner_id, state, created_at, id) INCLUDE (name_key);
    CREATE INDEX files_by_updated ON files (owner_id, state, updated_at, id) INCLUDE (name_key);
    CREATE INDEX files_by_size ON files (owner_id, state, size, id) INCLUDE (name_key);
    CREATE INDEX files_by_name ON files (owner_id, state, name_key, id);
    `);
  },
  /* 5 */ `
  -- People on a file (core's PermissionRecord): a role given by the owner to an email
  -- address, attached to that address's account once it has one. Gone with the file.
  -- Ids compare in code point order (COLLATE "C"), as core orders ties, whatever the
  -- database's collation.
  CREATE TABLE permissions (
    id          text COLLATE "C" PRIMARY KEY,
    file_id     text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    email       text NOT NULL,
    -- An account that goes leaves its roles waiting for its address again.
    user_id     text REFERENCES users (id) ON DELETE SET NULL,
    role        text NOT NULL CHECK (role IN ('viewer', 'commenter', 'editor')),
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    UNIQUE (file_id, email)
  );
  -- One role per person and file; and the lookup that every read of a file by a caller
  -- joins (findWithRole). Waiting permissions (no user yet) are distinct.
  CREATE UNIQUE INDEX permissions_by_file_and_user ON permissions (file_id, user_id);
  -- The files shared with a user, and as what: the shared listing.
  CREATE INDEX permissions_shared_with ON permissions (user_id, created_at, file_id) INCLUDE (role);
  -- The permissions waiting for an address: looked up on every sign-in.
  CREATE INDEX permissions_waiting ON permissions (email) WHERE user_id IS NULL;

  -- What happened to each file, written with the change it records. The actor is no
  -- foreign key: an entry outlives its actor's account, and then shows no actor.
  CREATE TABLE activity (
    id        text COLLATE "C" PRIMARY KEY,
    file_id   text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    at        timestamptz NOT NULL,
    actor_id  text NOT NULL,
    action    text NOT NULL,
    details   jsonb NOT NULL
  );
  -- A file's entries newest first: its pages, its count, and the purge's cascade.
  CREATE INDEX activity_by_file ON activity (file_id, at DESC, id DESC);
  -- The oldest entries of every file: the retention prune.
  CREATE INDEX activity_by_time ON activity (at, id);
  `,
  /* 6 */ `
  -- The version of a file's content: 1 at upload, one more on every change of content.
  ALTER TABLE files ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);
  `,
  /* 7 */ `
  -- Every version of a file's content, the current one included; they go with their file.
  CREATE TABLE versions (
    file_id    text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    number     integer NOT NULL CHECK (number >= 1),
    blob_key   text NOT NULL,
    size       bigint NOT NULL,
    sha256     text NOT NULL,
    created_at timestamptz NOT NULL,
    author_id  text NOT NULL,
    keep       boolean NOT NULL DEFAULT false,
    PRIMARY KEY (file_id, number)
  );
  -- The orphan sweep and retention ask whether any version still holds a blob.
  CREATE INDEX versions_by_blob ON versions (blob_key);
  -- Retention walks the versions it may remove, oldest first.
  CREATE INDEX versions_by_age ON versions (created_at) WHERE NOT keep;
  -- Each file's content so far is its version: the upload's, by its owner.
  INSERT INTO versions (file_id, number, blob_key, size, sha256, created_at, author_id)
  SELECT id, version, blob_key, size, sha256, created_at, owner_id FROM files;
  `,
  /* 8 */ `
  -- Each file's event log: every activity entry takes the next number of its file (seq),
  -- from the file's counter (event_seq: the latest number given), which the statement
  -- writing the entries raises in the file's row, under its lock, so that numbers follow
  -- the order in which changes commit. The counter never goes down, also when old
  -- entries are pruned, so no number is given twice.
  ALTER TABLE files ADD COLUMN event_seq bigint NOT NULL DEFAULT 0 CHECK (event_seq >= 0);
  ALTER TABLE activity ADD COLUMN seq bigint;
  -- Entries written before are numbered in the order they happened, and each file's
  -- counter set to its count.
  UPDATE activity SET seq = numbered.seq
  FROM (SELECT id, row_number() OVER (PARTITION BY file_id ORDER BY at, id) AS seq FROM activity) AS numbered
  WHERE activity.id = numbered.id;
  UPDATE files SET event_seq = counted.n
  FROM (SELECT file_id, count(*) AS n FROM activity GROUP BY file_id) AS counted
  WHERE files.id = counted.file_id;
  ALTER TABLE activity ALTER COLUMN seq SET NOT NULL, ADD CHECK (seq >= 1);
  -- A number once per file; and a file's entries after a number, in order (listSince).
  CREATE UNIQUE INDEX activity_by_seq ON activity (file_id, seq);
  `,
  /* 9 */ `
  -- The event streams open on every instance (StreamLeaseRepository): each account's
  -- count, and who has each file open. A lease outlives its instance by at most its TTL.
  CREATE TABLE stream_leases (
    id          text PRIMARY KEY,
    user_id     text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    file_id     text REFERENCES files(id) ON DELETE CASCADE,
    opened_at   timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
  );
  CREATE INDEX stream_leases_by_user ON stream_leases (user_id, expires_at);
  CREATE INDEX stream_leases_by_file ON stream_leases (file_id, expires_at) WHERE file_id IS NOT NULL;
  `,
  /* 10 */ `
  -- Every entry's transaction (listCommitted: an account's own event stream). Entries are
  -- read in transaction id order, only below the oldest transaction still running, so a
  -- reader never passes an entry that has yet to commit: ids are given as transactions
  -- begin to write, not as they commit. xid8 never wraps around. Entries written before
  -- share the id of this migration.
  ALTER TABLE activity ADD COLUMN txid xid8 NOT NULL DEFAULT pg_current_xact_id();
  CREATE INDEX activity_by_txid ON activity (txid, id);
  `,
  /* 11 */ `
  -- Comments on files, in threads one level deep: a reply names its thread's first
  -- comment (parent_id) and goes with it, as every comment goes with its file. A reply
  -- keeps no range (cell_range) or state of its own: its thread's are read through
  -- parent_id. The author is no foreign key: a comment outlives its author's account, and
  -- then shows no author. Ids compare in code point order (COLLATE "C"), as core orders ties.
  CREATE TABLE comments (
    id          text COLLATE "C" PRIMARY KEY,
    file_id     text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    author_id   text NOT NULL,
    text        text NOT NULL,
    cell_range  text,
    parent_id   text REFERENCES comments (id) ON DELETE CASCADE,
    resolved    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
  );
  -- A file's comments oldest first: every page of them, their count, and the purge's cascade.
  CREATE INDEX comments_by_file ON comments (file_id, created_at, id);
  -- A thread's replies: the cascade when its first comment is deleted.
  CREATE INDEX comments_by_parent ON comments (parent_id);
  `,
  /* 12 */ `
  -- Where and when each session was last used (decisions §10: GET /sessions).
  ALTER TABLE sessions ADD COLUMN user_agent text;
  ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;
  -- A user's live sessions, newest first. Ids compare in code point order, as core orders ties.
  CREATE INDEX sessions_by_user ON sessions (user_id, created_at DESC, id COLLATE "C" DESC);

  -- Access tokens (decisions §10), by the SHA-256 of their value; they go with their user.
  CREATE TABLE access_tokens (
    id            text COLLATE "C" PRIMARY KEY,
    user_id       text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name          text NOT NULL,
    scope         text NOT NULL CHECK (scope IN ('read', 'write')),
    token_hash    text NOT NULL UNIQUE,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz,
    last_used_at  timestamptz
  );
  CREATE INDEX access_tokens_by_user ON access_tokens (user_id, created_at DESC, id DESC);
  CREATE INDEX access_tokens_by_expiry ON access_tokens (expires_at) WHERE expires_at IS NOT NULL;
  `,
  /* 13 */ `
  -- Webhooks (decisions §10): they go with their user, and one of a single file with it.
  CREATE TABLE webhooks (
    id             text COLLATE "C" PRIMARY KEY,
    user_id        text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    url            text NOT NULL,
    events         jsonb NOT NULL,
    file_id        text REFERENCES files (id) ON DELETE CASCADE,
    secret         text NOT NULL,
    active         boolean NOT NULL,
    failing_since  timestamptz,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
  );
  CREATE INDEX webhooks_by_user ON webhooks (user_id, created_at DESC, id DESC);
  CREATE INDEX webhooks_by_file ON webhooks (file_id) WHERE file_id IS NOT NULL;

  -- Where the feed of the queue stands in the activity log: one row, null before its first step.
  CREATE TABLE webhook_cursor (
    one       integer PRIMARY KEY CHECK (one = 1),
    position  text
  );
  INSERT INTO webhook_cursor (one, position) VALUES (1, NULL);

  -- One event to deliver to one webhook; claimed_until: whose turn it is.
  CREATE TABLE webhook_deliveries (
    id             text COLLATE "C" PRIMARY KEY,
    hook_id        text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id       text NOT NULL,
    file_id        text NOT NULL REFERENCES files (id) ON DELETE CASCADE,
    seq            integer NOT NULL,
    type           text NOT NULL,
    created_at     timestamptz NOT NULL,
    attempts       integer NOT NULL,
    due_at         timestamptz NOT NULL,
    state          text NOT NULL CHECK (state IN ('pending', 'delivered', 'dropped')),
    claimed_until  timestamptz NOT NULL DEFAULT '-infinity'
  );
  -- Each webhook's and file's oldest pending delivery: what may be claimed.
  CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (hook_id, file_id, seq) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_by_file ON webhook_deliveries (file_id);

  CREATE TABLE webhook_attempts (
    hook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    delivery_id  text NOT NULL,
    event_id     text NOT NULL,
    attempt      integer NOT NULL,
    status       integer,
    duration_ms  integer NOT NULL,
    at           timestamptz NOT NULL,
    error        text,
    PRIMARY KEY (delivery_id, attempt)
  );
  CREATE INDEX webhook_attempts_by_hook ON webhook_attempts (hook_id, at DESC, attempt DESC);
  `,
  /* 14 */ `
  -- A content made of pieces of several blobs (JSON [[key, offset, length], …]); NULL: blob_key's alone.
  ALTER TABLE files ADD COLUMN pieces text;
  ALTER TABLE versions ADD COLUMN pieces text;
  -- Compaction looks for the files of many pieces among those of any.
  CREATE INDEX files_pieced ON files (id) WHERE pieces IS NOT NULL;
  -- Each blob a version's pieces refer to: a blob is deleted only when no row here or in
  -- versions names it.
  CREATE TABLE version_blobs (
    file_id   text NOT NULL,
    number    integer NOT NULL,
    blob_key  text NOT NULL,
    PRIMARY KEY (file_id, number, blob_key),
    FOREIGN KEY (file_id, number) REFERENCES versions (file_id, number) ON DELETE CASCADE
  );
  CREATE INDEX version_blobs_by_blob ON version_blobs (blob_key);
  `,
];

/** Gives every file without one its name key, a batch of files at a time. */
async function fillNameKeys(client: ClientBase): Promise<void> {
  let after = "";
  for (;;) {
    const { rows } = await client.query<{ id: string; name: string }>(
      "SELECT id, name FROM files WHERE id > $1 ORDER BY id LIMIT 5000",
      [after],
    );
    const last = rows.at(-1);
    if (last === undefined) return;
    await client.query(
      "UPDATE files SET name_key = k.key FROM unnest($1::text[], $2::text[]) AS k(id, key) WHERE files.id = k.id",
      [rows.map((row) => row.id), rows.map((row) => fileNameKey(row.name))],
    );
    after = last.id;
  }
}

export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}

/** Any 64-bit number of Cellar's own: the advisory lock its migrations take. */
const MIGRATION_LOCK = 0x63656c6c6172; // "cellar"

/**
 * Brings the database up to the latest schema in one transaction, under a
 * transaction-level advisory lock: instances starting together take turns, and the
 * later ones find the work done. PostgreSQL's DDL is transactional, so a failure leaves
 * the schema as it was. Returns the version reached.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // A migration, or the wait for another instance's, may take longer than a request may.
    await client.query("SET LOCAL statement_timeout = 0");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS cellar_schema (
      version     integer PRIMARY KEY,
      applied_at  timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM cellar_schema",
    );
    const current = rows[0]?.version ?? 0;
    if (current > migrations.length) {
      throw new SchemaTooNewError(
        `The database's schema is at version ${current}, newer than this Cellar knows (${migrations.length}).`,
      );
    }
    for (let version = current + 1; version <= migrations.length; version++) {
      const migration = migrations[version - 1] as Migration;
      if (typeof migration === "string") await client.query(migration);
      else await migration(client);
      await client.query("INSERT INTO cellar_schema (version) VALUES ($1)", [version]);
    }
    await client.query("COMMIT");
    return migrations.length;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
