import { type ActivityAction, newActivityEntry } from "../activity/activity.entity.js";
import { normaliseEmail } from "../auth/email.js";
import type { Mailer } from "../auth/mailer.port.js";
import { authorizeFileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode, fieldProblems, invalidField } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import type { UserRecord, UserSummary } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import { spendMailBudget } from "./mail-budget.js";
import {
  MAX_PEOPLE_PER_FILE,
  normaliseInvitationMessage,
  type Permission,
  type PermissionRecord,
} from "./permission.entity.js";
import type { PermissionRepository } from "./permission-repository.port.js";
import { parseRole, type Role } from "./role.js";

export interface PeopleServiceDeps {
  readonly files: FileRepository;
  readonly permissions: PermissionRepository;
  readonly users: UserRepository;
  readonly mailer: Mailer;
  readonly rateLimits: RateLimitStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** The base of the file links in invitations. */
  readonly publicUrl: string;
  /** Mails telling people of files (invitations, and mentions in comments) one account may send per hour. */
  readonly inviteRateMax: number;
}

/** What sharing did: the permission as it now stands, whether it is new, and whether its holder was told by mail. */
export interface ShareResult {
  readonly permission: Permission;
  readonly created: boolean;
  readonly notified: boolean;
}

export type PeopleService = ReturnType<typeof createPeopleService>;

const noSuchPermission = () => new CellarError(ErrorCode.not_found, "No such permission on this file.");

/**
 * Who else may see a file, and as what: its owner gives people roles by email address,
 * changes and takes them away; anyone who may see the file sees who holds one; and
 * anyone may leave a file shared with them. Every change is recorded in the file's
 * activity, in the same step as the change.
 */
export function createPeopleService(deps: PeopleServiceDeps) {
  const { files, permissions, users, clock, random } = deps;
  const publicBase = deps.publicUrl.endsWith("/") ? deps.publicUrl : `${deps.publicUrl}/`;

  const load = async (action: Parameters<typeof authorizeFileAction>[0], callerId: string, fileId: string) =>
    authorizeFileAction(action, await files.findWithRole({ id: fileId, userId: callerId }), callerId);

  const entry = <A extends ActivityAction>(fields: Parameters<typeof newActivityEntry<A>>[1]) =>
    newActivityEntry(random, fields);

  async function withUser(record: PermissionRecord, known?: UserRecord | null): Promise<Permission> {
    if (record.userId === null) return { ...record, user: null };
    const user = known?.id === record.userId ? known : await users.findById(record.userId);
    return { ...record, user: user === null ? null : summary(user) };
  }

  /** Reads what `share` was asked, every field at once. */
  function readShareRequest(input: { email: unknown; role: unknown; notify?: unknown; message?: unknown }) {
    const { problems, read, check } = fieldProblems();
    const email = read(() => normaliseEmail(input.email));
    const role = read(() => parseRole(input.role));
    const message = read(() => normaliseInvitationMessage(input.message));
    if (input.notify !== undefined && typeof input.notify !== "boolean") {
      problems.push({ field: "notify", message: "must be a boolean" });
    }
    check();
    return { email: email as string, role: role as Role, message: message ?? null, notify: input.notify !== false };
  }

  return {
    /**
     * Gives the person at `email` `role` on the file (owner only). The same address again
     * changes its role and sends nothing. A new person is told by mail unless `notify` is
     * false: the owner's account sends at most `inviteRateMax` such mails an hour, and past
     * that nothing is made (`rate_limited`); a mail that cannot be sent leaves the
     * permission made, with `notified: false`. At most 100 people per file (`limit_reached`).
     */
    async share(input: {
      callerId: string;
      fileId: string;
      email: unknown;
      role: unknown;
      notify?: unknown;
      message?: unknown;
    }): Promise<ShareResult> {
      const { email, role, message, notify } = readShareRequest(input);
      const { file } = await load("share", input.callerId, input.fileId);
      const owner = await users.findById(file.ownerId);
      if (owner === null) throw new CellarError(ErrorCode.unauthorized, "The account no longer exists.");
      if (email === owner.email) throw invalidField("email", "is the owner's own address: the owner holds every role");

      const current = await permissions.listByFile({ fileId: file.id });
      const isNew = !current.some((permission) => permission.email === email);
      if (isNew && current.length >= MAX_PEOPLE_PER_FILE) throw limitReached();
      const now = clock.now();
      // The budget is spent before the permission is made, so that past it nothing is;
      // a share that turns out not to mail (a concurrent one made it first) spends it too.
      const mails = notify && isNew;
      if (mails) {
        await spendMailBudget({
          rateLimits: deps.rateLimits,
          accountId: input.callerId,
          mails: 1,
          max: deps.inviteRateMax,
          now,
          refusal: `At most ${deps.inviteRateMax} mails telling people of files (invitations and mentions) may be sent an hour; try again later.`,
        });
      }

      let account = await users.findByEmail(email);
      const stated = { fileId: file.id, at: now, actorId: input.callerId };
      const result = await permissions.upsert({
        permission: {
          id: newId(random, "perm"),
          fileId: file.id,
          email,
          userId: account?.id ?? null,
          role,
          createdAt: now,
          updatedAt: now,
        },
        limit: MAX_PEOPLE_PER_FILE,
        activity: {
          shared: entry({ ...stated, action: "shared", details: { email, role } }),
          roleChanged: entry({ ...stated, action: "role_changed", details: { email, role } }),
        },
      });
      if (result.outcome === "limit_reached") throw limitReached();
      let stored = result.permission;
      if (stored.userId === null) {
        // The address may have signed in for the first time since it was looked up, its
        // attach finding nothing yet: attach it here, or it would wait for the next sign-in.
        account = await users.findByEmail(email);
        if (account !== null) {
          await permissions.attachPending({ email, userId: account.id });
          stored = { ...stored, userId: account.id };
        }
      }

      let notified = false;
      if (mails && result.outcome === "created") {
        try {
          await deps.mailer.sendInvitation({
            to: email,
            fileId: file.id,
            fileName: file.name,
            fileUrl: new URL(`files/${encodeURIComponent(file.id)}`, publicBase).toString(),
            ownerName: owner.name,
            ownerEmail: owner.email,
            role,
            message,
          });
          notified = true;
        } catch {
          // The role stands: the person sees the file when they sign in, told or not.
        }
      }
      return { permission: await withUser(stored, account), created: result.outcome === "created", notified };
    },

    /** Everyone holding a role on the file, oldest first: for anyone who may see it. */
    async list(input: { callerId: string; fileId: string }): Promise<Permission[]> {
      const { file } = await load("list_permissions", input.callerId, input.fileId);
      return permissions.listByFile({ fileId: file.id });
    },

    /** Changes a person's role (owner only). The same role again changes nothing. */
    async changeRole(input: {
      callerId: string;
      fileId: string;
      permissionId: string;
      role: unknown;
    }): Promise<Permission> {
      const role = parseRole(input.role);
      const { file } = await load("change_role", input.callerId, input.fileId);
      const current = await permissions.findById(input.permissionId);
      if (current === null || current.fileId !== file.id) throw noSuchPermission();
      const now = clock.now();
      const changed = await permissions.changeRole({
        fileId: file.id,
        id: current.id,
        role,
        updatedAt: now,
        activity: entry({
          fileId: file.id,
          at: now,
          actorId: input.callerId,
          action: "role_changed",
          details: { email: current.email, role },
        }),
      });
      if (changed === null) throw noSuchPermission();
      return withUser(changed);
    },

    /**
     * Takes a person off the file: the owner may take anyone, and anyone may take
     * themselves (leaving). Someone else's permission is the owner's alone to remove.
     */
    async remove(input: { callerId: string; fileId: string; permissionId: string }): Promise<void> {
      const found = await files.findWithRole({ id: input.fileId, userId: input.callerId });
      const current = await permissions.findById(input.permissionId);
      const onFile = current !== null && current.fileId === input.fileId;
      const leaving = onFile && current.userId === input.callerId;
      authorizeFileAction(leaving ? "leave" : "unshare", found, input.callerId);
      if (!onFile) throw noSuchPermission();
      const removed = await permissions.remove({
        fileId: current.fileId,
        id: current.id,
        activity: entry({
          fileId: current.fileId,
          at: clock.now(),
          actorId: input.callerId,
          action: "unshared",
          details: { email: current.email },
        }),
      });
      if (removed === null) throw noSuchPermission();
    },
  };
}

function summary(user: UserRecord): UserSummary {
  return { id: user.id, email: user.email, name: user.name };
}

function limitReached(): CellarError {
  return new CellarError(
    ErrorCode.limit_reached,
    `A file can be shared with at most ${MAX_PEOPLE_PER_FILE} people; take someone off first.`,
  );
}
