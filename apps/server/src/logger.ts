import { type DestinationStream, type Logger, pino } from "pino";

/** Query parameters whose values are secrets: a magic-link token must never reach a log. */
const SECRET_PARAMS = /([?&](?:token|jwt|access_token)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, "$1[redacted]");
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  hostname?: string;
}

/**
 * Structured JSON logs. Fastify adds the request id to every line of a request as
 * `reqId`. Requests are logged without headers (no Authorization) and with secret
 * query parameters masked.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const logOptions = {
    level: options.level ?? "info",
    base: { service: "cellar" },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url ?? ""),
        host: req.hostname,
        remoteAddress: req.ip,
      }),
      err: pino.stdSerializers.err,
    },
  };
  return options.destination === undefined ? pino(logOptions) : pino(logOptions, options.destination);
}
