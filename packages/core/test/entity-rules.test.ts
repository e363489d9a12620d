import { describe, expect, it } from "vitest";
import { normaliseEmail } from "../src/auth/email.js";
import {
  baseName,
  downloadName,
  kindFromFileName,
  normaliseFileName,
  parseVisibility,
  toMetadata,
} from "../src/files/file.entity.js";
import { aFile } from "../src/testing/fixtures.js";
import { defaultUserName, normaliseUserName } from "../src/users/user.entity.js";

describe("file names", () => {
  it("are trimmed", () => {
    expect(normaliseFileName("  Budget 2026.xlsx \n")).toBe("Budget 2026.xlsx");
  });

  it("count Unicode code points, not UTF-16 units: 255 emoji pass, 256 do not", () => {
    expect(normaliseFileName("📊".repeat(255))).toHaveLength(510);
    expect(() => normaliseFileName("📊".repeat(256))).toThrow(/at most 255/);
  });

  it.each([
    "",
    "   ",
    "a\u0000b",
    "tab\there",
    "line\nbreak",
    "del\u007f",
    "c1\u0085",
    "evil\u202Excsv.exe",
    "iso\u2066late",
  ])("refuse %j", (name) => {
    expect(() => normaliseFileName(name)).toThrow(expect.objectContaining({ code: "validation_error" }));
  });

  it("refuse anything but a string", () => {
    expect(() => normaliseFileName(42)).toThrow(/must be a string/);
  });
});

describe("a file's metadata", () => {
  it("leaves out the blob key", () => {
    const record = aFile("user_abcdefghijklmnopqrstuvwx");
    expect(toMetadata(record, "owner")).not.toHaveProperty("blobKey");
    expect(toMetadata(Object.freeze({ ...record }), "owner")).not.toHaveProperty("blobKey");
  });

  it("carries the caller's role, or null for a passer-by of a public file", () => {
    const record = aFile("user_abcdefghijklmnopqrstuvwx");
    expect(toMetadata(record, "editor").role).toBe("editor");
    expect(toMetadata(record, null).role).toBeNull();
  });
});

describe("a file's metadata, made from a frozen record", () => {
  it("is made once per role for a frozen record, which cannot change, and afresh for any other", () => {
    const frozen = Object.freeze(aFile("user_abcdefghijklmnopqrstuvwx"));
    expect(toMetadata(frozen, "owner")).toBe(toMetadata(frozen, "owner"));
    expect(toMetadata(frozen, null)).toBe(toMetadata(frozen, null));
    expect(toMetadata(frozen, "viewer")).not.toBe(toMetadata(frozen, "owner"));
    expect(toMetadata(frozen, "viewer").role).toBe("viewer");
    expect(Object.isFrozen(toMetadata(frozen, null))).toBe(true);
    const mutable = aFile("user_abcdefghijklmnopqrstuvwx");
    const before = toMetadata(mutable, "owner");
    Object.assign(mutable, { name: "renamed.csv" });
    expect(toMetadata(mutable, "owner")).not.toBe(before);
    expect(toMetadata(mutable, "owner").name).toBe("renamed.csv");
  });
});

describe("upload types", () => {
  it("come from the extension, case-insensitively", () => {
    expect(kindFromFileName("a.CSV")).toBe("csv");
    expect(kindFromFileName("report.final.XlSx")).toBe("xlsx");
    expect(kindFromFileName("model.sheet")).toBe("sheet");
  });

  it.each(["a.xls", "a.csv.exe", "csv", "a.", "", "folder.csv/", "a.txt"])("refuse %j as unsupported", (name) => {
    expect(() => kindFromFileName(name)).toThrow(expect.objectContaining({ code: "unsupported_media_type" }));
  });

  it("ignore folders in the client's name", () => {
    expect(baseName("../../etc/x.csv")).toBe("x.csv");
    expect(baseName("C:\\Users\\ada\\q3.xlsx")).toBe("q3.xlsx");
    expect(kindFromFileName("dir.xlsx/data.csv")).toBe("csv");
  });
});

describe("download names", () => {
  it("add the kind's extension when the name lacks it", () => {
    expect(downloadName({ name: "Budget", kind: "xlsx" })).toBe("Budget.xlsx");
    expect(downloadName({ name: "Budget.XLSX", kind: "xlsx" })).toBe("Budget.XLSX");
    expect(downloadName({ name: "notes.csv", kind: "sheet" })).toBe("notes.csv.sheet");
  });
});

describe("visibility", () => {
  it("is private or public, nothing else", () => {
    expect(parseVisibility("public")).toBe("public");
    expect(parseVisibility("private")).toBe("private");
    for (const bad of ["PUBLIC", "", "shared", null, 1]) expect(() => parseVisibility(bad)).toThrow(/visibility/);
  });
});

describe("email addresses", () => {
  it("are trimmed and lower-cased", () => {
    expect(normaliseEmail("  Ada.Lovelace+cellar@Example.COM ")).toBe("ada.lovelace+cellar@example.com");
  });

  it.each([
    "",
    "ada",
    "ada@",
    "@example.com",
    "ada@example",
    "ada@@example.com",
    "a b@example.com",
    "ada@exa mple.com",
    ".ada@example.com",
    "ada..l@example.com",
    "ada@-example.com",
    `${"a".repeat(65)}@example.com`,
    7,
  ])("refuse %j", (email) => {
    expect(() => normaliseEmail(email)).toThrow(expect.objectContaining({ code: "validation_error" }));
  });
});

describe("user names", () => {
  it("are 1–100 code points without control characters", () => {
    expect(normaliseUserName(" Grace ")).toBe("Grace");
    expect(normaliseUserName("é".repeat(100))).toBe("é".repeat(100));
    expect(() => normaliseUserName("é".repeat(101))).toThrow(/at most 100/);
    expect(() => normaliseUserName("")).toThrow(/empty/);
    expect(() => normaliseUserName("a\u0007")).toThrow(/control/);
  });

  it("default to the address's local part, kept within the rules", () => {
    expect(defaultUserName("ada.lovelace@example.com")).toBe("ada.lovelace");
    expect(defaultUserName(`${"x".repeat(64)}@example.com`)).toBe("x".repeat(64));
  });
});
