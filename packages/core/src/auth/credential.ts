import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import type { AccessTokenScope } from "../tokens/access-token.entity.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";
import type { SessionRepository } from "./session-repository.port.js";

/** What a request signed in with: a session (a JWT) or an access token. */
export type Credential =
  | { readonly kind: "session"; readonly id: string }
  | { readonly kind: "token"; readonly id: string; readonly tokenHash: string };

/** What a caller may do: `session` everything; an access token what its scope allows. */
export type CallerScope = "session" | AccessTokenScope;

/** Who a bearer token speaks for, with what, and what it allows. */
export interface Authenticated {
  readonly userId: string;
  readonly scope: CallerScope;
  readonly credential: Credential;
}

/**
 * What a call needs of its caller's scope: `read` (GET, HEAD, event streams), `write`
 * (every other call), or `session` (managing tokens, sessions and webhooks).
 */
export type ScopeNeeded = "read" | "write" | "session";

/** Throws `insufficient_scope` unless `caller` may make a call that needs `needed` (decisions §10). */
export function assertScope(caller: Pick<Authenticated, "scope">, needed: ScopeNeeded): void {
  if (caller.scope === "session" || needed === "read") return;
  if (needed === "session") {
    throw new CellarError(
      ErrorCode.insufficient_scope,
      "Access tokens, sessions and webhooks are managed only from a signed-in session, not with an access token.",
    );
  }
  if (caller.scope === "read") {
    throw new CellarError(
      ErrorCode.insufficient_scope,
      "This access token may only read; changes need a token with scope 'write' or a signed-in session.",
    );
  }
}

/**
 * Whether a credential still holds, and when it ends by itself: what an event stream
 * checks before its events and sets its timer by.
 */
export interface CredentialStates {
  /** null when it no longer holds (revoked, deleted, expired); else its expiry, null for none. */
  expiry(credential: Credential): Promise<{ readonly expiresAt: Date | null } | null>;
}

export function createCredentialStates(deps: {
  sessions: SessionRepository;
  accessTokens: AccessTokenRepository;
  clock: Clock;
}): CredentialStates {
  const live = (expiresAt: Date | null) =>
    expiresAt === null || expiresAt.getTime() > deps.clock.now().getTime() ? { expiresAt } : null;
  return {
    async expiry(credential) {
      if (credential.kind === "session") {
        const session = await deps.sessions.findById(credential.id);
        return session === null || session.revokedAt !== null ? null : live(session.expiresAt);
      }
      const token = await deps.accessTokens.findByHash(credential.tokenHash);
      return token === null || token.id !== credential.id ? null : live(token.expiresAt);
    },
  };
}
