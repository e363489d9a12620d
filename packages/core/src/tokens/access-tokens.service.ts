import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, fieldProblems, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import { type Page, toPage, toPageRequest } from "../shared/pagination.js";
import type { RandomSource } from "../shared/random.port.js";
import { normaliseDisplayName } from "../shared/text-rules.js";
import {
  ACCESS_TOKEN_BYTES,
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_SCOPES,
  type AccessTokenRecord,
  type AccessTokenScope,
  hashAccessToken,
  MAX_ACCESS_TOKEN_DAYS,
  MAX_ACCESS_TOKEN_NAME_LENGTH,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from "./access-token.entity.js";
import type { AccessTokenRepository } from "./access-token-repository.port.js";

const DAY_MS = 86_400_000;

/** A token just made: its record, and its value, which is shown this once and never again. */
export interface NewAccessToken {
  readonly record: AccessTokenRecord;
  readonly token: string;
}

export type AccessTokenService = ReturnType<typeof createAccessTokenService>;

/**
 * Access tokens (decisions §10): made, listed and deleted by their owner from a signed-in
 * session (the caller checks the scope: `assertScope(caller, "session")`). A token is
 * checked on each request by `AuthService.authenticate`.
 */
export function createAccessTokenService(deps: {
  accessTokens: AccessTokenRepository;
  clock: Clock;
  random: RandomSource;
}) {
  const { accessTokens, clock } = deps;
  return {
    /**
     * Makes a token for `callerId`: `name` 1–100 characters, `scope` `read` or `write`,
     * `expiresInDays` 1–365 or absent (it works until deleted). At most 50 per account
     * (`limit_reached`).
     */
    async create(input: {
      callerId: string;
      name: unknown;
      scope: unknown;
      expiresInDays?: unknown;
    }): Promise<NewAccessToken> {
      const fields = fieldProblems();
      const name = fields.read(() =>
        normaliseDisplayName(input.name, "name", { min: 1, max: MAX_ACCESS_TOKEN_NAME_LENGTH }),
      );
      const scope = fields.read(() => parseScope(input.scope));
      const days = fields.read(() => parseDays(input.expiresInDays));
      fields.check();
      const now = clock.now();
      const token = `${ACCESS_TOKEN_PREFIX}${Buffer.from(deps.random.bytes(ACCESS_TOKEN_BYTES)).toString("base64url")}`;
      const record: AccessTokenRecord = {
        id: newId(deps.random, "tok"),
        userId: input.callerId,
        name: name as string,
        scope: scope as AccessTokenScope,
        tokenHash: hashAccessToken(token),
        createdAt: now,
        expiresAt: days === null || days === undefined ? null : new Date(now.getTime() + days * DAY_MS),
        lastUsedAt: null,
      };
      const stored = await accessTokens.insertWithinLimit({ token: record, max: MAX_ACCESS_TOKENS_PER_ACCOUNT });
      if (!stored) {
        throw new CellarError(
          ErrorCode.limit_reached,
          `An account can hold at most ${MAX_ACCESS_TOKENS_PER_ACCOUNT} access tokens; delete one first.`,
        );
      }
      return { record, token };
    },

    /** The caller's tokens, newest first, without their values. */
    async list(input: { callerId: string; page?: unknown; perPage?: unknown }): Promise<Page<AccessTokenRecord>> {
      const page = toPageRequest(input);
      const { items, total } = await accessTokens.listByUser({
        userId: input.callerId,
        offset: page.offset,
        limit: page.perPage,
      });
      return toPage(page, items, total);
    },

    /** Deletes one of the caller's tokens: refused from the answer on, on every instance. */
    async delete(input: { callerId: string; tokenId: string }): Promise<void> {
      if (!(await accessTokens.delete({ id: input.tokenId, userId: input.callerId }))) {
        throw new CellarError(ErrorCode.not_found, "No such access token.");
      }
    },
  };
}

function parseScope(value: unknown): AccessTokenScope {
  if (typeof value === "string" && (ACCESS_TOKEN_SCOPES as readonly string[]).includes(value)) {
    return value as AccessTokenScope;
  }
  throw invalidField("scope", `must be one of ${ACCESS_TOKEN_SCOPES.map((scope) => `'${scope}'`).join(", ")}`);
}

function parseDays(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (Number.isSafeInteger(value) && (value as number) >= 1 && (value as number) <= MAX_ACCESS_TOKEN_DAYS) {
    return value as number;
  }
  throw invalidField("expires_in_days", `must be a whole number from 1 to ${MAX_ACCESS_TOKEN_DAYS}`);
}
