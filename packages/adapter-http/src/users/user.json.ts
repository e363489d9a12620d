import type { UserRecord, UserSummary } from "@cellar/core";

/** The signed-in user's profile, as `GET /users/me` shows it; see `userSchema`. */
export interface UserJson {
  readonly id: string;
  readonly email: string;
  readonly name: string;
  readonly created_at: string;
}

/** The user as `POST /sessions/verify` names it: the profile less its dates. */
export type UserSummaryJson = Omit<UserJson, "created_at">;

/** The one mapping from core's user to the API's JSON. */
export function toUserJson(user: UserRecord): UserJson {
  return { id: user.id, email: user.email, name: user.name, created_at: user.createdAt.toISOString() };
}

/** A person named beside something (an author, an actor, a holder of a role), or null once their account is gone. */
export function toPersonJson(person: UserSummary | null): UserSummaryJson | null {
  return person === null ? null : { id: person.id, email: person.email, name: person.name };
}

export function toUserSummaryJson(user: UserRecord): UserSummaryJson {
  const { created_at: _createdAt, ...summary } = toUserJson(user);
  return summary;
}
