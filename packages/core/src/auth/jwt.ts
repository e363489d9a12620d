import { createSecretKey, type KeyObject } from "node:crypto";
import { decodeProtectedHeader, jwtVerify, SignJWT } from "jose";

export interface SessionClaims {
  /** The user id. */
  readonly sub: string;
  /** The session id. */
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

export const MIN_JWT_SECRET_BYTES = 32;

/** Header parameters that name a key; Cellar has exactly one key and refuses any hint. */
const KEY_HINTS = ["jwk", "jku", "kid", "x5u", "x5c", "x5t", "x5t#S256"] as const;

/** How many verified tokens are remembered; enough for every active session of a busy server. */
const VERIFIED_CACHE_SIZE = 10_000;

export class InvalidJwtError extends Error {
  override readonly name = "InvalidJwtError";
}

/**
 * Signs and verifies session JWTs: HS256 only, with `sub`, `jti`, `iat`, `exp`, `iss`
 * and `aud` all required. The key is imported once, not per request.
 */
export function createJwtCodec(settings: { secret: string | Uint8Array; issuer: string; audience: string }) {
  const secret = typeof settings.secret === "string" ? new TextEncoder().encode(settings.secret) : settings.secret;
  if (secret.byteLength < MIN_JWT_SECRET_BYTES) {
    throw new RangeError(`The JWT secret must be at least ${MIN_JWT_SECRET_BYTES} bytes.`);
  }
  const signingKey: KeyObject = createSecretKey(secret);
  // Imported once as a Web Crypto key: handing jose a KeyObject makes it import one on
  // every verify, which costs more than the HMAC itself.
  const verifyingKey = crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const { issuer, audience } = settings;
  // Tokens already verified, by their exact text (signature included), so a repeated
  // bearer token skips the header checks and the HMAC. Only expiry can change its verdict,
  // and it is checked on every use; the session is checked by the caller.
  const verified = new Map<string, SessionClaims>();

  return {
    sign(claims: SessionClaims): Promise<string> {
      return new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(claims.sub)
        .setJti(claims.jti)
        .setIssuedAt(claims.iat)
        .setExpirationTime(claims.exp)
        .setIssuer(issuer)
        .setAudience(audience)
        .sign(signingKey);
    },

    /**
     * The claims of a token verified before, as of `now` (it throws `InvalidJwtError` once
     * the token has expired), or undefined for one not verified yet: then call `verify`.
     * Synchronous, so that a request bearing a known token waits for no promise here.
     */
    remembered(token: string, now: Date): SessionClaims | undefined {
      return rememberedClaims(token, now);
    },

    /** Verifies signature and claims as of `now`; throws `InvalidJwtError` saying why. */
    async verify(token: string, now: Date): Promise<SessionClaims> {
      const known = rememberedClaims(token, now);
      if (known !== undefined) return known;
      const claims = await verifyAfresh(token, now);
      if (verified.size >= VERIFIED_CACHE_SIZE) {
        // Forget the oldest entry: Map iterates in insertion order.
        verified.delete(verified.keys().next().value as string);
      }
      verified.set(token, claims);
      return claims;
    },
  };

  function rememberedClaims(token: string, now: Date): SessionClaims | undefined {
    const known = verified.get(token);
    if (known === undefined || now.getTime() < known.exp * 1000) return known;
    verified.delete(token);
    throw new InvalidJwtError('"exp" claim timestamp check failed');
  }

  async function verifyAfresh(token: string, now: Date): Promise<SessionClaims> {
    let header: ReturnType<typeof decodeProtectedHeader>;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      throw new InvalidJwtError("malformed token");
    }
    if (header.alg !== "HS256") throw new InvalidJwtError(`algorithm ${String(header.alg)} refused`);
    if (KEY_HINTS.some((hint) => hint in header)) throw new InvalidJwtError("key hints refused");
    try {
      const { payload } = await jwtVerify(token, await verifyingKey, {
        algorithms: ["HS256"],
        issuer,
        audience,
        typ: "JWT",
        requiredClaims: ["sub", "jti", "iat", "exp", "iss", "aud"],
        currentDate: now,
      });
      // jose checks that these claims are present, not that they are strings.
      if (typeof payload.sub !== "string" || typeof payload.jti !== "string") {
        throw new InvalidJwtError("sub and jti must be strings");
      }
      return payload as unknown as SessionClaims;
    } catch (error) {
      throw new InvalidJwtError(error instanceof Error ? error.message : "invalid token");
    }
  }
}

export type JwtCodec = ReturnType<typeof createJwtCodec>;
