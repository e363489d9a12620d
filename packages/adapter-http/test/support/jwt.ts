import { decodeJwt, SignJWT } from "jose";

/** The HS256 key of test apps built with `config: { jwtSecret: TEST_JWT_SECRET }`. */
export const TEST_JWT_SECRET = "a-test-secret-that-is-long-enough-0123456789";

export interface JwtTweak {
  /** The `alg` to sign with (default HS256). */
  readonly alg?: string;
  /** Header parameters added to `{ alg, typ: "JWT" }` (or replacing `typ`). */
  readonly header?: Record<string, unknown>;
  /** The key to sign with (default the test secret). */
  readonly key?: string | Uint8Array;
  /** Claims changed or added. */
  readonly claims?: Record<string, unknown>;
  /** Claims left out. */
  readonly drop?: readonly string[];
}

/**
 * Re-signs the claims of a JWT the server issued, as the server would (HS256, `typ: JWT`,
 * the test secret), then applies one change: so a test can first show the faithful copy
 * is accepted, and then that each refusal is about its one change alone.
 */
export async function forgeFrom(issuedJwt: string, tweak: JwtTweak = {}): Promise<string> {
  const payload: Record<string, unknown> = { ...decodeJwt(issuedJwt), ...tweak.claims };
  for (const claim of tweak.drop ?? []) delete payload[claim];
  const key = tweak.key ?? TEST_JWT_SECRET;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: tweak.alg ?? "HS256", typ: "JWT", ...tweak.header })
    .sign(typeof key === "string" ? new TextEncoder().encode(key) : key);
}

export function base64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString("base64url");
}
