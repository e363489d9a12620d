import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type Clock,
  type InvitationMail,
  type Mailer,
  type MentionMail,
  type SignInMail,
  systemClock,
  type WebhookDisabledMail,
} from "@cellar/core";
import { composeInvitationMessage } from "./invitation-message.js";
import { composeMentionMessage } from "./mention-message.js";
import { buildPlainTextMail } from "./plain-text-mail.js";
import { composeSignInMessage } from "./sign-in-message.js";
import { composeWebhookDisabledMessage } from "./webhook-disabled-message.js";

/**
 * Where the outbox reports each mail: a message and structured fields. A pino logger fits
 * in one line: `log: (message, fields) => logger.warn(fields, message)`.
 */
export type OutboxLog = (message: string, fields: Record<string, unknown>) => void;

export interface OutboxMailerOptions {
  /** The folder for the `.eml` files, created if missing; the server passes `DATA_DIR/outbox`. */
  readonly dir: string;
  /** The `From` header, e.g. `Cellar <no-reply@localhost>`. */
  readonly from: string;
  /**
   * Receives exactly one line per mail: for a sign-in mail, holding the link; for an
   * invitation or a mention, naming the file.
   */
  readonly log: OutboxLog;
  /**
   * Receives, per sign-in mail, plain text for a person at a terminal: who the link is for, then
   * the link alone on its own line, to copy or click. The server writes it to standard
   * error, beside its JSON log on standard output.
   */
  readonly announce?: (text: string) => void;
  /** Dates the files and their names. @default systemClock */
  readonly clock?: Clock;
}

export interface OutboxMailer extends Mailer {
  /**
   * Resolves once the mail lies complete in the outbox and its line was logged; rejects
   * when the file could not be written, and then logs nothing.
   */
  sendSignInLink(mail: SignInMail): Promise<void>;
  /** Likewise for the mail telling someone a file was shared with them. */
  sendInvitation(mail: InvitationMail): Promise<void>;
  /** Likewise for the mail telling someone they were mentioned in a comment. */
  sendMention(mail: MentionMail): Promise<void>;
  sendWebhookDisabled(mail: WebhookDisabledMail): Promise<void>;
  /** Nothing to release; here so that the server can close either mailer alike. */
  close(): Promise<void>;
}

export const DEV_MODE_LOG_MESSAGE = "DEV MODE (no SMTP_URL set): sign-in mail written to the outbox, not sent";
export const DEV_MODE_INVITATION_LOG_MESSAGE =
  "DEV MODE (no SMTP_URL set): invitation mail written to the outbox, not sent";
export const DEV_MODE_MENTION_LOG_MESSAGE = "DEV MODE (no SMTP_URL set): mention mail written to the outbox, not sent";
export const DEV_MODE_WEBHOOK_LOG_MESSAGE =
  "DEV MODE (no SMTP_URL set): mail of a webhook turned off written to the outbox, not sent";

/**
 * The development mailer, used only when no SMTP server is configured: each mail becomes
 * an RFC 5322 `.eml` file in `dir` (open it in any mail client), and a sign-in mail's link
 * is logged once so that a developer can sign in straight from the terminal. That log line
 * is the only place Cellar ever writes a sign-in link. An invitation or a mention is
 * logged by file and recipient: it holds no secret, and its text is in the file.
 */
export function createOutboxMailer(options: OutboxMailerOptions): OutboxMailer {
  const { dir, from, log, announce } = options;
  const clock = options.clock ?? systemClock;
  // Nodemailer builds the message exactly as it would for SMTP, and hands it back instead
  // of sending it. "windows" makes every line end in CRLF, as RFC 5322 wants: the
  // composed text and HTML use bare LF. Loaded with the first mail, not at start: an
  // idle server sends none, and nodemailer (with the https, zlib and worker modules it
  // pulls in) is about 5 MiB of a server's idle memory (`idle_rss_mib`, docs/performance.md).
  let composer: ReturnType<typeof loadComposer> | undefined;
  const loadComposer = async () =>
    (await import("nodemailer")).createTransport({
      streamTransport: true,
      buffer: true,
      newline: "windows",
      disableFileAccess: true,
      disableUrlAccess: true,
    });

  /** Keeps one message in the outbox and returns its path; rejects when it could not be written whole. */
  async function keep(eml: Buffer, date: Date): Promise<string> {
    // An ISO timestamp sorts by time; the random part keeps two mails in the same
    // millisecond apart. Colons are not allowed in Windows file names.
    const name = `${date.toISOString().replaceAll(":", "-")}-${randomBytes(6).toString("hex")}.eml`;
    const path = join(dir, name);
    // The dot keeps the partial file out of `*.eml` globs; the rename then makes the
    // whole file appear at once, so a reader never sees half of it.
    const temporary = join(dir, `.${name}.tmp`);

    // Owner-only: a sign-in mail holds a working link, an invitation who shares what with
    // whom, a mention what someone wrote.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      await writeFile(temporary, eml, { flag: "wx", mode: 0o600 });
      await rename(temporary, path);
    } catch (error) {
      // Best effort: the write's own error is the one worth reporting.
      await rm(temporary, { force: true }).catch(() => undefined);
      throw error;
    }
    return path;
  }

  return {
    async sendSignInLink(mail) {
      const message = composeSignInMessage({ mail, from });
      const date = clock.now();
      composer ??= loadComposer();
      const { message: eml } = await (await composer).sendMail({
        ...message,
        text: onOneLinePerLine(message.text),
        date,
      });
      // `buffer: true` makes it a Buffer; the check satisfies the type, which allows a stream.
      if (!Buffer.isBuffer(eml)) throw new Error("Nodemailer returned a stream where a buffer was asked for.");
      const path = await keep(eml, date);
      log(DEV_MODE_LOG_MESSAGE, { devMode: true, to: mail.to, link: mail.link, path });
      announce?.(`\nSign-in link for ${mail.to} (dev mode: no SMTP_URL, mail kept in ${path}):\n${mail.link}\n\n`);
    },
    async sendInvitation(mail) {
      const date = clock.now();
      const { raw } = await buildPlainTextMail({ ...composeInvitationMessage({ mail, from }), date });
      const path = await keep(raw, date);
      log(DEV_MODE_INVITATION_LOG_MESSAGE, { devMode: true, to: mail.to, fileId: mail.fileId, path });
    },
    async sendMention(mail) {
      const date = clock.now();
      const { raw } = await buildPlainTextMail({ ...composeMentionMessage({ mail, from }), date });
      const path = await keep(raw, date);
      log(DEV_MODE_MENTION_LOG_MESSAGE, { devMode: true, to: mail.to, fileId: mail.fileId, path });
    },
    async sendWebhookDisabled(mail) {
      const date = clock.now();
      const { raw } = await buildPlainTextMail({ ...composeWebhookDisabledMessage({ mail, from }), date });
      const path = await keep(raw, date);
      log(DEV_MODE_WEBHOOK_LOG_MESSAGE, { devMode: true, to: mail.to, hookId: mail.hookId, path });
    },
    async close() {},
  };
}

/**
 * The text part as it was written, each line whole: ASCII lines of up to 998 characters
 * (RFC 5322's limit) as 7bit, so that the link copied from the `.eml` works. Nodemailer
 * would otherwise pick quoted-printable for any line over 76 characters, which splits the
 * link across lines and writes its `=` as `=3D`. Other text is left to nodemailer.
 */
function onOneLinePerLine(text: string): string | { raw: string } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range is meant.
  if (!/^[\x00-\x7f]*$/.test(text) || text.split("\n").some((line) => line.length > 998)) return text;
  const body = text.replace(/\r?\n/g, "\r\n");
  return { raw: `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n${body}` };
}
