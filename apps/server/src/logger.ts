import type { FastifyReply, FastifyRequest } from "fastify";
import { LogController } from "fastify";
import { type DestinationStream, type Logger, pino } from "pino";

/** Query parameters whose values are secrets: a sign-in token must never reach a log. */
const SECRET_PARAMS = /([?&](?:token|jwt|access_token)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, "$1[redacted]");
}

/**
 * Structured JSON logs, as pino documents them: one line of JSON per event, every line
 * carrying `service: "cellar"`, a request's lines its `reqId`. By default lines go to
 * standard output through pino's asynchronous destination (sonic-boom), which gathers
 * the lines logged while a write is under way into the next write, so a busy server
 * makes few system calls and a log reader that stalls never blocks it; pino flushes what
 * is pending when the process exits. Headers (the bearer token) are never logged.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  return pino(
    {
      level: options.level ?? "info",
      base: { service: "cellar" },
      serializers: { err: pino.stdSerializers.err },
    },
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}

/**
 * One access line per request, "request completed", written when the answer has been
 * handed to the connection (or writing it failed), through the request's own logger so
 * it carries the request id: method, URL with its secret parameters masked, status,
 * milliseconds, client address and Host. Fastify's own two lines per request are off.
 * A `LogController` is where Fastify itself writes its "request completed".
 */
export class AccessLog extends LogController {
  constructor() {
    super({ disableRequestLogging: true });
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    request.log.info(
      {
        method: request.method,
        url: redactUrl(request.url),
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 1000) / 1000,
        remoteAddress: request.ip,
        host: request.host,
      },
      "request completed",
    );
  }
}
