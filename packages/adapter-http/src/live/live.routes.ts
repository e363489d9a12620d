import type { Cellar, FileEvent } from "@cellar/core";
import type { FastifyInstance } from "fastify";
import { toFileJson } from "../files/file.json.js";
import { type FileIdParams, fileIdParamsSchema } from "../files/file.schemas.js";
import { callerOf } from "../http/request-context.js";
import { AUTHENTICATED, errorResponses } from "../shared/error.schemas.js";
import { BEARER_SECURITY } from "../shared/openapi.js";
import { type EventStreams, HEARTBEAT_MS, MAX_STREAMS_PER_ACCOUNT, type SentEvent } from "./event-streams.js";

const TAGS = ["Live"];

/** Each change of a file as it happens: `GET /files/:id/events`, Server-Sent Events. */
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
        description: `A \`text/event-stream\` of the file's events, for anyone who may see it: \`file\` (the file object, first and after each rename, visibility change, trash or restore), \`content\` (\`{ version, sha256, author, range? }\`), \`permissions\` (\`{ action, email, role }\`), \`reset\` (the file object: the events after \`Last-Event-ID\` are no longer all kept; read the file afresh) and \`revoked\` (the caller may no longer see the file; the stream ends). Every event has an \`id\`; reconnecting with \`Last-Event-ID\` tells what was missed. A comment line comes at least every ${HEARTBEAT_MS / 1000} s. At most ${MAX_STREAMS_PER_ACCOUNT} streams per account are open at once (429). Read it with \`fetch\`: an EventSource cannot send the bearer token.`,
        tags: TAGS,
        security: BEARER_SECURITY,
        params: fileIdParamsSchema,
        headers: {
          type: "object",
          properties: {
            "last-event-id": { type: "string", maxLength: 64, description: "The `id` of the last event read." },
          },
        },
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
      const { userId, session } = callerOf(request);
      streams.checkRoom(userId);
      const lastEventId = request.headers["last-event-id"];
      const watched = await cellar.live.openFileStream({
        callerId: userId,
        fileId: request.params.id,
        sessionId: session.id,
        ...(typeof lastEventId === "string" ? { lastEventId } : {}),
      });
      let stream: ReturnType<EventStreams["open"]>;
      try {
        stream = streams.open(reply, userId, () => watched.close());
      } catch (error) {
        watched.close();
        throw error;
      }
      void (async () => {
        try {
          for await (const event of watched.events) {
            await stream.send(sentEvent(event));
            if (stream.closed) break;
          }
        } catch (error) {
          request.log.warn({ err: error }, "a file's event stream failed");
        } finally {
          stream.end();
        }
      })();
    },
  );
}

/** A file event as the stream sends it. */
function sentEvent(event: FileEvent): SentEvent {
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
        },
      };
    }
    case "permissions":
      return {
        event: "permissions",
        id: event.id,
        data: { action: event.action, email: event.email, role: event.role },
      };
    case "revoked":
      return { event: "revoked", id: event.id, data: {} };
  }
}
