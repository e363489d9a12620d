import type { Comment, CommentRecord } from "../comments/comment.entity.js";
import type { CommentRepository } from "../comments/comment-repository.port.js";
import { compareCodePoints } from "../files/file-name-key.js";
import { type MemoryTables, userSummary, writeActivity } from "./memory-tables.js";

/**
 * The comment repository in memory, on the tables of its store's other repositories
 * (`createMemoryTables`), so that a purged file's comments go with it. Each method runs
 * from its first read to its last write without yielding, so each is atomic as the port asks.
 */
export function createMemoryCommentRepository(tables: MemoryTables): CommentRepository {
  const { comments } = tables;
  const onFile = (fileId: string, id: string) => {
    const comment = comments.get(id);
    return comment !== undefined && comment.fileId === fileId ? comment : undefined;
  };
  /** A thread's first comment on that file, or undefined. */
  const thread = (fileId: string, id: string | null) => {
    const parent = id === null ? undefined : onFile(fileId, id);
    return parent?.parentId === null ? parent : undefined;
  };
  /** The comment as callers see it: its author now, and a reply with its thread's range and state. */
  const shown = (comment: CommentRecord): Comment => {
    const parent = comment.parentId === null ? undefined : comments.get(comment.parentId);
    return {
      ...structuredClone(comment),
      range: parent?.range ?? comment.range,
      resolved: parent?.resolved ?? comment.resolved,
      author: userSummary(tables, comment.authorId),
    };
  };

  return {
    async insert({ comment, limit, activity }) {
      if (!tables.files.has(comment.fileId)) throw new Error(`There is no file ${comment.fileId}.`);
      if (comment.parentId !== null && thread(comment.fileId, comment.parentId) === undefined) {
        return { outcome: "no_parent" };
      }
      let held = 0;
      for (const other of comments.values()) if (other.fileId === comment.fileId) held++;
      if (held >= limit) return { outcome: "limit_reached" };
      if (comments.has(comment.id)) throw new Error(`A comment ${comment.id} exists.`);
      writeActivity(tables, [activity]);
      comments.set(comment.id, structuredClone(comment));
      return { outcome: "created", comment: shown(comment) };
    },
    async findById({ fileId, id }) {
      const comment = onFile(fileId, id);
      return comment === undefined ? null : shown(comment);
    },
    async listByFile({ fileId, offset, limit }) {
      const all = [...comments.values()]
        .filter((comment) => comment.fileId === fileId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareCodePoints(a.id, b.id));
      return { items: all.slice(offset, offset + Math.max(0, limit)).map(shown), total: all.length };
    },
    async update({ fileId, id, text, resolved, updatedAt, activity }) {
      const existing = onFile(fileId, id);
      if (existing === undefined) return null;
      writeActivity(tables, activity);
      const updated: CommentRecord = {
        ...existing,
        ...(text === undefined ? {} : { text }),
        ...(resolved === undefined ? {} : { resolved }),
        updatedAt: new Date(updatedAt),
      };
      comments.set(id, updated);
      return shown(updated);
    },
    async remove({ fileId, id, activity }) {
      const existing = onFile(fileId, id);
      if (existing === undefined) return null;
      writeActivity(tables, [activity]);
      comments.delete(id);
      for (const [key, reply] of comments) if (reply.parentId === id) comments.delete(key);
      return structuredClone(existing);
    },
    async insertCopy(comment) {
      if (!tables.files.has(comment.fileId)) throw new Error(`There is no file ${comment.fileId}.`);
      if (comment.parentId !== null && !comments.has(comment.parentId)) {
        throw new Error(`There is no comment ${comment.parentId} to reply to.`);
      }
      if (comments.has(comment.id)) return false;
      comments.set(comment.id, structuredClone(comment));
      return true;
    },
  };
}
