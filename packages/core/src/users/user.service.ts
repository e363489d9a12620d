import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import { normaliseUserName, type UserRecord } from "./user.entity.js";
import type { UserRepository } from "./user-repository.port.js";

export type UserService = ReturnType<typeof createUserService>;

export function createUserService(deps: { users: UserRepository; clock: Clock }) {
  const missing = () => new CellarError(ErrorCode.unauthorized, "The account no longer exists.");
  return {
    async getProfile(userId: string): Promise<UserRecord> {
      const user = await deps.users.findById(userId);
      if (user === null) throw missing();
      return user;
    },

    /** Renames the user: trimmed, 1–100 code points, no control characters. */
    async rename(input: { userId: string; name: unknown }): Promise<UserRecord> {
      const name = normaliseUserName(input.name);
      const user = await deps.users.updateName({ id: input.userId, name, updatedAt: deps.clock.now() });
      if (user === null) throw missing();
      return user;
    },
  };
}
