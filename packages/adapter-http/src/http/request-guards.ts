import { assertScope, type Cellar, CellarError, ErrorCode, isCellarError, type ScopeNeeded } from "@cellar/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "./error-handler.js";
import { addressKey, countBeforeRefusing, setRateLimitHeaders } from "./rate-limit-headers.js";
import "./request-context.js";

export interface RequestGuardOptions {
  readonly cellar: Cellar;
  /** False once the server is shutting down: new requests get 503 from then on. */
  readonly acceptingRequests: () => boolean;
}

/** RFC 6750's b64token, after the case-insensitive scheme. */
const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/**
 * The checks every /v1 request passes, in order, before its body is even read:
 * availability, authentication, the rate limit, then whether the route needs a caller
 * (and what of their scope: a read-only access token may not write) and takes this kind
 * of body. The same hook sets the headers every /v1 answer carries
 * (one hook instead of two: every request runs it). They run for unknown routes too, so a 404 still carries
 * the rate-limit headers.
 */
export function addRequestGuards(app: FastifyInstance, options: RequestGuardOptions): void {
  const { cellar, acceptingRequests } = options;

  app.decorateRequest("cellarAuth", null);

  app.addHook("onRequest", async (request, reply) => {
    // Set when the request arrives, so errors carry them too. API answers are per caller
    // and per moment: no cache may keep them. Downloads replace Cache-Control with their
    // own policy once the bytes are ready to go, and errors set no-store again.
    reply.header("x-content-type-options", "nosniff").header("cache-control", "no-store");
    if (!acceptingRequests()) {
      // Counted against the address, so the 503 carries the rate-limit headers too: the
      // store stays open while in-flight requests drain. Nothing else touches storage
      // (no token is checked), and should counting fail the 503 goes out without them.
      await countBeforeRefusing(cellar, request, reply);
      throw new CellarError(ErrorCode.unavailable, "The server is shutting down; try again shortly.", {
        retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
      });
    }
    // Inline rather than in a function of its own: one promise fewer on every request.
    // cellarAuth starts null on every request (decorateRequest above).
    const token = bearerToken(request.headers.authorization);
    if (token !== undefined) {
      try {
        request.cellarAuth = await cellar.auth.authenticate(token);
      } catch (error) {
        // A bad token is only a problem for routes that need one; anything else (storage
        // down) is a real failure.
        if (!isCellarError(error, ErrorCode.unauthorized)) throw error;
      }
    }
    const key = request.cellarAuth === null ? addressKey(request) : `user:${request.cellarAuth.userId}`;
    const status = await cellar.rateLimiter.hit(key);
    setRateLimitHeaders(reply, status);
    cellar.rateLimiter.assertAllowed(status);
    // Unknown routes answer 404 to everyone: whether a token was sent changes nothing there.
    // (routeOptions builds a new object on every read: read it once.)
    const route = request.is404 ? undefined : request.routeOptions.config;
    if (route !== undefined && route.cellarAccess !== "anyone") {
      if (request.cellarAuth === null)
        throw new CellarError(ErrorCode.unauthorized, "A valid access token is required.");
      assertScope(request.cellarAuth, scopeNeeded(request.method, route.cellarAccess));
    }
    if (route?.cellarBody !== undefined && route.cellarBody !== "raw") assertBodyType(request, route.cellarBody);
  });
}

/** What a call needs of its caller's scope (decisions §10): reading is GET and HEAD, event streams included. */
function scopeNeeded(method: string, access: "bearer" | "session" | undefined): ScopeNeeded {
  if (access === "session") return "session";
  return method === "GET" || method === "HEAD" ? "read" : "write";
}

/** The bearer token of an `Authorization` header, if it carries one. */
function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

const BODY_MEDIA_TYPES = { json: "application/json", multipart: "multipart/form-data" } as const;

/**
 * Refuses a body of the wrong type before it is parsed: without this, a text or form
 * body sent to a JSON route would reach validation and be answered 400 instead of 415.
 */
function assertBodyType(request: FastifyRequest, expected: keyof typeof BODY_MEDIA_TYPES): void {
  const contentType = request.headers["content-type"];
  const mediaType = contentType?.split(";")[0]?.trim().toLowerCase();
  const hasBody =
    contentType !== undefined ||
    request.headers["transfer-encoding"] !== undefined ||
    (request.headers["content-length"] !== undefined && request.headers["content-length"] !== "0");
  // A JSON route without any body is left to validation ("body must be a JSON object");
  // an upload without one is still the wrong kind of request.
  if (expected === "json" && !hasBody) return;
  if (mediaType !== BODY_MEDIA_TYPES[expected]) {
    throw new CellarError(
      ErrorCode.unsupported_media_type,
      expected === "json"
        ? "This endpoint takes a JSON body (Content-Type: application/json)."
        : "Uploads must be sent as multipart/form-data.",
    );
  }
}
