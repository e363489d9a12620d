import type { InvitationMail } from "@cellar/core";
import { describe, expect, it } from "vitest";
import { composeInvitationMessage } from "../src/index.js";
import { anInvitation, FILE_URL, INJECTION } from "./support/invitation-mail.js";

function compose(overrides: Partial<InvitationMail> = {}) {
  return composeInvitationMessage({ mail: anInvitation(overrides), from: "Cellar <no-reply@example.org>" });
}

describe("composeInvitationMessage", () => {
  it("addresses the mail from the sender to the person, with a subject naming the owner and the file", () => {
    const message = compose();
    expect(message.from).toBe("Cellar <no-reply@example.org>");
    expect(message.to).toBe("grace@example.com");
    expect(message.subject).toBe("Ada Lovelace shared “Budget 2026.xlsx” with you");
  });

  it("is plain text only", () => {
    expect(Object.keys(compose()).sort()).toEqual(["from", "subject", "text", "to"]);
  });

  it("names the file, and the owner with their address", () => {
    const { text } = compose();
    expect(text).toContain("Ada Lovelace (ada@example.com) shared a file with you on Cellar:");
    expect(text.split("\n")).toContain("    Budget 2026.xlsx");
  });

  it("puts the file's link alone on a line of its own", () => {
    expect(compose().text.split("\n")).toContain(FILE_URL);
  });

  it.each([
    ["viewer", "You are a viewer of it. You can view and download it."],
    ["commenter", "You are a commenter of it. You can view, download and comment on it."],
    ["editor", "You are an editor of it. You can view, download, comment on and edit it."],
  ] as const)("says what a %s may do", (role, sentence) => {
    expect(compose({ role }).text).toContain(sentence);
  });

  it("quotes the owner's note line by line, whatever its line breaks", () => {
    const { text } = compose({ message: "First line\r\nSecond line\rThird line\n\nAfter a blank" });
    expect(text).toContain("Ada Lovelace wrote:\n\n> First line\n> Second line\n> Third line\n>\n> After a blank\n");
  });

  it("says nothing of a note when there is none", () => {
    const { text } = compose({ message: null });
    expect(text).not.toContain("wrote:");
    expect(text).not.toMatch(/^>/m);
  });

  it("tells the person which address to sign in with, and holds no sign-in link or token", () => {
    const { text } = compose();
    expect(text).toContain("sign in to Cellar as grace@example.com");
    expect(text).not.toMatch(/token|sign-in\?/i);
  });

  it("keeps names to one line, so that none can end the subject or a line of the text", () => {
    const message = compose(INJECTION);
    expect(message.subject).toBe("Ada Bcc: eve@evil.example shared “Budget X-Injected: yes.xlsx” with you");
    expect(message.text).not.toMatch(/^(Bcc|X-Injected):/m);
  });

  it("lets no line of the note stand alone as a link or pass for the mail's own text", () => {
    const { text } = compose({ message: `${FILE_URL}\nHello,` });
    expect(text.split("\n").filter((line) => line === FILE_URL)).toHaveLength(1);
    expect(text).toContain(`> ${FILE_URL}\n> Hello,`);
  });
});
