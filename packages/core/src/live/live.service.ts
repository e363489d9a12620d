import type { JsonValue } from "../activity/activity.entity.js";
import type {
  ActivityRepository,
  CommittedActivity,
  NumberedActivity,
  PlacedActivity,
} from "../activity/activity-repository.port.js";
import type { Credential, CredentialStates } from "../auth/credential.js";
import type { Comment, CommentAction } from "../comments/comment.entity.js";
import type { CommentRepository } from "../comments/comment-repository.port.js";
import { type FileMetadata, toMetadata } from "../files/file.entity.js";
import { type AuthorizedFile, authorizeFileAction, callerRole } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { Role } from "../people/role.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, isCellarError } from "../shared/errors.js";
import type { RandomSource } from "../shared/random.port.js";
import type { UserSummary } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import { createActivityTail } from "./activity-tail.js";
import type { ChangeFeed } from "./change-feed.port.js";
import { createSharedFileLogs, LOG_PAGE } from "./shared-file-logs.js";
import type { StreamLeaseRepository, Viewer } from "./stream-lease-repository.port.js";
import { createStreamLeases } from "./stream-leases.js";
import { createStreamWakes, credentialHolds } from "./stream-wakes.js";

/**
 * What a reader of a file's events is told, in order. Each event of the file's log has
 * the `id` of the entry it tells of, which a reader that reconnects names to resume after
 * it; `reset` and the first `file` carry the log's head.
 */
export type FileEvent =
  /** The file's metadata as it is now: first, and after each rename, visibility change, trash or restore. */
  | { readonly kind: "file"; readonly id: string; readonly file: FileMetadata }
  /** A new version of the content: who made it, and what it is now. */
  | {
      readonly kind: "content";
      readonly id: string;
      readonly version: number;
      readonly sha256: string | null;
      readonly author: UserSummary | null;
      /** The ranges written, for a cell edit or an append; absent for content replaced whole. */
      readonly ranges?: readonly string[];
      /** For a cell edit or an append of a workbook: how many formula cells it computed again (decisions §8). */
      readonly recomputed?: number;
      /** For a change of structure: its operations, in order, as `POST /files/:id/structure` took them (decisions §9). */
      readonly structure?: readonly JsonValue[];
    }
  /** A person given a role, their role changed, or taken off the file. */
  | {
      readonly kind: "permissions";
      readonly id: string;
      readonly action: "shared" | "role_changed" | "unshared";
      readonly email: string;
      readonly role: Role | null;
    }
  /**
   * Who has the file open now (an event stream on it, on any instance), each once, by who
   * came first: after the first event, then whenever it changes. Its id is the last
   * event's before it (resuming from it misses nothing).
   */
  | { readonly kind: "presence"; readonly id: string; readonly viewers: readonly Viewer[] }
  /**
   * A comment made, edited, its thread resolved or reopened, or deleted: the comment as it
   * is when the event is told, or null once it is gone (deleted, then or since; a thread's
   * replies go with its first comment).
   */
  | {
      readonly kind: "comment";
      readonly id: string;
      readonly action: CommentAction;
      readonly commentId: string;
      readonly parentId: string | null;
      readonly comment: Comment | null;
    }
  /** The events asked to resume after are no longer all in the log: read the file afresh. */
  | { readonly kind: "reset"; readonly id: string; readonly file: FileMetadata }
  /** The reader may no longer see the file: the last event of its stream, with the id of the last before it (every event has one). */
  | { readonly kind: "revoked"; readonly id: string };

/** An open stream of a file's events. */
export interface FileEventStream {
  readonly events: AsyncIterable<FileEvent>;
  /** Ends the stream (the reader went away); `events` then ends without waiting. */
  close(): void;
}

/**
 * What an account's own stream tells, in order (`GET /events`): what changes in the
 * lists of its files. Each event tells a file as it is when sent (events are states, so
 * one told twice does no harm); its id is the place of the change among all changes, which
 * a reader that reconnects names to resume after it.
 */
export type AccountEvent =
  /** The stream is open: changes from here on follow. */
  | { readonly kind: "ready"; readonly id: string }
  /** A file of the account's, or shared with it, changed: as it is now, with the account's role. */
  | { readonly kind: "file"; readonly id: string; readonly file: FileMetadata }
  /** The account was given a role on a file, or its role changed: the file, with that role. */
  | { readonly kind: "shared"; readonly id: string; readonly file: FileMetadata }
  /** A file shared with the account is no longer there for it: taken off it, or the file trashed. */
  | { readonly kind: "unshared"; readonly id: string; readonly fileId: string }
  /** What was missed since the id the reader resumed after cannot all be told: read the lists afresh. */
  | { readonly kind: "reset"; readonly id: string }
  /** The session ended (signed out, expired): the last event. */
  | { readonly kind: "revoked"; readonly id: string };

/** An open stream of an account's own events. */
export interface AccountEventStream {
  readonly events: AsyncIterable<AccountEvent>;
  close(): void;
}

/** The changes an account's stream replays after `Last-Event-ID` at most (of all files'): beyond, `reset`. */
const REPLAY_LIMIT = 1000;

/** How soon a stream whose log could not be read tries again. */
const RETRY_MS = 1000;

export type LiveService = ReturnType<typeof createLiveService>;

/**
 * Everyone who has a file open sees each change of it as it happens. A stream reads the
 * file's event log (its activity, numbered: `ActivityRepository.listSince`) from where
 * its reader is, and reads on whenever the change feed says that the log has grown, on
 * whichever instance the change was made. Nothing is held only in memory: a reader that
 * reconnects anywhere, naming the last event it had, is told what it missed, or `reset`
 * when the log no longer holds all of it. Before each batch of events, the stream checks
 * that its reader may still see the file; when not, it ends with `revoked`.
 */
export function createLiveService(deps: {
  files: FileRepository;
  activity: ActivityRepository;
  /** Where a `comment` event reads the comment it tells of. */
  comments: CommentRepository;
  /** Whether the session or access token a stream was opened with still holds. */
  credentials: CredentialStates;
  users: UserRepository;
  leases: StreamLeaseRepository;
  feed: ChangeFeed;
  clock: Clock;
  random: RandomSource;
  /** Whether an error means the store cannot serve for now: the stream waits and reads again; any other ends it. */
  isUnavailable: (error: unknown) => boolean;
}) {
  const { files, activity, comments, credentials, users, feed, clock, isUnavailable } = deps;
  const logs = createSharedFileLogs({ activity, leases: deps.leases, feed, clock });
  const leases = createStreamLeases({ leases: deps.leases, feed, clock, random: deps.random });
  leases.onRound(() => logs.round());
  const tail = createActivityTail({ activity, feed });

  /**
   * The events a batch of changes makes for one account: one for each file it touches
   * whose place in the account's lists it may change, at that file's last entry of the
   * batch, telling the file as it is now.
   */
  async function accountEventsOf(
    entries: readonly PlacedActivity[],
    account: { id: string; email: string },
  ): Promise<AccountEvent[]> {
    const lastOfFile = new Map<string, PlacedActivity>();
    for (const entry of entries) {
      // A comment changes nothing a list of files shows.
      if (entry.action === "commented") continue;
      lastOfFile.delete(entry.fileId);
      lastOfFile.set(entry.fileId, entry);
    }
    const told: AccountEvent[] = [];
    for (const [fileId, entry] of lastOfFile) {
      const namesAccount = entries.some(
        (e) =>
          e.fileId === fileId &&
          (e.action === "shared" || e.action === "role_changed" || e.action === "unshared") &&
          e.details.email === account.email,
      );
      const found = await files.findWithRole({ id: fileId, userId: account.id });
      const role = found === null ? null : callerRole(found.file, account.id, found.role);
      const sees = found !== null && role !== null && (role === "owner" || found.file.state === "active");
      const id = entry.position;
      if (sees) {
        told.push({
          kind: namesAccount && role !== "owner" ? "shared" : "file",
          id,
          file: toMetadata(found.file, role),
        });
      } else if (namesAccount || (entry.action === "trashed" && found !== null && found.role !== null)) {
        // Taken off the file, or the file trashed by its owner: gone from the account's lists.
        told.push({ kind: "unshared", id, fileId });
      }
    }
    return told;
  }

  async function authorized(callerId: string, fileId: string): Promise<AuthorizedFile> {
    return authorizeFileAction("watch", await files.findWithRole({ id: fileId, userId: callerId }), callerId);
  }

  /** The reader's access now, or null when it is gone. */
  async function stillAuthorized(callerId: string, fileId: string): Promise<AuthorizedFile | null> {
    try {
      return await authorized(callerId, fileId);
    } catch (error) {
      if (isCellarError(error)) return null;
      throw error;
    }
  }

  const commentEvent = (entry: Extract<NumberedActivity, { action: "commented" }>) => commentEventOf(comments, entry);

  /**
   * The events of an entry that every reader is told alike (all but `file`, which carries
   * the reader's role), made once per entry read: the streams of a file share the entries
   * of their shared log, so a change told to a thousand readers is one event (and one
   * comment read), which the HTTP adapter frames once. A comment is told as it is when
   * told: its event is made again once the log was read again (a later notice, maybe of a
   * change of that comment).
   */
  const sharedEvents = new WeakMap<NumberedActivity, FileEvent | null>();
  const commentEvents = new WeakMap<NumberedActivity, { reads: number; event: Promise<FileEvent> }>();

  function eventFor(
    entry: NumberedActivity,
    access: AuthorizedFile,
    reads: number,
  ): Promise<FileEvent | null> | FileEvent | null {
    // A reader holding no role (it sees a public file) is not told who the file is shared
    // with (decisions §7: its people are only for them), only the file as it is now for it:
    // its own role may be what changed.
    if (access.role === null && PEOPLE_ACTIONS.has(entry.action)) {
      return { kind: "file", id: String(entry.seq), file: toMetadata(access.file, access.role) };
    }
    if (!SHARED_EVENT_ACTIONS.has(entry.action)) return eventOf(entry, access);
    if (entry.action === "commented") {
      const known = commentEvents.get(entry);
      if (known !== undefined && known.reads === reads) return known.event;
      const event = commentEvent(entry);
      commentEvents.set(entry, { reads, event });
      // A failed comment read is made again by the next reader.
      event.catch(() => {
        if (commentEvents.get(entry)?.event === event) commentEvents.delete(entry);
      });
      return event;
    }
    if (sharedEvents.has(entry)) return sharedEvents.get(entry) as FileEvent | null;
    const event = eventOf(entry, access);
    sharedEvents.set(entry, event);
    return event;
  }

  return {
    /**
     * Opens a stream of the file's events for a caller who may see it (else the error
     * `GET /files/:id` would give). Without `lastEventId`, it starts with the file as it
     * is (`file`, with the log's head as its id); with one, it tells each event after
     * that one, or `reset` when they are not all in the log any more (or the id is not
     * one of this file's).
     */
    async openFileStream(input: {
      callerId: string;
      fileId: string;
      lastEventId?: string;
      /** What the caller signed in with: the stream ends (`revoked`) once it is revoked, deleted or expires. */
      credential?: Credential;
    }): Promise<FileEventStream> {
      const { callerId, fileId, credential } = input;
      await authorized(callerId, fileId);
      const leaseId = await leases.take({ userId: callerId, fileId });
      // Joined before the log is first read, so no change falls between the two.
      const log = logs.open(fileId);
      const wakes = createStreamWakes(clock);
      /** Whether the reader's access must be checked before the next events: a notice of any file, or the session's end. */
      let recheck = true;
      /** Whether who is present may have changed since the reader was last told. */
      let presenceDue = true;
      let closed = false;
      const stopListening = log.onNotice((notice) => {
        if (notice.anyFile) recheck = true;
        if (notice.presence) presenceDue = true;
        wakes.wake();
      });
      const close = () => {
        if (closed) return;
        closed = true;
        wakes.stop();
        stopListening();
        log.release();
        leases.drop(leaseId, fileId);
      };
      try {
        await wakes.watchCredential(credentials, credential);
      } catch (error) {
        close();
        throw error;
      }
      const resumeAfter = parseEventId(input.lastEventId);

      /** The reader's access now, also to its session, or null when either is gone. */
      async function access(): Promise<AuthorizedFile | null> {
        if (!(await credentialHolds(credentials, credential))) return null;
        return stillAuthorized(callerId, fileId);
      }

      async function* events(): AsyncGenerator<FileEvent> {
        try {
          // Where the reader starts: the head is read before the file, so that the file it
          // is told of is at least as new as the id it gets (never older: a change between
          // the two would be counted in the id, and never told).
          let cursor = -1;
          /** The reader's access as last checked: it holds until an entry or notice may have changed it. */
          let known: AuthorizedFile | null = null;
          /** Who the reader was last told has the file open. */
          let present = "";
          /** The presence event to tell, when who has the file open changed since it was last told. */
          async function* presence(): AsyncGenerator<FileEvent> {
            presenceDue = false;
            const { viewers, key } = await log.viewers();
            if (key === present) return;
            present = key;
            yield { kind: "presence", id: String(cursor), viewers };
          }
          while (cursor < 0 && !closed) {
            try {
              const { head } = await log.readAfter(Number.MAX_SAFE_INTEGER, { fresh: true });
              known = await access();
              recheck = false;
              if (known === null) {
                yield { kind: "revoked", id: String(head) };
                return;
              }
              if (resumeAfter === undefined || resumeAfter === null || resumeAfter > head) {
                cursor = head;
                const file = toMetadata(known.file, known.role);
                yield resumeAfter === undefined
                  ? { kind: "file", id: String(head), file }
                  : { kind: "reset", id: String(head), file };
              } else cursor = resumeAfter;
              yield* presence();
            } catch (error) {
              if (!isUnavailable(error)) throw error;
              await wakes.next(RETRY_MS);
            }
          }
          while (!closed) {
            if (!wakes.pending) {
              await wakes.next();
              continue;
            }
            wakes.pending = false;
            try {
              let page = log.peekAfter(cursor) ?? (await log.readAfter(cursor));
              for (;;) {
                // The reader's access is read again only when it may have changed: after
                // a notice of any file (a session revoked), the session's end, or an entry
                // that changes the file or its people; a purged file's log is gone (its
                // head is 0). A content change or a comment leaves it as it was.
                if (wakes.sessionEnded) recheck = true;
                wakes.sessionEnded = false;
                if (recheck || page.head < cursor || page.entries.some(changesAccess) || known === null) {
                  recheck = false;
                  known = await access();
                }
                if (known === null) {
                  yield { kind: "revoked", id: String(cursor) };
                  return;
                }
                // A number missing after the cursor (entries pruned, the newest of them
                // too): what was missed cannot be told.
                const gap =
                  page.entries.length === 0
                    ? page.head > cursor
                    : page.entries.some((entry, k) => entry.seq !== cursor + 1 + k);
                if (gap) {
                  cursor = page.head;
                  yield { kind: "reset", id: String(cursor), file: toMetadata(known.file, known.role) };
                  break;
                }
                for (const entry of page.entries) {
                  // Read before the cursor moves on, so that a failed read is read again.
                  const made = eventFor(entry, known, log.reads);
                  const event = made instanceof Promise ? await made : made;
                  cursor = entry.seq;
                  if (event !== null) yield event;
                  if (closed) return;
                }
                if (page.entries.length < LOG_PAGE) break;
                page = log.peekAfter(cursor) ?? (await log.readAfter(cursor));
              }
              // Only when it may have changed: a change of the file is no reason to look.
              if (presenceDue) yield* presence();
            } catch (error) {
              if (!isUnavailable(error)) throw error;
              // The store is unreachable for now: the stream stays open (its heartbeats go
              // on) and reads on from where it was shortly, or when the feed, working
              // again, says the log may have grown.
              await wakes.next(RETRY_MS);
              wakes.pending = true;
              recheck = true;
              presenceDue = true;
            }
          }
        } finally {
          close();
        }
      }

      return { events: events(), close };
    },

    /**
     * Opens the caller's own stream: a `ready` event (without `lastEventId`), then each
     * change to the lists of their files: `file`, `shared`, `unshared`. With `lastEventId`,
     * what changed after it, or `reset` when it cannot all be told.
     */
    async openAccountStream(input: {
      callerId: string;
      lastEventId?: string;
      credential?: Credential;
    }): Promise<AccountEventStream> {
      const { callerId, credential } = input;
      const user = await users.findById(callerId);
      if (user === null) throw new CellarError(ErrorCode.unauthorized, "The account no longer exists.");
      const account = { id: user.id, email: user.email };
      const leaseId = await leases.take({ userId: callerId, fileId: null });
      const wakes = createStreamWakes(clock);
      let closed = false;
      const stopListening = tail.listen(() => wakes.wake());
      const close = () => {
        if (closed) return;
        closed = true;
        wakes.stop();
        stopListening();
        leases.drop(leaseId, null);
      };
      try {
        await wakes.watchCredential(credentials, credential);
      } catch (error) {
        close();
        throw error;
      }

      async function* events(): AsyncGenerator<AccountEvent> {
        try {
          let cursor: string | null = null;
          while (cursor === null && !closed) {
            try {
              const now = await tail.now();
              if (!(await credentialHolds(credentials, credential))) {
                yield { kind: "revoked", id: now };
                return;
              }
              if (input.lastEventId === undefined) {
                cursor = now;
                yield { kind: "ready", id: now };
                break;
              }
              const missed = await tail.readAfter(input.lastEventId, REPLAY_LIMIT);
              if (!missed.complete) {
                cursor = now;
                yield { kind: "reset", id: now };
                break;
              }
              cursor = missed.position;
              for (const event of await accountEventsOf(missed.entries, account)) yield event;
            } catch (error) {
              if (!isUnavailable(error)) throw error;
              await wakes.next(RETRY_MS);
            }
          }
          while (!closed && cursor !== null) {
            if (!wakes.pending) {
              await wakes.next();
              continue;
            }
            wakes.pending = false;
            try {
              // Every wake checks the session: a sign-out is told as a notice of any file.
              if (!(await credentialHolds(credentials, credential))) {
                yield { kind: "revoked", id: cursor };
                return;
              }
              const read: CommittedActivity = await tail.readAfter(cursor, REPLAY_LIMIT);
              if (!read.complete) {
                cursor = read.position;
                yield { kind: "reset", id: cursor };
                continue;
              }
              const told = await accountEventsOf(read.entries, account);
              cursor = read.position;
              for (const event of told) {
                yield event;
                if (closed) return;
              }
            } catch (error) {
              if (!isUnavailable(error)) throw error;
              await wakes.next(RETRY_MS);
              wakes.pending = true;
            }
          }
        } finally {
          close();
        }
      }

      return { events: events(), close };
    },
  };
}

/** The entry number a reader names as `Last-Event-ID`; null when it is not one. */
function parseEventId(id: string | undefined): number | null | undefined {
  if (id === undefined) return undefined;
  return /^(0|[1-9]\d{0,15})$/.test(id) ? Number(id) : null;
}

/** Whether an entry may change who may see the file, with which role, or what the file object says. */
function changesAccess(entry: NumberedActivity): boolean {
  return !CONTENT_ACTIONS.has(entry.action) && entry.action !== "commented";
}

/** The actions whose events are the same for every reader. */
const SHARED_EVENT_ACTIONS: ReadonlySet<string> = new Set([
  "content_replaced",
  "cells_edited",
  "rows_appended",
  "structure_changed",
  "version_restored",
  "shared",
  "role_changed",
  "unshared",
  "commented",
]);

/** The actions that change the file's people: their events name a person. */
const PEOPLE_ACTIONS: ReadonlySet<string> = new Set(["shared", "role_changed", "unshared"]);

const CONTENT_ACTIONS: ReadonlySet<string> = new Set([
  "content_replaced",
  "cells_edited",
  "rows_appended",
  "structure_changed",
  "version_restored",
]);

/** What an entry of the log tells a reader, or null for one that tells nothing new. */
/**
 * What one entry of a file's log tells someone who holds a role on the file (or owns
 * it): the event its file stream would tell them, a comment read as it is now. For
 * webhooks, which are told of one entry at a time.
 */
export function fileEventOf(
  comments: CommentRepository,
  entry: NumberedActivity,
  access: AuthorizedFile,
): Promise<FileEvent | null> | FileEvent | null {
  return entry.action === "commented" ? commentEventOf(comments, entry) : eventOf(entry, access);
}

/** What a `commented` entry tells: the comment as it is now, or null once it is gone. */
async function commentEventOf(
  comments: CommentRepository,
  entry: Extract<NumberedActivity, { action: "commented" }>,
): Promise<FileEvent> {
  const { comment_id: commentId, action, parent_id: parentId } = entry.details;
  const comment = action === "deleted" ? null : await comments.findById({ fileId: entry.fileId, id: commentId });
  return { kind: "comment", id: String(entry.seq), action, commentId, parentId, comment };
}

function eventOf(entry: NumberedActivity, access: AuthorizedFile): FileEvent | null {
  const id = String(entry.seq);
  switch (entry.action) {
    case "uploaded":
    case "renamed":
    case "visibility_changed":
    case "trashed":
    case "restored":
      return { kind: "file", id, file: toMetadata(access.file, access.role) };
    case "shared":
    case "role_changed":
      return { kind: "permissions", id, action: entry.action, email: entry.details.email, role: entry.details.role };
    case "unshared":
      return { kind: "permissions", id, action: "unshared", email: entry.details.email, role: null };
    case "content_replaced":
    case "cells_edited":
    case "rows_appended":
    case "structure_changed":
    case "version_restored": {
      const details = entry.details;
      const ranges = Array.isArray(details.ranges)
        ? details.ranges.filter((range): range is string => typeof range === "string")
        : typeof details.range === "string"
          ? [details.range]
          : undefined;
      return {
        kind: "content",
        id,
        version: typeof details.version === "number" ? details.version : 0,
        sha256: typeof details.sha256 === "string" ? details.sha256 : null,
        author: entry.actor,
        ...(ranges === undefined ? {} : { ranges }),
        ...(typeof details.recomputed === "number" ? { recomputed: details.recomputed } : {}),
        ...(Array.isArray(details.operations) ? { structure: details.operations } : {}),
      };
    }
    case "commented":
      // Told by `commentEvent`, which reads the comment.
      return null;
  }
}
