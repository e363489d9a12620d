import type { SignInMail } from "@cellar/core";

/** A composed sign-in mail, in the shape nodemailer's `sendMail` and `MailComposer` take. */
export interface SignInMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export const SIGN_IN_SUBJECT = "Your Cellar sign-in link";

const SECONDS_PER_MINUTE = 60;
const SECONDS_PER_HOUR = 3600;

/**
 * Says how long a link stays valid, in words a reader takes in at a glance: seconds under
 * a minute, minutes under an hour, hours otherwise. Rounds down, so the mail never
 * promises more time than the link really has.
 */
export function describeValidity(validForSeconds: number): string {
  const seconds = Math.max(0, Math.floor(validForSeconds));
  if (seconds < SECONDS_PER_MINUTE) return plural(seconds, "second");
  if (seconds < SECONDS_PER_HOUR) return plural(Math.floor(seconds / SECONDS_PER_MINUTE), "minute");
  return plural(Math.floor(seconds / SECONDS_PER_HOUR), "hour");
}

/**
 * Composes the sign-in mail. Both mailers send exactly this, so what a user reads is
 * defined once, and the dev outbox shows what production would send.
 */
export function composeSignInMessage(input: { mail: SignInMail; from: string }): SignInMessage {
  const { mail, from } = input;
  const validity = `This link is valid for ${describeValidity(mail.validForSeconds)} and can be used once.`;
  const request = `Someone asked to sign in to Cellar as ${mail.to}. To sign in, open this link:`;
  const ignore = "If you did not ask for it, you can ignore this mail: nobody can sign in without the link.";

  // The link stands on its own line so that mail clients make it clickable as a whole.
  const text = ["Hello,", "", request, "", mail.link, "", validity, "", ignore, ""].join("\n");

  // Inline markup only: no images, fonts or style sheets a mail client would fetch.
  const html = [
    "<!doctype html>",
    '<html lang="en">',
    `<head><meta charset="utf-8"><title>${escapeHtml(SIGN_IN_SUBJECT)}</title></head>`,
    "<body>",
    "<p>Hello,</p>",
    `<p>${escapeHtml(request)}</p>`,
    `<p><a href="${escapeHtml(mail.link)}">${escapeHtml(mail.link)}</a></p>`,
    `<p>${escapeHtml(validity)}</p>`,
    `<p>${escapeHtml(ignore)}</p>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");

  return { from, to: mail.to, subject: SIGN_IN_SUBJECT, text, html };
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML element or a double- or single-quoted attribute value. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}
