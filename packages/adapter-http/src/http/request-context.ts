import { type Authenticated, CellarError, ErrorCode } from "@cellar/core";
import type { FastifyRequest } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** Who sent a valid bearer token with this /v1 request; null when no one did. */
    cellarAuth: Authenticated | null;
  }

  interface FastifyContextConfig {
    /**
     * Who may call a /v1 route: `"bearer"` (the default) needs a valid bearer token, a
     * session's or an access token whose scope allows the method (`read`: GET and HEAD);
     * `"session"` needs a signed-in session (managing tokens, sessions and webhooks:
     * decisions §10); `"anyone"` needs no token.
     */
    cellarAccess?: "bearer" | "session" | "anyone";
    /**
     * The body a /v1 route takes; a body of any other type is refused with 415. `raw`
     * takes bytes of any type, which the route checks itself.
     */
    cellarBody?: "json" | "multipart" | "raw";
  }
}

/** The signed-in caller of a route that requires one (the guards made sure). */
export function callerOf(request: FastifyRequest): Authenticated {
  if (request.cellarAuth === null) {
    throw new CellarError(ErrorCode.unauthorized, "A valid access token is required.");
  }
  return request.cellarAuth;
}
