import type { InvitationMail, Role } from "@cellar/core";
import { oneLine, quoted } from "./mail-text.js";

/** A composed invitation: one plain-text part, no HTML, so nothing the owner wrote is ever read as markup. */
export interface InvitationMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/** What each role lets its holder do, in the words of the mail. */
const ROLE_ABILITIES: Readonly<Record<Role, string>> = {
  viewer: "You can view and download it.",
  commenter: "You can view, download and comment on it.",
  editor: "You can view, download, comment on and edit it.",
};

const ARTICLES: Readonly<Record<Role, string>> = { viewer: "a viewer", commenter: "a commenter", editor: "an editor" };

/**
 * Composes the mail telling someone a file was shared with them. Both mailers send
 * exactly this. It holds no secret: the link is the file's page, where the reader signs
 * in as usual.
 *
 * Names go into the subject flattened to one line (nodemailer then encodes the header),
 * so that a name can never end the subject and start a header of its own. The owner's
 * note keeps its lines, each quoted with "> ": it reads as theirs, and none of its lines
 * can pass for the mail's own text or stand alone as the link.
 */
export function composeInvitationMessage(input: { mail: InvitationMail; from: string }): InvitationMessage {
  const { mail, from } = input;
  const owner = oneLine(mail.ownerName);
  const ownerEmail = oneLine(mail.ownerEmail);
  const fileName = oneLine(mail.fileName);

  const lines = [
    "Hello,",
    "",
    `${owner} (${ownerEmail}) shared a file with you on Cellar:`,
    "",
    `    ${fileName}`,
    "",
    `You are ${ARTICLES[mail.role]} of it. ${ROLE_ABILITIES[mail.role]}`,
    "",
  ];
  if (mail.message !== null) {
    lines.push(`${owner} wrote:`, "", ...quoted(mail.message), "");
  }
  lines.push(
    `To open it, sign in to Cellar as ${oneLine(mail.to)} at this address:`,
    "",
    // On a line of its own, so that mail clients make it clickable as a whole.
    mail.fileUrl,
    "",
    `If you do not know ${owner}, you can ignore this mail.`,
    "",
  );

  return { from, to: mail.to, subject: `${owner} shared “${fileName}” with you`, text: lines.join("\n") };
}
