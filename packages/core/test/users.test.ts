import { describe, expect, it } from "vitest";
import { aCellar, signIn } from "./support/helpers.js";

describe("the current user", () => {
  it("reads their profile", async () => {
    const { cellar } = aCellar();
    const { user } = await signIn(cellar, "ada@example.com");
    expect(await cellar.users.getProfile(user.id)).toEqual(user);
  });

  it("renames themselves, trimmed, moving updatedAt on", async () => {
    const { cellar, clock } = aCellar();
    const { user } = await signIn(cellar, "ada@example.com");
    clock.advance(1000);
    const renamed = await cellar.users.rename({ userId: user.id, name: "  Ada Lovelace " });
    expect(renamed).toEqual({ ...user, name: "Ada Lovelace", updatedAt: clock.now() });
    expect(await cellar.users.getProfile(user.id)).toEqual(renamed);
  });

  it.each(["", " ", "x".repeat(101), "a\nb", 3, null])("refuses the name %j", async (name) => {
    const { cellar } = aCellar();
    const { user } = await signIn(cellar, "ada@example.com");
    await expect(cellar.users.rename({ userId: user.id, name })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "name" }],
    });
  });

  it("answers unauthorized for an account that no longer exists", async () => {
    const { cellar } = aCellar();
    await expect(cellar.users.getProfile("user_gonegonegonegonegonegone")).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(cellar.users.rename({ userId: "user_gonegonegonegonegonegone", name: "x" })).rejects.toMatchObject({
      code: "unauthorized",
    });
  });
});
