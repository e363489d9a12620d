import { type Cellar, MAX_COMMENTS_PER_FILE } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { answerFileListPage } from "../files/pagination-links.js";
import { JSON_BODY_LIMIT_BYTES } from "../http/json-body-parser.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { toCommentJson, toWrittenCommentJson } from "./comment.json.js";
import {
  type CommentParams,
  type CreateCommentBody,
  commentPageHeaders,
  commentParamsSchema,
  commentRef,
  createCommentBodySchema,
  type ListCommentsQuery,
  listCommentsQuerySchema,
  type UpdateCommentBody,
  updateCommentBodySchema,
  writtenCommentSchema,
} from "./comment.schemas.js";

const TAGS = ["Comments"];

const JSON_BODY_ERRORS = {
  413: "payload_too_large: the JSON body is over 1 MiB.",
  415: "unsupported_media_type: the body is not application/json.",
} as const;

const MENTION_LIMIT =
  "rate_limited: the mails telling people they are mentioned would take you past `INVITE_RATE_MAX` such mails an hour, invitations included (nothing was written), or too many requests; wait for Retry-After seconds.";

/** Comments on a file and its cells: `/files/:id/comments` and `/files/:id/comments/:cid`. */
export function registerCommentRoutes(
  app: FastifyInstance,
  { cellar, publicBase }: { readonly cellar: Cellar; readonly publicBase: string },
): void {
  app.post<{ Params: FileIdParams; Body: CreateCommentBody }>(
    "/files/:id/comments",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "createComment",
        summary: "Comment on a file or on some of its cells",
        description: `Commenters, editors and the owner. Starts a thread, about the whole file or about the cells \`range\` names, or replies in one (\`parent_id\`). Each \`@address\` in the text of someone with access to the file (its owner, or a person given a role, signed up or not) tells them by mail, plain text and without a token; that counts against your \`INVITE_RATE_MAX\` mails an hour, shared with invitations. At most ${MAX_COMMENTS_PER_FILE.toLocaleString("en")} comments per file.`,
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        body: createCommentBodySchema,
        response: {
          201: { description: "The comment, and who it mentions.", ...writtenCommentSchema },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            400: "validation_error: a bad `text` or `range`, a `parent_id` that is not a comment of this file starting a thread, `range` with `parent_id`, or another field.",
            403: "forbidden: a file you may see, but may not comment on (a viewer).",
            409: `limit_reached: the file already holds ${MAX_COMMENTS_PER_FILE.toLocaleString("en")} comments. file_in_trash: your file is in the trash; restore it first.`,
            429: MENTION_LIMIT,
          }),
        },
      },
    },
    async (request, reply) => {
      const { text, range, parent_id: parentId } = request.body;
      const written = await cellar.comments.create({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        text,
        ...(range === undefined ? {} : { range }),
        ...(parentId === undefined ? {} : { parentId }),
      });
      reply.code(201);
      return toWrittenCommentJson(written);
    },
  );

  app.get<{ Params: FileIdParams; Querystring: ListCommentsQuery }>(
    "/files/:id/comments",
    {
      schema: {
        operationId: "listComments",
        summary: "List the comments on a file",
        description:
          "Every comment, replies included, oldest first (`created_at`, then `id`); a reply names its thread in `parent_id`. For anyone who may see the file: its owner (the trash included), the people on it, and, for a public file, anyone signed in. Paginated like `GET /files`, with the same headers.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        querystring: listCommentsQuerySchema,
        response: {
          200: {
            description: "One page of comments, oldest first; an empty array past the last page.",
            headers: commentPageHeaders,
            type: "array",
            items: commentRef,
          },
          ...errorResponses([400, 404, ...AUTHENTICATED], { 400: "validation_error: a bad `page` or `per_page`." }),
        },
      },
    },
    async (request, reply) =>
      answerFileListPage(
        request,
        reply,
        { publicBase, prefix: app.prefix, list: "comments" },
        (query) => cellar.comments.list(query),
        toCommentJson,
      ),
  );

  app.patch<{ Params: CommentParams; Body: UpdateCommentBody }>(
    "/files/:id/comments/:cid",
    {
      bodyLimit: JSON_BODY_LIMIT_BYTES,
      config: { cellarBody: "json" },
      schema: {
        operationId: "updateComment",
        summary: "Edit a comment, or resolve or reopen its thread",
        description:
          "`text`: its author only (while they may comment); an address the new text mentions that the old did not is told, as when commenting. `resolved`: on a thread's first comment, by its author, an editor or the owner. What is already so changes nothing.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: commentParamsSchema,
        body: updateCommentBodySchema,
        response: {
          200: { description: "The comment as it now is, and who it newly mentions.", ...writtenCommentSchema },
          ...errorResponses([400, 403, 404, 409, 413, 415, ...AUTHENTICATED], {
            ...JSON_BODY_ERRORS,
            400: "validation_error: a bad `text` or `resolved`, `resolved` on a reply, neither field, or another field.",
            403: "forbidden: someone else's comment's text; another's thread for a commenter; or you may no longer comment.",
            404: "not_found: no such file or comment, or a file you may not see.",
            409: "file_in_trash: your file is in the trash; restore it first.",
            429: MENTION_LIMIT,
          }),
        },
      },
    },
    async (request) => {
      const { text, resolved } = request.body;
      return toWrittenCommentJson(
        await cellar.comments.update({
          callerId: callerOf(request).userId,
          fileId: request.params.id,
          commentId: request.params.cid,
          ...(text === undefined ? {} : { text }),
          ...(resolved === undefined ? {} : { resolved }),
        }),
      );
    },
  );

  app.delete<{ Params: CommentParams }>(
    "/files/:id/comments/:cid",
    {
      schema: {
        operationId: "deleteComment",
        summary: "Delete a comment",
        description:
          "Its author (while they may comment) or the file's owner. A thread's first comment goes with every reply in it.",
        tags: TAGS,
        security: BEARER_SECURITY,
        params: commentParamsSchema,
        response: {
          204: { description: "The comment is gone.", type: "null" },
          ...errorResponses([400, 403, 404, 409, ...AUTHENTICATED], {
            403: "forbidden: someone else's comment on a file you may see but do not own, or you may no longer comment.",
            404: "not_found: no such file or comment, or a file you may not see.",
            409: "file_in_trash: your file is in the trash; restore it first.",
          }),
        },
      },
    },
    async (request, reply) => {
      await cellar.comments.remove({
        callerId: callerOf(request).userId,
        fileId: request.params.id,
        commentId: request.params.cid,
      });
      reply.code(204);
    },
  );
}
