import type { SignInMail } from "@cellar/core";
import { describe, expect, it } from "vitest";
import { composeSignInMessage, describeValidity } from "../src/index.js";
import { aMail, LINK } from "./support/sign-in-mail.js";

function compose(overrides: Partial<SignInMail> = {}) {
  return composeSignInMessage({ mail: aMail(overrides), from: "Cellar <no-reply@example.org>" });
}

describe("composeSignInMessage", () => {
  it("addresses the mail from the sender to the recipient, with a sign-in subject", () => {
    const message = compose();
    expect(message.from).toBe("Cellar <no-reply@example.org>");
    expect(message.to).toBe("ada@example.com");
    expect(message.subject).toBe("Your Cellar sign-in link");
  });

  it("composes both a text and an HTML part", () => {
    const message = compose();
    expect(message.text).not.toBe("");
    expect(message.html).toMatch(/^<!doctype html>/);
  });

  it("puts the exact link on a line of its own in the text part", () => {
    expect(compose().text.split("\n")).toContain(LINK);
  });

  it("says in the text part how long the link is valid and that it works once", () => {
    expect(compose().text).toContain("This link is valid for 10 minutes and can be used once.");
  });

  it("tells the reader in both parts that the mail can be ignored if they did not ask for it", () => {
    const message = compose();
    expect(message.text).toContain("If you did not ask for it, you can ignore this mail");
    expect(message.html).toContain("If you did not ask for it, you can ignore this mail");
  });

  it("links to the sign-in link in the HTML part and repeats the validity", () => {
    const message = compose();
    expect(message.html).toContain(`<a href="${LINK}">${LINK}</a>`);
    expect(message.html).toContain("This link is valid for 10 minutes and can be used once.");
  });

  it("escapes <, & and quotes in the link and the recipient in the HTML part", () => {
    const message = compose({
      to: '"ada<x>"&co@example.com',
      link: 'https://cellar.example.org/sign-in?token=a&b="<script>',
    });
    expect(message.html).toContain(
      '<a href="https://cellar.example.org/sign-in?token=a&amp;b=&quot;&lt;script&gt;">' +
        "https://cellar.example.org/sign-in?token=a&amp;b=&quot;&lt;script&gt;</a>",
    );
    expect(message.html).toContain("&quot;ada&lt;x&gt;&quot;&amp;co@example.com");
    expect(message.html).not.toContain("<script>");
    expect(message.html).not.toContain("<x>");
  });

  it("loads nothing from outside the mail in the HTML part", () => {
    const { html } = compose();
    expect(html).not.toMatch(/<(img|link|script|style|iframe)\b/i);
    expect(html).not.toMatch(/\bsrc=/i);
    expect(html).not.toContain("url(");
  });
});

describe("describeValidity", () => {
  it.each([
    [600, "10 minutes"],
    [60, "1 minute"],
    [7200, "2 hours"],
    [3600, "1 hour"],
    [3599, "59 minutes"],
    [5400, "1 hour"],
    [90, "1 minute"],
    [1, "1 second"],
    [30, "30 seconds"],
  ])("describes %i seconds as %s", (seconds, words) => {
    expect(describeValidity(seconds)).toBe(words);
  });

  it("is what the text part says", () => {
    expect(compose({ validForSeconds: 7200 }).text).toContain("valid for 2 hours");
    expect(compose({ validForSeconds: 60 }).text).toContain("valid for 1 minute and");
  });
});
