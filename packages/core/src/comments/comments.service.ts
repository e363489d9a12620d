import { type ActivityEntry, newActivityEntry } from "../activity/activity.entity.js";
import type { Mailer } from "../auth/mailer.port.js";
import type { FileRecord } from "../files/file.entity.js";
import { type AuthorizedFile, authorizeFileAction, type FileAction } from "../files/file-access.js";
import type { FileRepository, FileWithRole } from "../files/file-repository.port.js";
import { spendMailBudget } from "../people/mail-budget.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, fieldProblems, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import type { UserRecord } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import {
  type Comment,
  type CommentAction,
  MAX_COMMENTS_PER_FILE,
  mentionExcerpt,
  mentionedAddresses,
  normaliseCommentRange,
  normaliseCommentText,
} from "./comment.entity.js";
import type { CommentRepository } from "./comment-repository.port.js";

export interface CommentServiceDeps {
  readonly files: FileRepository;
  readonly comments: CommentRepository;
  readonly permissions: PermissionRepository;
  readonly users: UserRepository;
  readonly mailer: Mailer;
  readonly rateLimits: RateLimitStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** The base of the file links in mention mails. */
  readonly publicUrl: string;
  /** Mails telling people of files one account may send per hour: invitations and mentions together. */
  readonly inviteRateMax: number;
  /** At most this many comments per file, replies included. */
  readonly maxCommentsPerFile?: number;
}

/** An address a comment mentions, and whether it was told by mail. */
export interface Mention {
  readonly email: string;
  /**
   * True once the mail went out. False for an address that has no access to the file
   * (it stays plain text), for the author's own, and when the mail could not be sent.
   */
  readonly notified: boolean;
}

/** What writing a comment did: the comment as it now is, and the addresses it newly mentions. */
export interface WrittenComment {
  readonly comment: Comment;
  readonly mentions: readonly Mention[];
}

export type CommentService = ReturnType<typeof createCommentService>;

const noSuchComment = () => new CellarError(ErrorCode.not_found, "No such comment on this file.");

/**
 * Comments on a file and on its cells, in threads one level deep: people who may comment
 * write them; anyone who may see the file reads them. A comment's author may change its
 * text; a thread is resolved or reopened by the author of its first comment, or by an
 * editor; a comment is deleted by its author or by the file's owner, a thread's first
 * comment with every reply. Every change is recorded in the file's activity in the same
 * step, and so told to everyone following the file's events. `@address` in a comment
 * tells that person by mail, when they have access to the file.
 */
export function createCommentService(deps: CommentServiceDeps) {
  const { files, comments, permissions, users, clock, random } = deps;
  const limit = deps.maxCommentsPerFile ?? MAX_COMMENTS_PER_FILE;
  const publicBase = deps.publicUrl.endsWith("/") ? deps.publicUrl : `${deps.publicUrl}/`;

  const find = (callerId: string, fileId: string) => files.findWithRole({ id: fileId, userId: callerId });

  /** The comment named on a file the caller may see. */
  async function loadComment(callerId: string, fileId: string, commentId: string) {
    const found = await find(callerId, fileId);
    const { file } = authorizeFileAction("read_comments", found, callerId);
    const comment = await comments.findById({ fileId: file.id, id: commentId });
    if (comment === null) throw noSuchComment();
    return { found, comment };
  }

  /**
   * Whether the caller may do something to `comment`: its author may as anyone who may
   * comment; anyone else only with the role `others` needs, or not at all (`author_only`:
   * refused as the file's other changes are first, so that its owner is told of the trash).
   */
  function authorizeOn(
    comment: Comment,
    found: FileWithRole | null,
    callerId: string,
    others: FileAction | "author_only",
  ): AuthorizedFile {
    if (comment.authorId === callerId) return authorizeFileAction("write_comment", found, callerId);
    if (others !== "author_only") return authorizeFileAction(others, found, callerId);
    authorizeFileAction("write_comment", found, callerId);
    throw new CellarError(ErrorCode.forbidden, "Only its author may change a comment's text.");
  }

  const entry = (file: FileRecord, callerId: string, at: Date, action: CommentAction, comment: Comment) =>
    newActivityEntry(random, {
      fileId: file.id,
      at,
      actorId: callerId,
      action: "commented",
      details: { comment_id: comment.id, action, parent_id: comment.parentId, range: comment.range },
    });

  async function author(callerId: string): Promise<UserRecord> {
    const user = await users.findById(callerId);
    if (user === null) throw new CellarError(ErrorCode.unauthorized, "The account no longer exists.");
    return user;
  }

  /**
   * Which of `addresses` would be told of a mention: those with access to the file (its
   * owner, or a role given to the address, waiting for an account or not), not the
   * author's own. The others stay plain text.
   */
  async function mentionable(file: FileRecord, writer: UserRecord, addresses: readonly string[]) {
    if (addresses.length === 0) return new Set<string>();
    const owner = await users.findById(file.ownerId);
    const withAccess = new Set((await permissions.listByFile({ fileId: file.id })).map((p) => p.email));
    if (owner !== null) withAccess.add(owner.email);
    return new Set(addresses.filter((email) => email !== writer.email && withAccess.has(email)));
  }

  /** Spends the author's mail budget on the mails to `recipients`, before anything is written. */
  async function spend(callerId: string, recipients: ReadonlySet<string>, now: Date) {
    await spendMailBudget({
      rateLimits: deps.rateLimits,
      accountId: callerId,
      mails: recipients.size,
      max: deps.inviteRateMax,
      now,
      refusal: `At most ${deps.inviteRateMax} mails telling people of files (invitations and mentions) may be sent an hour; nothing was written. Try again later.`,
    });
  }

  /** Tells each recipient of the mention, and says, for every address mentioned, whether it was told. */
  async function tell(
    file: FileRecord,
    writer: UserRecord,
    comment: Comment,
    addresses: readonly string[],
    recipients: ReadonlySet<string>,
  ): Promise<Mention[]> {
    const fileUrl = new URL(`files/${encodeURIComponent(file.id)}`, publicBase).toString();
    const sent = await Promise.all(
      addresses.map(async (email) => {
        if (!recipients.has(email)) return false;
        try {
          await deps.mailer.sendMention({
            to: email,
            fileId: file.id,
            fileName: file.name,
            fileUrl,
            authorName: writer.name,
            authorEmail: writer.email,
            excerpt: mentionExcerpt(comment.text),
            range: comment.range,
          });
          return true;
        } catch {
          // The comment stands: the person finds it on the file, told or not.
          return false;
        }
      }),
    );
    return addresses.map((email, i) => ({ email, notified: sent[i] === true }));
  }

  /** Reads what `create` was asked, every field at once. */
  function readNewComment(input: { text: unknown; range?: unknown; parentId?: unknown }) {
    const { problems, read, check } = fieldProblems();
    const text = read(() => normaliseCommentText(input.text));
    const range = read(() => normaliseCommentRange(input.range));
    const parentId = input.parentId ?? null;
    if (parentId !== null && typeof parentId !== "string") {
      problems.push({ field: "parent_id", message: "must be a string or null" });
    }
    if (parentId !== null && range !== undefined && range !== null) {
      problems.push({ field: "range", message: "a reply is about its thread's cells: give no range with parent_id" });
    }
    check();
    return { text: text as string, range: range ?? null, parentId: parentId as string | null };
  }

  const noParent = () => invalidField("parent_id", "must be the id of a comment of this file that starts a thread");

  return {
    /**
     * Writes a comment on the file (commenter and up): a thread of its own, about the file
     * or the cells `range` names, or a reply in the thread `parentId` starts. Each address
     * it mentions that has access to the file is told by mail, drawing on the author's
     * hourly budget of such mails (shared with invitations): past it nothing is written
     * (`rate_limited`). At most `MAX_COMMENTS_PER_FILE` per file (`limit_reached`).
     */
    async create(input: {
      callerId: string;
      fileId: string;
      text: unknown;
      range?: unknown;
      parentId?: unknown;
    }): Promise<WrittenComment> {
      const { text, range, parentId } = readNewComment(input);
      const { file } = authorizeFileAction("write_comment", await find(input.callerId, input.fileId), input.callerId);
      let threadRange = range;
      if (parentId !== null) {
        const parent = await comments.findById({ fileId: file.id, id: parentId });
        if (parent === null || parent.parentId !== null) throw noParent();
        threadRange = parent.range;
      }
      const writer = await author(input.callerId);
      const addresses = mentionedAddresses(text);
      const recipients = await mentionable(file, writer, addresses);
      const now = clock.now();
      await spend(input.callerId, recipients, now);

      const record = {
        id: newId(random, "cmt"),
        fileId: file.id,
        authorId: input.callerId,
        text,
        range,
        parentId,
        resolved: false,
        createdAt: now,
        updatedAt: now,
      };
      const result = await comments.insert({
        comment: record,
        limit,
        activity: entry(file, input.callerId, now, "created", { ...record, range: threadRange, author: null }),
      });
      if (result.outcome === "limit_reached") {
        throw new CellarError(ErrorCode.limit_reached, `A file can hold at most ${limit} comments; delete some first.`);
      }
      if (result.outcome === "no_parent") throw noParent();
      return { comment: result.comment, mentions: await tell(file, writer, result.comment, addresses, recipients) };
    },

    /** One page of the file's comments, oldest first, replies among them: for anyone who may see the file. */
    async list(input: { callerId: string; fileId: string; page?: unknown; perPage?: unknown }): Promise<Page<Comment>> {
      const request = toPageRequest(input);
      const { file } = authorizeFileAction("read_comments", await find(input.callerId, input.fileId), input.callerId);
      const { items, total } = await comments.listByFile({
        fileId: file.id,
        offset: request.offset,
        limit: request.perPage,
      });
      return toPage(request, items, total);
    },

    /**
     * Changes a comment's `text` (its author only) or its thread's `resolved` (the author
     * of the thread's first comment, or an editor; on that first comment, not a reply).
     * What is asked and already so changes nothing. An address the new text mentions that
     * the old did not is told, as by `create`.
     */
    async update(input: {
      callerId: string;
      fileId: string;
      commentId: string;
      text?: unknown;
      resolved?: unknown;
    }): Promise<WrittenComment> {
      const { problems, read, check } = fieldProblems();
      const text = input.text === undefined ? undefined : read(() => normaliseCommentText(input.text));
      if (input.resolved !== undefined && typeof input.resolved !== "boolean") {
        problems.push({ field: "resolved", message: "must be a boolean" });
      }
      if (input.text === undefined && input.resolved === undefined) {
        problems.push({ field: "text", message: "give text, resolved, or both" });
      }
      check();
      const resolved = input.resolved as boolean | undefined;

      const { found, comment } = await loadComment(input.callerId, input.fileId, input.commentId);
      let authorized: AuthorizedFile | undefined;
      if (text !== undefined) {
        authorized = authorizeOn(comment, found, input.callerId, "author_only");
      }
      if (resolved !== undefined) {
        if (comment.parentId !== null) {
          throw invalidField("resolved", "a reply is resolved with its thread: resolve the comment parent_id names");
        }
        authorized = authorizeOn(comment, found, input.callerId, "resolve_any_comment");
      }
      const { file } = authorized as AuthorizedFile;

      const edited = text !== undefined && text !== comment.text;
      const resolving = resolved !== undefined && resolved !== comment.resolved;
      if (!edited && !resolving) return { comment, mentions: [] };

      const now = clock.now();
      let addresses: string[] = [];
      let recipients = new Set<string>();
      let writer: UserRecord | undefined;
      if (edited) {
        const before = new Set(mentionedAddresses(comment.text));
        addresses = mentionedAddresses(text as string).filter((email) => !before.has(email));
        writer = await author(input.callerId);
        recipients = await mentionable(file, writer, addresses);
        await spend(input.callerId, recipients, now);
      }
      const activity: ActivityEntry[] = [];
      if (edited) activity.push(entry(file, input.callerId, now, "edited", comment));
      if (resolving) activity.push(entry(file, input.callerId, now, resolved ? "resolved" : "reopened", comment));
      const updated = await comments.update({
        fileId: file.id,
        id: comment.id,
        ...(edited ? { text } : {}),
        ...(resolving ? { resolved } : {}),
        updatedAt: now,
        activity,
      });
      if (updated === null) throw noSuchComment();
      const mentions = writer === undefined ? [] : await tell(file, writer, updated, addresses, recipients);
      return { comment: updated, mentions };
    },

    /** Deletes a comment (its author, or the file's owner); the first comment of a thread takes every reply with it. */
    async remove(input: { callerId: string; fileId: string; commentId: string }): Promise<void> {
      const { found, comment } = await loadComment(input.callerId, input.fileId, input.commentId);
      const { file } = authorizeOn(comment, found, input.callerId, "delete_any_comment");
      const removed = await comments.remove({
        fileId: file.id,
        id: comment.id,
        activity: entry(file, input.callerId, clock.now(), "deleted", comment),
      });
      if (removed === null) throw noSuchComment();
    },
  };
}
