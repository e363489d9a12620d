import { createHash, randomBytes } from "node:crypto";
import type { ChangeFeed, ChangeNotice } from "@cellar/core";
import pg from "pg";

/** PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more. */
const MAX_PAYLOAD_BYTES = 8000;
/** PostgreSQL cuts identifiers (a channel's name) to 63 bytes. */
const MAX_CHANNEL_BYTES = 63;

export interface PgChangeFeedOptions {
  /** Where notices are sent from (`SELECT pg_notify`), and heartbeats. */
  readonly pool: pg.Pool;
  /** Where the one listening connection goes: a direct or session-mode connection. */
  readonly listenUrl: string;
  /** The channel every instance on these tables shares (`changeChannel`). */
  readonly channel: string;
  /**
   * True when the repositories on these tables were made with this `channel`
   * (`createPostgresRepositories(pool, { channel })`): they send the notice of each write
   * that changes a file's log inside the write's transaction, and the feed says so
   * (`ChangeFeed.announcesWrites`), so that Cellar does not announce those writes again.
   * Default false.
   */
  readonly announcesWrites?: boolean;
  /**
   * Told what went wrong and was recovered from (a notice not sent, the listening
   * connection lost, a reconnect that failed): for logs. Never thrown to a caller.
   */
  readonly onError?: (error: unknown) => void;
  /** How often the listening connection is checked. Default 10,000 ms. */
  readonly heartbeatMs?: number;
  /** How long a heartbeat may take to come back before the connection is made again. Default 5,000 ms. */
  readonly heartbeatTimeoutMs?: number;
  /** The first wait before connecting again, doubled after each failure. Default 100 ms. */
  readonly reconnectMinMs?: number;
  /** The longest wait between attempts to connect again. Default 5,000 ms. */
  readonly reconnectMaxMs?: number;
}

/** A change feed on LISTEN/NOTIFY, and how to end it. */
export interface PgChangeFeed extends ChangeFeed {
  /** Stops its timers and ends its listening connection; notices are neither sent nor told after. */
  close(): Promise<void>;
}

/**
 * The channel of the instances whose tables are in `schema`: notifications never cross
 * databases, and the schema's name keeps apart the Cellars that share one database. A
 * name too long for an identifier is replaced by its hash.
 */
export function changeChannel(schema: string): string {
  const channel = `cellar_changes:${schema}`;
  if (Buffer.byteLength(channel) <= MAX_CHANNEL_BYTES) return channel;
  return `cellar_changes:${createHash("sha256").update(schema).digest("hex").slice(0, 40)}`;
}

/**
 * SQL that sends, inside its statement's transaction, the notice that the file whose id
 * is the SQL expression `fileId` changed (`NULL`: any file) on the channel in parameter
 * `$channel`; nothing when that parameter is null. For a `RETURNING` list (or a select
 * list) evaluated once for each row written. PostgreSQL delivers it when the transaction
 * commits, and not at all when it rolls back: no process can commit the write and end
 * before telling it. A payload too long for PostgreSQL tells of any file instead.
 */
export function notifySql(channel: number, fileId: string): string {
  const payload = `jsonb_build_object('fileId', ${fileId})::text`;
  return `CASE WHEN $${channel}::text IS NOT NULL THEN pg_notify($${channel}::text,
    CASE WHEN octet_length(${payload}) < ${MAX_PAYLOAD_BYTES} THEN ${payload} ELSE '{"fileId":null}' END) END`;
}

/** What a notification on the channel says. */
type Message = { readonly beat: string } | ChangeNotice;

function parseMessage(payload: string | undefined): Message {
  try {
    const value: unknown = JSON.parse(payload ?? "");
    if (typeof value === "object" && value !== null) {
      if ("beat" in value && typeof value.beat === "string") return { beat: value.beat };
      if ("fileId" in value && typeof value.fileId === "string") {
        return "presence" in value && value.presence === true
          ? { fileId: value.fileId, presence: true }
          : { fileId: value.fileId };
      }
    }
  } catch {
    // Not one of ours: below.
  }
  // Something on the channel that cannot be named: every reader reads its log again.
  return { fileId: null };
}

/**
 * Opens the change feed of the instances sharing a PostgreSQL database, once its
 * listening connection listens (rejects with that connection's error otherwise).
 *
 * - The writes that change a file's log send their notice themselves, inside their
 *   transaction (`notifySql`), when the repositories were made with the channel
 *   (`announcesWrites`): PostgreSQL delivers it on commit, to every instance this one
 *   included, so a process that ends right after committing cannot leave the others
 *   unaware; a write rolled back tells nothing.
 * - `announce` (presence; a session revoked, again once no instance trusts a copy read
 *   before it; any notice without a write of its own) tells this instance's listeners
 *   directly (on a later microtask), and every instance through
 *   `SELECT pg_notify(channel, '{"fileId":…}')` on the pool, not waited for: the change
 *   has committed already, so a failure is only reported to `onError`, and a notice
 *   lost with the process is not sent. This instance hears its own notices again
 *   through LISTEN: notices may repeat.
 * - One `pg.Client` of its own, outside the pool (a pooled connection would be handed on,
 *   and its LISTEN with it), runs `LISTEN` and tells each notification to every listener.
 * - When that connection fails or ends, it is made again, after 100 ms doubled up to 5 s
 *   (with jitter), for as long as it takes; once it listens again, every listener is told
 *   `{ fileId: null }`, for what was missed meanwhile.
 * - A connection that died silently (no error, no end: a network gone) is found by a
 *   heartbeat: every 10 s a notification of its own is sent through the pool, and the
 *   connection is made again when it has not come back 5 s after it was sent (committed). When the
 *   pool cannot send it, the listening connection is asked `SELECT 1` instead, within the
 *   same 5 s. This tests the whole path, a pooler's included.
 *
 * Its timers do not keep the process alive; `close` ends them and the connection.
 */
export async function openPgChangeFeed(options: PgChangeFeedOptions): Promise<PgChangeFeed> {
  const { pool, listenUrl, channel } = options;
  const heartbeatMs = options.heartbeatMs ?? 10_000;
  const heartbeatTimeoutMs = options.heartbeatTimeoutMs ?? 5_000;
  const reconnectMinMs = options.reconnectMinMs ?? 100;
  const reconnectMaxMs = options.reconnectMaxMs ?? 5_000;

  const listeners = new Set<(notice: ChangeNotice) => void>();
  /** Tells heartbeats of this feed from those of other instances on the channel. */
  const beatPrefix = randomBytes(8).toString("hex");
  let beats = 0;
  let closed = false;
  /** The connection that listens, when one does. */
  let current: pg.Client | undefined;
  /** An attempt to connect again, under way. */
  let connecting: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelay = reconnectMinMs;
  /** The heartbeat sent and not yet heard, and when to give up on it. */
  let awaitedBeat: string | undefined;
  let beatDeadline: NodeJS.Timeout | undefined;
  /** Connections being ended. */
  const ending = new Set<Promise<void>>();

  function report(error: unknown): void {
    try {
      options.onError?.(error);
    } catch {
      // A logger that throws changes nothing here.
    }
  }

  /** Calls every listener with the notice, each on a microtask of its own: never inside the caller. */
  function tell(notice: ChangeNotice): void {
    for (const listener of listeners) {
      queueMicrotask(() => {
        if (!listeners.has(listener)) return;
        try {
          listener(notice);
        } catch (error) {
          report(error);
        }
      });
    }
  }

  function send(payload: string): Promise<unknown> {
    return pool.query("SELECT pg_notify($1, $2)", [channel, payload]);
  }

  function onNotification(message: pg.Notification): void {
    if (message.channel !== channel) return;
    const parsed = parseMessage(message.payload);
    if ("beat" in parsed) {
      if (parsed.beat === awaitedBeat) stopAwaitingBeat();
      return;
    }
    tell(parsed);
  }

  function stopAwaitingBeat(): void {
    awaitedBeat = undefined;
    clearTimeout(beatDeadline);
    beatDeadline = undefined;
  }

  /** Ends a connection no longer used; forced when it does not end by itself within a second. */
  function retire(client: pg.Client): void {
    client.removeAllListeners("notification");
    let force: NodeJS.Timeout | undefined;
    const ended = Promise.race([
      client.end().catch(() => {}),
      new Promise<void>((resolve) => {
        force = setTimeout(() => {
          // A connection whose peer went silent may never answer its end.
          client.connection.stream.destroy();
          resolve();
        }, 1_000);
      }),
    ]).finally(() => {
      clearTimeout(force);
      ending.delete(ended);
    });
    ending.add(ended);
  }

  /** The listening connection failed, ended, or went silent: made again. */
  function lost(client: pg.Client, error?: unknown): void {
    if (client !== current) return;
    if (error !== undefined) report(error);
    current = undefined;
    stopAwaitingBeat();
    retire(client);
    scheduleReconnect();
  }

  async function connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: listenUrl,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      application_name: "cellar-change-feed",
    });
    // Without a listener, an error of the connection would stop the process.
    client.on("error", (error) => lost(client, error));
    client.on("end", () => lost(client, new Error("the change feed's listening connection ended")));
    client.on("notification", onNotification);
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
    } catch (error) {
      retire(client);
      throw error;
    }
    return client;
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer !== undefined || connecting !== undefined) return;
    const delay = retryDelay / 2 + (Math.random() * retryDelay) / 2;
    retryDelay = Math.min(retryDelay * 2, reconnectMaxMs);
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connecting = connect().then(
        (client) => {
          connecting = undefined;
          if (closed) {
            retire(client);
            return;
          }
          current = client;
          retryDelay = reconnectMinMs;
          // Whatever was sent while no connection listened is lost: every reader reads its log.
          tell({ fileId: null });
        },
        (error: unknown) => {
          connecting = undefined;
          report(error);
          scheduleReconnect();
        },
      );
    }, delay);
    retryTimer.unref();
  }

  async function beat(): Promise<void> {
    const client = current;
    if (client === undefined || awaitedBeat !== undefined) return;
    beats += 1;
    const token = `${beatPrefix}:${beats}`;
    awaitedBeat = token;
    try {
      await send(JSON.stringify({ beat: token }));
    } catch (error) {
      // Not sent (the pool busy or cut off): whether the connection still listens is asked of it instead.
      report(error);
      if (awaitedBeat !== token) return;
      stopAwaitingBeat();
      probe(client);
      return;
    }
    // Sent, so committed: counted from here, a pool slow to hand out a connection fails nothing.
    if (awaitedBeat !== token) return;
    beatDeadline = setTimeout(() => {
      beatDeadline = undefined;
      if (awaitedBeat !== token) return;
      lost(client, new Error(`the change feed's heartbeat did not come back within ${heartbeatTimeoutMs} ms`));
    }, heartbeatTimeoutMs);
    beatDeadline.unref();
  }

  function probe(client: pg.Client): void {
    const timer = setTimeout(
      () =>
        lost(
          client,
          new Error(`the change feed's listening connection did not answer within ${heartbeatTimeoutMs} ms`),
        ),
      heartbeatTimeoutMs,
    );
    timer.unref();
    client.query("SELECT 1").then(
      () => clearTimeout(timer),
      (error: unknown) => {
        clearTimeout(timer);
        lost(client, error);
      },
    );
  }

  /**
   * A notice that could not be sent (the change it tells of has committed): the other
   * instances are told that any file may have changed instead, once a notice goes through,
   * tried every second until one does.
   */
  let resending: NodeJS.Timeout | undefined;
  function resendLost(): void {
    if (closed || resending !== undefined) return;
    resending = setTimeout(() => {
      resending = undefined;
      if (closed) return;
      send(JSON.stringify({ fileId: null })).catch((error: unknown) => {
        report(error);
        resendLost();
      });
    }, 1000);
    resending.unref();
  }

  current = await connect();
  const heartbeat = setInterval(() => void beat(), heartbeatMs);
  heartbeat.unref();

  return {
    announcesWrites: options.announcesWrites === true,
    announce(notice) {
      if (closed) return;
      const { fileId } = notice;
      tell(notice.presence === true ? { fileId, presence: true } : { fileId });
      let payload = JSON.stringify(notice.presence === true ? { fileId, presence: true } : { fileId });
      if (Buffer.byteLength(payload) >= MAX_PAYLOAD_BYTES) {
        report(new RangeError(`a file id of ${String(fileId?.length)} characters is too long for a notice`));
        // Still a notice: every reader reads its log again.
        payload = JSON.stringify({ fileId: null });
      }
      send(payload).catch((error: unknown) => {
        report(error);
        resendLost();
      });
    },
    subscribe(listener) {
      // Wrapped, so that one listener subscribed twice is two subscriptions.
      const subscription = (notice: ChangeNotice) => listener(notice);
      listeners.add(subscription);
      return () => {
        listeners.delete(subscription);
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      clearTimeout(resending);
      clearTimeout(retryTimer);
      retryTimer = undefined;
      stopAwaitingBeat();
      listeners.clear();
      // An attempt under way ends its connection itself once it sees `closed`.
      await connecting;
      const client = current;
      current = undefined;
      if (client !== undefined) retire(client);
      await Promise.all(ending);
    },
  };
}
