import { describe, expect, it } from "vitest";
import { initialsOf } from "../src/app/preview/presence.js";

describe("the initials on a presence badge", () => {
  it("takes the first letters of the first and last words, upper-cased", () => {
    expect(initialsOf("Ana María López")).toBe("AL");
    expect(initialsOf("ben ortiz")).toBe("BO");
    expect(initialsOf("Grace")).toBe("G");
    expect(initialsOf("  Émile   Zola ")).toBe("ÉZ");
  });

  it("reads a name made from an address as its parts, and gives ? for none", () => {
    expect(initialsOf("ana.lopez@example.com")).toBe("AL");
    expect(initialsOf("")).toBe("?");
  });
});
