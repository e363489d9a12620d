import { describe, expect, it } from "vitest";
import { base32, isWellFormedId, newId } from "../src/shared/ids.js";
import { cryptoRandom } from "../src/shared/random.port.js";

describe("ids", () => {
  it("base32 encodes the RFC 4648 test vectors, lower-cased and unpadded", () => {
    const vectors: [string, string][] = [
      ["", ""],
      ["f", "my"],
      ["fo", "mzxq"],
      ["foo", "mzxw6"],
      ["foob", "mzxw6yq"],
      ["fooba", "mzxw6ytb"],
      ["foobar", "mzxw6ytboi"],
    ];
    for (const [input, output] of vectors) expect(base32(Buffer.from(input))).toBe(output);
  });

  it("newId gives the prefix and 120 random bits as 24 URL-safe characters", () => {
    const id = newId(cryptoRandom, "file");
    expect(id).toMatch(/^file_[a-z2-7]{24}$/);
    expect(isWellFormedId(id, "file")).toBe(true);
    expect(isWellFormedId(id, "user")).toBe(false);
  });

  it("newId issues ids for people on a file, activity entries and comments too, each recognised by its own prefix only", () => {
    for (const prefix of ["perm", "act", "cmt"] as const) {
      const id = newId(cryptoRandom, prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[a-z2-7]{24}$`));
      expect(isWellFormedId(id, prefix)).toBe(true);
      expect(isWellFormedId(id, "file")).toBe(false);
    }
  });

  it("newId draws its bits from the random source", () => {
    const zeros = { bytes: (n: number) => new Uint8Array(n) };
    expect(newId(zeros, "user")).toBe(`user_${"a".repeat(24)}`);
  });

  it("10,000 fresh ids are all different", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId(cryptoRandom, "file")));
    expect(ids.size).toBe(10_000);
  });

  it("isWellFormedId refuses ids of the wrong length, alphabet or prefix", () => {
    for (const bad of [
      "file_",
      "file_abc",
      `file_${"a".repeat(25)}`,
      `file_${"A".repeat(24)}`,
      `file_${"1".repeat(24)}`,
      `x${"a".repeat(24)}`,
    ]) {
      expect(isWellFormedId(bad, "file")).toBe(false);
    }
  });
});
