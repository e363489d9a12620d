import { type AccountEvent, type Cellar, type FileEvent, MAX_STREAMS_PER_ACCOUNT } from "@cellar/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { toCommentJson } from "../comments/comment.json.js";
import { toFileJson } from "../files/file.json.js";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { type EventStreams, frame, HEARTBEAT_MS, type OpenStream, type SentEvent } from "./event-streams.js";

const TAGS = ["Live"];

const lastEventIdHeader = {
  type: "object",
  properties: {
    "last-event-id": { type: "string", maxLength: 64, description: "The `id` of the last event read." },
  },
} as const;

/**
 * Sends `events` on a stream of its own, once it is open: the stream ends with them, and
 * they end (`close`) when the reader goes away or the server closes.
 */
function pipeToStream<T extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  streams: EventStreams,
  watched: { events: AsyncIterable<T>; close(): void },
  toSent: (event: T) => SentEvent,
): void {
  let stream: OpenStream;
  try {
    stream = streams.start(reply, () => watched.close());
  } catch (error) {
    watched.close();
    throw error;
  }
  void (async () => {
    try {
      for await (const event of watched.events) {
        const sending = stream.send(framedOnce(event, toSent));
        if (sending !== undefined) await sending;
        if (stream.closed) break;
      }
    } catch (error) {
      request.log.warn({ err: error }, "an event stream failed");
    } finally {
      stream.end();
    }
  })();
}

/**
 * Events core tells every reader alike are one object for all of them: framed once, the
 * same text is written to every stream.
 */
const framed = new WeakMap<object, string>();

function framedOnce<T extends object>(event: T, toSent: (event: T) => SentEvent): string {
  let text = framed.get(event);
  if (text === undefined) {
    text = frame(toSent(event));
    framed.set(event, text);
  }
  return text;
}

/** Each change as it happens: `GET /files/:id/events` and `GET /events`, Server-Sent Events. */
export function registerLiveRoutes(
  app: FastifyInstance,
  { cellar, streams }: { readonly cellar: Cellar; readonly streams: EventStreams },
): void {
  app.get<{ Params: FileIdParams }>(
    "/files/:id/events",
    {
      // A HEAD would open a stream whose headers never go out.
      exposeHeadRoute: false,
      schema: {
        operationId: "watchFile",
        summary: "Follow a file's changes as they happen",
        description: `A \`text/event-stream\` of the file's events, for anyone who may see it: \`file\` (the file object, first and after each rename, visibility change, trash or restore), \`content\` (\`{ version, sha256, author, range? }\`), \`permissions\` (\`{ action, email, role }\`; only to the owner and the people on the file: someone who sees a public file without a role on it is told \`file\` instead, naming no one), \`comment\` (\`{ action, comment_id, parent_id, comment }\`: a comment created, edited, its thread resolved or reopened, or deleted; \`comment\` is the comment as it is when the event is sent, null once it is gone), \`presence\` (\`{ viewers: [{ id, name }] }\`: who has the file open, after the first event and whenever it changes), \`reset\` (the file object: the events after \`Last-Event-ID\` are no longer all kept; read the file afresh) and \`revoked\` (the caller may no longer see the file; the stream ends). Every event has an \`id\`; reconnecting with \`Last-Event-ID\` tells what was missed. A comment line comes at least every ${HEARTBEAT_MS / 1000} s. At most ${MAX_STREAMS_PER_ACCOUNT} streams per account are open at once, over every server (429). Read it with \`fetch\`: an EventSource cannot send the bearer token.`,
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: lastEventIdHeader,
        response: {
          200: {
            description: "The stream of events, open until the caller or the server ends it.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...errorResponses([404, ...AUTHENTICATED]),
        },
      },
    },
    async (request, reply) => {
      const { userId, credential } = callerOf(request);
      streams.checkOpen();
      const lastEventId = request.headers["last-event-id"];
      const watched = await cellar.live.openFileStream({
        callerId: userId,
        fileId: request.params.id,
        credential,
        ...(typeof lastEventId === "string" ? { lastEventId } : {}),
      });
      pipeToStream(request, reply, streams, watched, fileEventSent);
    },
  );

  app.get(
    "/events",
    {
      exposeHeadRoute: false,
      schema: {
        operationId: "watchAccount",
        summary: "Follow the changes to your files' lists as they happen",
        description: `The caller's own \`text/event-stream\`: \`ready\` (\`{}\`: first, when no \`Last-Event-ID\` is sent), \`file\` (the file object, with the caller's role: a file of theirs, or shared with them, changed), \`shared\` (the file object: a file shared with them, or their role on it changed), \`unshared\` (\`{ file_id }\`: taken off a file, or it was trashed), \`reset\` (\`{}\`: what was missed cannot all be told; read the lists afresh) and \`revoked\` (the session ended). Every event has an \`id\`; reconnecting with \`Last-Event-ID\` tells what was missed. A comment line comes at least every ${HEARTBEAT_MS / 1000} s. It counts towards the ${MAX_STREAMS_PER_ACCOUNT} streams an account may hold (429).`,
        tags: TAGS,
        security: BEARER_SECURITY,
        headers: lastEventIdHeader,
        response: {
          200: {
            description: "The stream of events, open until the caller or the server ends it.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...errorResponses([...AUTHENTICATED]),
        },
      },
    },
    async (request, reply) => {
      const { userId, credential } = callerOf(request);
      streams.checkOpen();
      const lastEventId = request.headers["last-event-id"];
      const watched = await cellar.live.openAccountStream({
        callerId: userId,
        credential,
        ...(typeof lastEventId === "string" ? { lastEventId } : {}),
      });
      pipeToStream(request, reply, streams, watched, accountEventSent);
    },
  );
}

/** An account event as the stream sends it. */
function accountEventSent(event: AccountEvent): SentEvent {
  switch (event.kind) {
    case "file":
    case "shared":
      return { event: event.kind, id: event.id, data: toFileJson(event.file) };
    case "unshared":
      return { event: "unshared", id: event.id, data: { file_id: event.fileId } };
    case "ready":
    case "reset":
    case "revoked":
      return { event: event.kind, id: event.id, data: {} };
  }
}

/** A file event as the stream sends it; a webhook's body carries the same `data`. */
export function fileEventSent(event: FileEvent): SentEvent {
  switch (event.kind) {
    case "file":
    case "reset":
      return { event: event.kind, id: event.id, data: toFileJson(event.file) };
    case "content": {
      const ranges = event.ranges;
      return {
        event: "content",
        id: event.id,
        data: {
          version: event.version,
          sha256: event.sha256,
          author: event.author,
          ...(ranges === undefined ? {} : { range: ranges.length === 1 ? ranges[0] : ranges }),
          ...(event.recomputed === undefined ? {} : { recomputed: event.recomputed }),
          ...(event.structure === undefined ? {} : { structure: event.structure }),
        },
      };
    }
    case "permissions":
      return {
        event: "permissions",
        id: event.id,
        data: { action: event.action, email: event.email, role: event.role },
      };
    case "presence":
      return { event: "presence", id: event.id, data: { viewers: event.viewers } };
    case "comment":
      return {
        event: "comment",
        id: event.id,
        data: {
          action: event.action,
          comment_id: event.commentId,
          parent_id: event.parentId,
          comment: event.comment === null ? null : toCommentJson(event.comment),
        },
      };
    case "revoked":
      return { event: "revoked", id: event.id, data: {} };
  }
}
