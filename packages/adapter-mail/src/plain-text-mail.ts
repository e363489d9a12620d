/** A whole message, ready to hand to an SMTP server or keep as an `.eml` file. */
export interface BuiltMail {
  /** RFC 5322 bytes, every line ending in CRLF. */
  readonly raw: Buffer;
  /** Who it is from and to, as the SMTP envelope names them. */
  readonly envelope: { readonly from: string; readonly to: readonly string[] };
}

/** The longest line RFC 5322 allows, CRLF excluded. */
const MAX_LINE_LENGTH = 998;

/**
 * Builds a message of one `text/plain` part. Nodemailer builds and encodes the headers
 * (a subject or name holding a line break is encoded, never read as a header of its own).
 * An ASCII text with no line over 998 characters is sent as written, `7bit`: nodemailer
 * would pick quoted-printable for any line over 76 characters, which splits a long link
 * across lines in the message itself. Other text is left to nodemailer's encoding, which
 * mail clients decode back to the text as written.
 */
export async function buildPlainTextMail(mail: {
  from: string;
  to: string;
  subject: string;
  text: string;
  date: Date;
}): Promise<BuiltMail> {
  // Loaded with the first mail, not at start (see createOutboxMailer): a module is loaded once.
  const { default: MimeNode } = await import("nodemailer/lib/mime-node");
  const node = new MimeNode("text/plain; charset=utf-8", {
    newline: "windows",
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  node.setHeader({ From: mail.from, To: mail.to, Subject: mail.subject, Date: mail.date });
  const envelope = node.getEnvelope();
  if (envelope.from === false) throw new TypeError("The sender of a mail must be an address.");
  const built = { from: envelope.from, to: envelope.to };

  const lines = mail.text.split(/\r\n|\r|\n/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range but NUL is meant.
  if (/^[\x01-\x7f]*$/.test(mail.text) && lines.every((line) => line.length <= MAX_LINE_LENGTH)) {
    // No content is set: the headers are built for an empty part, and the body follows them.
    node.setHeader("Content-Transfer-Encoding", "7bit");
    return { raw: Buffer.from(`${node.buildHeaders()}\r\n\r\n${lines.join("\r\n")}`, "ascii"), envelope: built };
  }
  node.setContent(mail.text);
  return { raw: await node.build(), envelope: built };
}
