import type { MentionMail } from "@cellar/core";
import { oneLine, quoted } from "./mail-text.js";

/** A composed mention mail: one plain-text part, no HTML, so nothing the author wrote is ever read as markup. */
export interface MentionMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * Composes the mail telling someone they were mentioned in a comment. Both mailers send
 * exactly this. It holds no secret: the link is the file's page, where the reader signs
 * in as usual.
 *
 * As in an invitation, names go into the subject flattened to one line, and the comment
 * keeps its lines, each quoted with "> ", so that none can pass for the mail's own text,
 * stand alone as the link, or start a header.
 */
export function composeMentionMessage(input: { mail: MentionMail; from: string }): MentionMessage {
  const { mail, from } = input;
  const author = oneLine(mail.authorName);
  const fileName = oneLine(mail.fileName);
  const about = mail.range === null ? "" : ` about ${oneLine(mail.range)}`;

  const lines = [
    "Hello,",
    "",
    `${author} (${oneLine(mail.authorEmail)}) mentioned you in a comment${about} on a file on Cellar:`,
    "",
    `    ${fileName}`,
    "",
    ...quoted(mail.excerpt),
    "",
    `To read it and reply, sign in to Cellar as ${oneLine(mail.to)} at this address:`,
    "",
    // On a line of its own, so that mail clients make it clickable as a whole.
    mail.fileUrl,
    "",
  ];

  return { from, to: mail.to, subject: `${author} mentioned you on “${fileName}”`, text: lines.join("\n") };
}
