import type { Comment, Mention, WrittenComment } from "@cellar/core";
import { toPersonJson, type UserSummaryJson } from "../users/user.json.js";

/** A comment, as the API shows it; see `commentSchema`. */
export interface CommentJson {
  readonly id: string;
  /** Who wrote it; null once their account is gone. */
  readonly author: UserSummaryJson | null;
  readonly text: string;
  readonly range: string | null;
  readonly parent_id: string | null;
  readonly resolved: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What writing a comment answers: the comment, and each address it newly mentions, told or not. */
export interface WrittenCommentJson extends CommentJson {
  readonly mentions: readonly Mention[];
}

/** The one mapping from core's comment to the API's JSON. */
export function toCommentJson(comment: Comment): CommentJson {
  return {
    id: comment.id,
    author: toPersonJson(comment.author),
    text: comment.text,
    range: comment.range,
    parent_id: comment.parentId,
    resolved: comment.resolved,
    created_at: comment.createdAt.toISOString(),
    updated_at: comment.updatedAt.toISOString(),
  };
}

export function toWrittenCommentJson(written: WrittenComment): WrittenCommentJson {
  return {
    ...toCommentJson(written.comment),
    mentions: written.mentions.map(({ email, notified }) => ({ email, notified })),
  };
}
