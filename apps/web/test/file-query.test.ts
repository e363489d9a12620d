import { describe, expect, it } from "vitest";
import { addressOf, DEFAULT_SORT, nextSort, readQuery, sortedBy } from "../src/app/files/query.js";

const at = (path: string) => new URL(path, "https://cellar.example");

describe("a listing's search and order, in its page's address", () => {
  it("reads the search and the order, and the defaults where the address names none", () => {
    expect(readQuery(at("/files?q=bud&sort=name"))).toEqual({ q: "bud", sort: "name" });
    expect(readQuery(at("/files"))).toEqual({ q: "", sort: DEFAULT_SORT });
    expect(readQuery(at("/trash?sort=-size"))).toEqual({ q: "", sort: "-size" });
  });

  it("falls back to newest first for an order the API does not know", () => {
    expect(readQuery(at("/files?sort=colour")).sort).toBe("-created_at");
    expect(readQuery(at("/files?sort=")).sort).toBe("-created_at");
  });

  it("writes an address without the defaults, and reads back what it wrote", () => {
    expect(addressOf("/files", { q: "", sort: "-created_at" })).toBe("/files");
    expect(addressOf("/files", { q: "bud", sort: "-created_at" })).toBe("/files?q=bud");
    expect(addressOf("/trash", { q: "", sort: "size" })).toBe("/trash?sort=size");
    const query = { q: "Q1 & Q2 #budget", sort: "-updated_at" } as const;
    expect(readQuery(at(addressOf("/files", query)))).toEqual(query);
  });

  it("sorts by a column's header: names A to Z, sizes and dates biggest and latest first, then the other way", () => {
    expect(nextSort("-created_at", "name")).toBe("name");
    expect(nextSort("name", "name")).toBe("-name");
    expect(nextSort("-name", "name")).toBe("name");
    expect(nextSort("name", "size")).toBe("-size");
    expect(nextSort("-size", "size")).toBe("size");
    expect(nextSort("size", "updated_at")).toBe("-updated_at");
    expect(nextSort("-updated_at", "updated_at")).toBe("updated_at");
  });

  it("says which column is sorted and which way, for its header's aria-sort", () => {
    expect(sortedBy("name", "name")).toBe("ascending");
    expect(sortedBy("-size", "size")).toBe("descending");
    expect(sortedBy("-created_at", "name")).toBeUndefined();
    expect(sortedBy("-created_at", "updated_at")).toBeUndefined();
  });
});
