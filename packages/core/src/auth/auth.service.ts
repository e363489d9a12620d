import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import { rateLimitedError, retryAfterSeconds } from "../rate-limit/rate-limiter.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import { hashAccessToken, looksLikeAccessToken } from "../tokens/access-token.entity.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";
import { defaultUserName, type UserRecord } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import type { Authenticated } from "./credential.js";
import { normaliseEmail } from "./email.js";
import type { JwtCodec } from "./jwt.js";
import { createLastUsedMarks } from "./last-used-marks.js";
import { hashToken, MAGIC_LINK_TOKEN_BYTES } from "./magic-link.entity.js";
import type { MagicLinkRepository } from "./magic-link-repository.port.js";
import type { Mailer } from "./mailer.port.js";
import { MAX_USER_AGENT_LENGTH, type SessionRecord } from "./session.entity.js";
import type { SessionRepository } from "./session-repository.port.js";

const FIFTEEN_MINUTES_MS = 15 * 60_000;

/** At most 5 link requests per address per 15 minutes; failed sends count. */
export const SIGN_IN_LINK_LIMIT = { max: 5, windowMs: FIFTEEN_MINUTES_MS } as const;
/** After 20 failed verifies from one client address, that address waits out the window. */
export const VERIFY_FAILURE_LIMIT = { max: 20, windowMs: FIFTEEN_MINUTES_MS } as const;

/** Longer than any token Cellar issues: hashing is skipped for anything this long. */
const MAX_TOKEN_LENGTH = 512;

export interface AuthServiceDeps {
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly accessTokens: AccessTokenRepository;
  readonly magicLinks: MagicLinkRepository;
  /** Roles given to an address before it had an account are attached at its sign-in. */
  readonly permissions: PermissionRepository;
  readonly mailer: Mailer;
  readonly rateLimits: RateLimitStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly jwt: JwtCodec;
  readonly publicUrl: string;
  readonly jwtTtlSeconds: number;
  readonly magicLinkTtlSeconds: number;
}

export interface SignedIn {
  readonly jwt: string;
  readonly user: UserRecord;
  readonly session: SessionRecord;
}

/** A live session as its user sees it listed: `current` for the one the request came with. */
export interface ListedSession {
  readonly session: SessionRecord;
  readonly current: boolean;
}

export type AuthService = ReturnType<typeof createAuthService>;

export function createAuthService(deps: AuthServiceDeps) {
  const { users, sessions, accessTokens, magicLinks, clock, rateLimits } = deps;
  const lastUsed = createLastUsedMarks();
  // Relative to PUBLIC_URL's own path, so a server behind a proxy at /cellar links to /cellar/sign-in.
  const signInUrl = new URL("sign-in", deps.publicUrl.endsWith("/") ? deps.publicUrl : `${deps.publicUrl}/`);

  const invalidToken = () =>
    new CellarError(ErrorCode.invalid_token, "The sign-in link is unknown, expired or already used.");
  const unauthorized = (cause: unknown) =>
    new CellarError(ErrorCode.unauthorized, "A valid access token is required.", { cause });

  return {
    /**
     * Sends a sign-in link to `email`. Answers the same whether or not the address has
     * an account. If the mail cannot be sent, the link is withdrawn before the error.
     */
    async requestSignInLink(input: { email: unknown }): Promise<void> {
      const email = normaliseEmail(input.email);
      const now = clock.now();
      const window = await rateLimits.hit({ key: `sign-in-link:${email}`, windowMs: SIGN_IN_LINK_LIMIT.windowMs, now });
      if (window.count > SIGN_IN_LINK_LIMIT.max) {
        throw rateLimitedError(
          { retryAfterSeconds: retryAfterSeconds(window.resetAt, now) },
          "Too many sign-in links for this address; try again later.",
        );
      }
      const token = Buffer.from(deps.random.bytes(MAGIC_LINK_TOKEN_BYTES)).toString("base64url");
      const tokenHash = hashToken(token);
      const expiresAt = new Date(now.getTime() + deps.magicLinkTtlSeconds * 1000);
      await magicLinks.insert({ tokenHash, email, createdAt: now, expiresAt });
      const link = new URL(signInUrl);
      link.searchParams.set("token", token);
      try {
        await deps.mailer.sendSignInLink({
          to: email,
          link: link.toString(),
          expiresAt,
          validForSeconds: deps.magicLinkTtlSeconds,
        });
      } catch (cause) {
        await magicLinks.delete(tokenHash);
        throw new CellarError(ErrorCode.mail_unavailable, "The sign-in mail could not be sent; try again later.", {
          cause,
        });
      }
    },

    /**
     * Exchanges a magic-link token for a session JWT, creating the user on their first
     * sign-in. Each token works once. Failures are counted per client address. Roles given
     * to the address while it had no account become the user's, so the files shared with
     * it are theirs to see from this sign-in on.
     */
    async verifySignInLink(input: { token: unknown; clientAddress: string; userAgent?: string }): Promise<SignedIn> {
      const now = clock.now();
      const failureKey = `verify-failures:${input.clientAddress}`;
      const failures = await rateLimits.peek({ key: failureKey, now });
      if (failures !== null && failures.count >= VERIFY_FAILURE_LIMIT.max) {
        throw rateLimitedError(
          { retryAfterSeconds: retryAfterSeconds(failures.resetAt, now) },
          "Too many failed sign-ins from this address; try again later.",
        );
      }
      const token = input.token;
      const link =
        typeof token === "string" && token.length > 0 && token.length <= MAX_TOKEN_LENGTH
          ? await magicLinks.consume({ tokenHash: hashToken(token), now })
          : null;
      if (link === null) {
        await rateLimits.hit({ key: failureKey, windowMs: VERIFY_FAILURE_LIMIT.windowMs, now });
        throw invalidToken();
      }
      const user = await users.insertIfAbsent({
        id: newId(deps.random, "user"),
        email: link.email,
        name: defaultUserName(link.email),
        createdAt: now,
        updatedAt: now,
      });
      // On every sign-in: `insertIfAbsent` does not say whether this one made the account,
      // and when nothing waits the attach is one indexed update that changes no row.
      await deps.permissions.attachPending({ email: user.email, userId: user.id });
      const session: SessionRecord = {
        id: newId(deps.random, "sess"),
        userId: user.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + deps.jwtTtlSeconds * 1000),
        revokedAt: null,
        userAgent: input.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) || null,
        // Signing in is using it.
        lastUsedAt: now,
      };
      await sessions.insert(session);
      const iat = Math.floor(now.getTime() / 1000);
      const jwt = await deps.jwt.sign({
        sub: user.id,
        jti: session.id,
        iat,
        exp: Math.floor(session.expiresAt.getTime() / 1000),
      });
      return { jwt, user, session };
    },

    /**
     * Checks a bearer token: an access token (`cellar_pat_…`) by its hash, anything else
     * as a session's JWT (signature, algorithm, claims and expiry, then that its session
     * is live). Any failure is `unauthorized`; why is in `cause`. A live credential means
     * its user exists: both go with their user, so the user's row is not read here —
     * every request would pay for it, and only the profile needs it. When it was last used
     * is written at most once a minute per credential (`LAST_USED_RESOLUTION_MS`), and
     * never waited for.
     */
    async authenticate(token: string): Promise<Authenticated> {
      const now = clock.now();
      if (looksLikeAccessToken(token)) {
        const tokenHash = token.length <= MAX_TOKEN_LENGTH ? hashAccessToken(token) : null;
        const record = tokenHash === null ? null : await accessTokens.findByHash(tokenHash);
        if (record === null || tokenHash === null) throw unauthorized("unknown access token");
        if (record.expiresAt !== null && record.expiresAt.getTime() <= now.getTime()) {
          throw unauthorized("expired access token");
        }
        lastUsed.mark(record, now, (at) => accessTokens.touch({ id: record.id, at }));
        return { userId: record.userId, scope: record.scope, credential: { kind: "token", id: record.id, tokenHash } };
      }
      let claims: Awaited<ReturnType<JwtCodec["verify"]>>;
      try {
        claims = deps.jwt.remembered(token, now) ?? (await deps.jwt.verify(token, now));
      } catch (error) {
        throw unauthorized(error);
      }
      const session = await sessions.findById(claims.jti);
      if (session === null || session.userId !== claims.sub) throw unauthorized("unknown session");
      if (session.revokedAt !== null) throw unauthorized("revoked session");
      if (session.expiresAt.getTime() <= now.getTime()) throw unauthorized("expired session");
      lastUsed.mark(session, now, (at) => sessions.touch({ id: session.id, at }));
      return { userId: session.userId, scope: "session", credential: { kind: "session", id: session.id } };
    },

    /** The caller's sessions that still hold, newest first; `currentSessionId` is marked `current`. */
    async listSessions(input: {
      callerId: string;
      currentSessionId: string | null;
      page?: unknown;
      perPage?: unknown;
    }): Promise<Page<ListedSession>> {
      const page = toPageRequest(input);
      const { items, total } = await sessions.listLive({
        userId: input.callerId,
        now: clock.now(),
        offset: page.offset,
        limit: page.perPage,
      });
      const listed = items.map((session) => ({ session, current: session.id === input.currentSessionId }));
      return toPage(page, listed, total);
    },

    /**
     * Ends one of the caller's sessions (another device's, or this one): its JWT is
     * refused from the answer on, on every instance. A session that is someone else's,
     * unknown, or no longer live is `not_found`.
     */
    async endSession(input: { callerId: string; sessionId: string }): Promise<void> {
      const now = clock.now();
      const session = await sessions.findById(input.sessionId);
      const live = session !== null && session.revokedAt === null && session.expiresAt.getTime() > now.getTime();
      if (!live || session.userId !== input.callerId) {
        throw new CellarError(ErrorCode.not_found, "No such session.");
      }
      await sessions.revoke({ id: session.id, at: now });
    },

    /** Revokes a session: its JWT is refused from then on. */
    async signOut(input: { sessionId: string }): Promise<void> {
      await sessions.revoke({ id: input.sessionId, at: clock.now() });
    },
  };
}
