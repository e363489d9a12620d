import type { SignInMail } from "@cellar/core";

/** The token of the sample sign-in link: a test checks it never leaks where it must not. */
export const TOKEN = "mSd9Lr3XW1YkR0n4l7c2QeZpVbFh8TgUoJiA6sNyKxE";
export const LINK = `https://cellar.example.org/sign-in?token=${TOKEN}`;

/** A sign-in mail as core hands it to a mailer, valid for ten minutes. */
export function aMail(overrides: Partial<SignInMail> = {}): SignInMail {
  return {
    to: "ada@example.com",
    link: LINK,
    expiresAt: new Date("2026-01-01T00:10:00.000Z"),
    validForSeconds: 600,
    ...overrides,
  };
}
