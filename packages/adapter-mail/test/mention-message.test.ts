import type { MentionMail } from "@cellar/core";
import { describe, expect, it } from "vitest";
import { composeMentionMessage } from "../src/index.js";
import { FILE_URL } from "./support/invitation-mail.js";
import { aMention } from "./support/mention-mail.js";

function compose(overrides: Partial<MentionMail> = {}) {
  return composeMentionMessage({ mail: aMention(overrides), from: "Cellar <no-reply@example.org>" });
}

describe("composeMentionMessage", () => {
  it("addresses the mail from the sender to the person, with a subject naming the author and the file", () => {
    const message = compose();
    expect(message.from).toBe("Cellar <no-reply@example.org>");
    expect(message.to).toBe("grace@example.com");
    expect(message.subject).toBe("Ada Lovelace mentioned you on “Budget 2026.xlsx”");
  });

  it("is plain text only", () => {
    expect(Object.keys(compose()).sort()).toEqual(["from", "subject", "text", "to"]);
  });

  it("names the author with their address, the cells the thread is about, and the file", () => {
    const { text } = compose();
    expect(text).toContain(
      "Ada Lovelace (ada@example.com) mentioned you in a comment about Q3!B2:B3 on a file on Cellar:",
    );
    expect(text.split("\n")).toContain("    Budget 2026.xlsx");
  });

  it("names no cells for a comment on the file as a whole", () => {
    expect(compose({ range: null }).text).toContain("mentioned you in a comment on a file on Cellar:");
  });

  it("quotes the comment line by line", () => {
    expect(compose().text).toContain("> @grace@example.com could you check these two?\n> The second looks high.\n");
  });

  it("puts the file's link alone on a line of its own, and holds no sign-in link or token", () => {
    const { text } = compose();
    expect(text.split("\n")).toContain(FILE_URL);
    expect(text).toContain("sign in to Cellar as grace@example.com");
    expect(text).not.toMatch(/token|sign-in\?/i);
  });

  it("keeps names to one line and lets no line of the comment stand alone as the link", () => {
    const message = compose({
      authorName: "Ada\r\nBcc: eve@evil.example",
      fileName: "Budget\nX-Injected: yes.xlsx",
      excerpt: `${FILE_URL}\nHello,`,
    });
    expect(message.subject).toBe("Ada Bcc: eve@evil.example mentioned you on “Budget X-Injected: yes.xlsx”");
    expect(message.text).not.toMatch(/^(Bcc|X-Injected):/m);
    expect(message.text.split("\n").filter((line) => line === FILE_URL)).toHaveLength(1);
  });
});
