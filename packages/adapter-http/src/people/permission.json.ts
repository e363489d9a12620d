import type { Permission, Role, ShareResult } from "@cellar/core";
import { toPersonJson, type UserSummaryJson } from "../users/user.json.js";

/** A person's role on a file, as the API shows it; see `permissionSchema`. */
export interface PermissionJson {
  readonly id: string;
  readonly file_id: string;
  readonly email: string;
  readonly role: Role;
  /** The account of `email`, or null while the address has none (the role waits for its first sign-in). */
  readonly user: UserSummaryJson | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** What `POST /files/:id/permissions` answers: the permission, and whether its holder was told by mail. */
export interface SharedJson extends PermissionJson {
  readonly notified: boolean;
}

/** The one mapping from core's permission to the API's JSON. */
export function toPermissionJson(permission: Permission): PermissionJson {
  return {
    id: permission.id,
    file_id: permission.fileId,
    email: permission.email,
    role: permission.role,
    user: toPersonJson(permission.user),
    created_at: permission.createdAt.toISOString(),
    updated_at: permission.updatedAt.toISOString(),
  };
}

export function toSharedJson(result: ShareResult): SharedJson {
  return { ...toPermissionJson(result.permission), notified: result.notified };
}
