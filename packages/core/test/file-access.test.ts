import { describe, expect, it } from "vitest";
import type { FileState, Visibility } from "../src/files/file.entity.js";
import { type AccessDecision, decideFileAccess, type FileAction } from "../src/files/file-access.js";
import { aFile } from "../src/testing/index.js";

const OWNER = "user_ownerownerownerownerowne";
const OTHER = "user_otherotherotherotherothe";

type Row = [
  caller: "owner" | "other",
  visibility: Visibility,
  state: FileState,
  outcomes: Record<FileAction, AccessDecision>,
];

const allow = "allow" as const;
const rows: Row[] = [
  [
    "owner",
    "private",
    "active",
    { get: allow, list: allow, patch: allow, trash: allow, restore: allow, download: allow },
  ],
  [
    "owner",
    "public",
    "active",
    { get: allow, list: allow, patch: allow, trash: allow, restore: allow, download: allow },
  ],
  [
    "owner",
    "private",
    "trashed",
    { get: allow, list: allow, patch: "file_in_trash", trash: allow, restore: allow, download: "file_in_trash" },
  ],
  [
    "owner",
    "public",
    "trashed",
    { get: allow, list: allow, patch: "file_in_trash", trash: allow, restore: allow, download: "file_in_trash" },
  ],
  [
    "other",
    "public",
    "active",
    { get: allow, list: "not_found", patch: "forbidden", trash: "forbidden", restore: "forbidden", download: allow },
  ],
  [
    "other",
    "private",
    "active",
    {
      get: "not_found",
      list: "not_found",
      patch: "not_found",
      trash: "not_found",
      restore: "not_found",
      download: "not_found",
    },
  ],
  [
    "other",
    "private",
    "trashed",
    {
      get: "not_found",
      list: "not_found",
      patch: "not_found",
      trash: "not_found",
      restore: "not_found",
      download: "not_found",
    },
  ],
  [
    "other",
    "public",
    "trashed",
    {
      get: "not_found",
      list: "not_found",
      patch: "not_found",
      trash: "not_found",
      restore: "not_found",
      download: "not_found",
    },
  ],
];

describe("the access matrix", () => {
  for (const [caller, visibility, state, outcomes] of rows) {
    for (const [action, expected] of Object.entries(outcomes) as [FileAction, AccessDecision][]) {
      it(`${caller} × ${visibility} × ${state} × ${action} → ${expected}`, () => {
        const file = aFile(OWNER, { visibility, state });
        expect(decideFileAccess(action, file, caller === "owner" ? OWNER : OTHER)).toBe(expected);
      });
    }
  }

  it("answers not_found for a file that does not exist, to anyone", () => {
    for (const action of ["get", "list", "patch", "trash", "restore", "download"] as const) {
      expect(decideFileAccess(action, null, OWNER)).toBe("not_found");
    }
  });
});
