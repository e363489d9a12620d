import { describe, expect, it } from "vitest";
import { listOf, SCOPES, TOKEN_DAYS_MAX, tokenRequest, tokenUsage, whenText } from "../src/app/account/words.js";

describe("the account page's words", () => {
  it("says a moment in the reader's language, or what stands for one that has not come", () => {
    const at = "2026-11-28T20:05:00.000Z";
    expect(whenText(at, "never", "en-GB")).toBe(
      new Date(at).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }),
    );
    expect(whenText(at, "never", "en-GB")).toMatch(/28 Nov 2026/);
    expect(whenText(null, "never")).toBe("never");
    expect(whenText(null, "not yet")).toBe("not yet");
  });

  it("makes a token's request from the form: the name trimmed, the days only when given", () => {
    expect(tokenRequest("  Nightly import ", "read", "")).toEqual({ name: "Nightly import", scope: "read" });
    expect(tokenRequest("Deploy", "write", "30")).toEqual({ name: "Deploy", scope: "write", expires_in_days: 30 });
    expect(tokenRequest("Deploy", "write", " 365 ")).toEqual({ name: "Deploy", scope: "write", expires_in_days: 365 });
    expect(tokenRequest("Deploy", "read", "1")).toMatchObject({ expires_in_days: 1 });
  });

  it("says what is wrong with the form before asking the server", () => {
    expect(tokenRequest("   ", "read", "")).toEqual({ problem: "Give the token a name, to know it by later." });
    expect(tokenRequest("x".repeat(101), "read", "")).toEqual({
      problem: "A token's name is at most 100 characters.",
    });
    expect(tokenRequest("x".repeat(100), "read", "")).toEqual({ name: "x".repeat(100), scope: "read" });
    for (const days of ["0", "366", "1.5", "-3", "abc"]) {
      const answer = tokenRequest("Deploy", "read", days);
      expect(answer, days).toHaveProperty("problem");
      expect((answer as { problem: string }).problem, days).toContain(`1 to ${TOKEN_DAYS_MAX} days`);
    }
  });

  it("shows how to use a token on the command line and as a header", () => {
    const usage = tokenUsage("cellar_tok_abc", "https://cellar.example.com");
    expect(usage.commandLine).toBe("CELLAR_SERVER=https://cellar.example.com CELLAR_TOKEN=cellar_tok_abc cellar ls");
    expect(usage.header).toBe("Authorization: Bearer cellar_tok_abc");
    expect(usage.curl).toBe('curl -H "Authorization: Bearer cellar_tok_abc" https://cellar.example.com/v1/files');
  });

  it("names each scope the API takes, with what it allows", () => {
    expect(Object.keys(SCOPES)).toEqual(["read", "write"]);
    expect(SCOPES.read.label).toBe("Read");
    expect(SCOPES.write.hint).toMatch(/uploads, edits/);
  });

  it("reads every page of a list into one array", async () => {
    async function* pages() {
      yield 1;
      yield 2;
      yield 3;
    }
    expect(await listOf(pages())).toEqual([1, 2, 3]);
    async function* failing() {
      yield 1;
      throw new Error("offline");
    }
    await expect(listOf(failing())).rejects.toThrow("offline");
  });
});
