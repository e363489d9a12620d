import { describe, expect, it } from "vitest";
import { mayRename, mayShare, type PeopleAction, peopleActionRefused, type Role } from "../src/app/files/roles.js";

const ROLES: readonly Role[] = ["owner", "editor", "commenter", "viewer"];
const PEOPLE_ACTIONS: readonly PeopleAction[] = ["people", "activity", "leave"];

describe("what a file's menu offers about its people", () => {
  it("offers its people, its activity and leaving to everyone the file is shared with, and its owner", () => {
    for (const role of ROLES) {
      for (const action of PEOPLE_ACTIONS) expect(peopleActionRefused(role, action)).toBeUndefined();
    }
  });

  it("greys them, each with its reason, for someone who sees a public file with no role (the API answers 403)", () => {
    expect(peopleActionRefused(null, "people")).toBe(
      "Only people the file is shared with can see who it is shared with.",
    );
    expect(peopleActionRefused(null, "activity")).toBe("Only people the file is shared with can see its activity.");
    expect(peopleActionRefused(null, "leave")).toBe("It is not shared with you: you see it because its link is on.");
  });

  it("lets only editors and the owner rename, and only the owner share; no one without a role", () => {
    expect([...ROLES, null].map((role) => [role, mayRename(role), mayShare(role)])).toEqual([
      ["owner", true, true],
      ["editor", true, false],
      ["commenter", false, false],
      ["viewer", false, false],
      [null, false, false],
    ]);
  });
});
