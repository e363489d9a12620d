import { describe, expect, it } from "vitest";
import type { FileState, Visibility } from "../src/files/file.entity.js";
import {
  type AccessDecision,
  authorizeFileAction,
  callerRole,
  decideFileAccess,
  FILE_ACTIONS,
  leastRoleFor,
  needsGivenRole,
} from "../src/files/file-access.js";
import type { Role } from "../src/people/role.js";
import { aFile } from "../src/testing/index.js";

const OWNER = "user_ownerownerownerownerowne";
const CALLER = "user_callercallercallercalle";

/** Who asks: the owner, someone holding a role, or someone holding none. */
const CALLERS = ["owner", "editor", "commenter", "viewer", "no role"] as const;
type Caller = (typeof CALLERS)[number];

/** The file's state, in the order of each group of the matrix below. */
const FILES: readonly [Visibility, FileState][] = [
  ["public", "active"],
  ["private", "active"],
  ["public", "trashed"],
  ["private", "trashed"],
];

const OUTCOMES: Record<string, AccessDecision> = {
  A: "allow",
  F: "forbidden",
  N: "not_found",
  T: "file_in_trash",
};

/**
 * The whole access matrix, written out: A allow, F 403 forbidden, N 404 not_found,
 * T 409 file_in_trash (a public file's people and activity are only for those holding a
 * role on it: no role, F). One group of four per caller; in each group the file is public
 * and active, private and active, public and trashed, private and trashed.
 */
const MATRIX = `
  action               owner  editor  commenter  viewer  no role
  get                  AAAA   AANN    AANN       AANN    ANNN
  download             AATT   AANN    AANN       AANN    ANNN
  read_cells           AATT   AANN    AANN       AANN    ANNN
  list_versions        AAAA   AANN    AANN       AANN    ANNN
  download_version     AATT   AANN    AANN       AANN    ANNN
  list_permissions     AAAA   AANN    AANN       AANN    FNNN
  list_activity        AAAA   AANN    AANN       AANN    FNNN
  read_comments        AAAA   AANN    AANN       AANN    ANNN
  watch                AAAA   AANN    AANN       AANN    ANNN
  leave                AATT   AANN    AANN       AANN    ANNN
  write_comment        AATT   AANN    AANN       FFNN    FNNN
  rename               AATT   AANN    FFNN       FFNN    FNNN
  replace_content      AATT   AANN    FFNN       FFNN    FNNN
  edit_cells           AATT   AANN    FFNN       FFNN    FNNN
  append_rows          AATT   AANN    FFNN       FFNN    FNNN
  restore_version      AATT   AANN    FFNN       FFNN    FNNN
  keep_version         AATT   AANN    FFNN       FFNN    FNNN
  resolve_any_comment  AATT   AANN    FFNN       FFNN    FNNN
  change_visibility    AATT   FFNN    FFNN       FFNN    FNNN
  trash                AAAA   FFNN    FFNN       FFNN    FNNN
  restore              AAAA   FFNN    FFNN       FFNN    FNNN
  share                AATT   FFNN    FFNN       FFNN    FNNN
  change_role          AATT   FFNN    FFNN       FFNN    FNNN
  unshare              AATT   FFNN    FFNN       FFNN    FNNN
  delete_any_comment   AATT   FFNN    FFNN       FFNN    FNNN
`;

/** Each action's row: its cells, caller by caller, file by file. */
const ROWS = new Map(
  MATRIX.trim()
    .split("\n")
    .slice(1)
    .map((line) => {
      const [action = "", ...groups] = line.trim().split(/\s+/);
      return [action, groups.join("")] as const;
    }),
);

/** The caller's id and the role a permission gives them, for each kind of caller. */
function standing(caller: Caller): { callerId: string; given: Role | null } {
  if (caller === "owner") return { callerId: OWNER, given: null };
  return { callerId: CALLER, given: caller === "no role" ? null : caller };
}

describe("the access matrix", () => {
  it("has a row for every action there is, and no other, each with a cell for every caller and file", () => {
    expect([...ROWS.keys()].sort()).toEqual([...FILE_ACTIONS].sort());
    for (const cells of ROWS.values()) expect(cells).toMatch(new RegExp(`^[AFNT]{${CALLERS.length * FILES.length}}$`));
  });

  for (const action of FILE_ACTIONS) {
    const cells = ROWS.get(action) ?? "";
    CALLERS.forEach((caller, c) => {
      FILES.forEach(([visibility, state], f) => {
        const expected = OUTCOMES[cells[c * FILES.length + f] as string];
        it(`${action} by ${caller} on a ${visibility}, ${state} file → ${expected}`, () => {
          const file = aFile(OWNER, { visibility, state });
          const { callerId, given } = standing(caller);
          expect(decideFileAccess(action, file, callerRole(file, callerId, given))).toBe(expected);
        });
      });
    });
  }

  it("answers not_found for a file that does not exist, whatever the caller's role", () => {
    for (const action of FILE_ACTIONS) {
      for (const role of ["owner", "editor", "commenter", "viewer", null] as const) {
        expect(decideFileAccess(action, null, role)).toBe("not_found");
      }
    }
  });

  it("makes the file's owner its owner, whatever a permission says", () => {
    const file = aFile(OWNER);
    expect(callerRole(file, OWNER, "viewer")).toBe("owner");
    expect(callerRole(file, CALLER, "commenter")).toBe("commenter");
    expect(callerRole(file, CALLER, null)).toBeNull();
  });

  it("names the least role of each action as the matrix's first allowed caller on an active file", () => {
    for (const action of FILE_ACTIONS) {
      const cells = ROWS.get(action) ?? "";
      const least = [...CALLERS].reverse().find((caller) => cells[CALLERS.indexOf(caller) * FILES.length + 1] === "A");
      expect(leastRoleFor(action)).toBe(least);
    }
  });
});

describe("authorizeFileAction", () => {
  const file = aFile(OWNER, { visibility: "public" });

  it("returns the file and the caller's role when allowed: null for a public file's passer-by", () => {
    expect(authorizeFileAction("get", { file, role: null }, CALLER)).toEqual({ file, role: null });
    expect(authorizeFileAction("rename", { file, role: "editor" }, CALLER)).toEqual({ file, role: "editor" });
    expect(authorizeFileAction("share", { file, role: null }, OWNER)).toEqual({ file, role: "owner" });
  });

  it("throws not_found for a missing file, naming nothing", () => {
    expect(() => authorizeFileAction("get", null, OWNER)).toThrow(expect.objectContaining({ code: "not_found" }));
  });

  it("throws forbidden saying which role the action needs", () => {
    expect(() => authorizeFileAction("trash", { file, role: "editor" }, CALLER)).toThrow(
      expect.objectContaining({ code: "forbidden", message: "Only the file's owner may do that." }),
    );
    expect(() => authorizeFileAction("rename", { file, role: "viewer" }, CALLER)).toThrow(
      expect.objectContaining({ code: "forbidden", message: expect.stringContaining("as an editor") }),
    );
    expect(() => authorizeFileAction("write_comment", { file, role: null }, CALLER)).toThrow(
      expect.objectContaining({ code: "forbidden", message: expect.stringContaining("as a commenter") }),
    );
  });

  it("throws forbidden to a public file's passer-by asking for its people or its activity, saying who may", () => {
    expect(() => authorizeFileAction("list_permissions", { file, role: null }, CALLER)).toThrow(
      expect.objectContaining({
        code: "forbidden",
        message: "Only people the file is shared with may see its people.",
      }),
    );
    expect(() => authorizeFileAction("list_activity", { file, role: null }, CALLER)).toThrow(
      expect.objectContaining({
        code: "forbidden",
        message: "Only people the file is shared with may see its activity.",
      }),
    );
    expect(authorizeFileAction("list_permissions", { file, role: "viewer" }, CALLER)).toEqual({ file, role: "viewer" });
    expect(authorizeFileAction("list_activity", { file, role: null }, OWNER)).toEqual({ file, role: "owner" });
    expect(FILE_ACTIONS.filter(needsGivenRole)).toEqual(["list_permissions", "list_activity"]);
  });

  it("throws file_in_trash for the owner's trashed file", () => {
    const trashed = aFile(OWNER, { state: "trashed" });
    expect(() => authorizeFileAction("download", { file: trashed, role: null }, OWNER)).toThrow(
      expect.objectContaining({ code: "file_in_trash" }),
    );
  });
});
