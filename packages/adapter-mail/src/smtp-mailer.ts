import type { InvitationMail, Mailer, MentionMail, SignInMail, WebhookDisabledMail } from "@cellar/core";
import type { SendMailOptions } from "nodemailer";
import { composeInvitationMessage } from "./invitation-message.js";
import { composeMentionMessage } from "./mention-message.js";
import { buildPlainTextMail } from "./plain-text-mail.js";
import { composeSignInMessage } from "./sign-in-message.js";
import { composeWebhookDisabledMessage } from "./webhook-disabled-message.js";

export interface SmtpMailerOptions {
  /**
   * Where to send: `smtp://user:pass@host:587` (upgraded with STARTTLS when the server
   * offers it) or `smtps://user:pass@host:465` (TLS from the start). User and password
   * are percent-decoded; query parameters become nodemailer options
   * (`?requireTLS=true`, `?tls.servername=…`), except those that would turn on logging.
   */
  readonly smtpUrl: string;
  /** The `From` header and envelope sender, e.g. `Cellar <no-reply@example.org>`. */
  readonly from: string;
  /**
   * Longest wait, in ms, for the DNS lookup and for the TCP (and, for `smtps`, TLS)
   * connection.
   * @default 5000
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Longest wait, in ms, for the server's greeting once connected.
   * @default 5000
   */
  readonly greetingTimeoutMs?: number;
  /**
   * Longest silence, in ms, on an open connection.
   * @default 10000
   */
  readonly socketTimeoutMs?: number;
}

export interface SmtpMailer extends Mailer {
  /**
   * Resolves once the SMTP server accepted the mail for its recipient; rejects with an
   * `SmtpMailError` otherwise (unreachable server, timeout, failed login, refused sender,
   * recipient or message), or when the mailer was closed.
   */
  sendSignInLink(mail: SignInMail): Promise<void>;
  /** Likewise for the mail telling someone a file was shared with them. */
  sendInvitation(mail: InvitationMail): Promise<void>;
  /** Likewise for the mail telling someone they were mentioned in a comment. */
  sendMention(mail: MentionMail): Promise<void>;
  sendWebhookDisabled(mail: WebhookDisabledMail): Promise<void>;
  /** Releases the transport. Sends started afterwards reject. */
  close(): Promise<void>;
}

/**
 * Why a mail did not go out. Its message never holds a sign-in link or its token, so
 * the error is safe to log. Nodemailer's own error is not kept as `cause`: the server
 * reply it quotes is not under our control.
 */
export class SmtpMailError extends Error {
  override readonly name = "SmtpMailError";
  /**
   * Nodemailer's error code (`ESOCKET`, `ECONNECTION`, `ETIMEDOUT`, `EDNS`, `ETLS`,
   * `EAUTH`, `EENVELOPE`, `EMESSAGE`, …), or `ECLOSED` after `close()`.
   */
  readonly code: string | undefined;
  /** The SMTP reply code, when the server answered with an error. */
  readonly responseCode: number | undefined;
  /** The SMTP step that failed, e.g. `CONN`, `AUTH PLAIN`, `RCPT TO`, `DATA`. */
  readonly command: string | undefined;

  constructor(
    message: string,
    details: { code?: string | undefined; responseCode?: number | undefined; command?: string | undefined } = {},
  ) {
    super(message);
    this.code = details.code;
    this.responseCode = details.responseCode;
    this.command = details.command;
  }
}

const DEFAULT_CONNECTION_TIMEOUT_MS = 5000;
const DEFAULT_GREETING_TIMEOUT_MS = 5000;
const DEFAULT_SOCKET_TIMEOUT_MS = 10_000;

/**
 * The production mailer: hands each mail (a sign-in link, an invitation, a mention) to an SMTP server
 * and reports whether the server took it. It logs nothing, whatever happens.
 *
 * Throws a `TypeError` at once when `smtpUrl` is not an `smtp://` or `smtps://` URL, so
 * that a wrong setting stops start-up instead of failing the first sign-in.
 */
export function createSmtpMailer(options: SmtpMailerOptions): SmtpMailer {
  assertSmtpUrl(options.smtpUrl);
  const connectionTimeout = options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS;
  // Nodemailer is loaded, and the transport made, with the first mail rather than at
  // start: an idle server sends none, and nodemailer is about 5 MiB of its idle memory
  // (`idle_rss_mib`, docs/performance.md). The URL is checked above, at once.
  const loadTransport = async () => {
    const [{ createTransport }, { parseConnectionUrl }] = await Promise.all([
      import("nodemailer"),
      import("nodemailer/lib/shared"),
    ]);
    return createTransport({
      // Nodemailer waits minutes by default; a sign-in request must fail fast instead, so
      // that the user can retry and the unsent link is withdrawn.
      connectionTimeout,
      dnsTimeout: connectionTimeout,
      greetingTimeout: options.greetingTimeoutMs ?? DEFAULT_GREETING_TIMEOUT_MS,
      socketTimeout: options.socketTimeoutMs ?? DEFAULT_SOCKET_TIMEOUT_MS,
      ...parseConnectionUrl(options.smtpUrl),
      // After the URL, so that `?logger=true` or `?debug=true` cannot make nodemailer print
      // the SMTP dialogue, message and link included.
      logger: false,
      debug: false,
      transactionLog: false,
      // One connection per mail: mails are rare, and nothing stays open between them.
      pool: false,
      // The message is plain strings; nothing may make nodemailer read a file or fetch a URL.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  };
  let transport: ReturnType<typeof loadTransport> | undefined;
  let closed = false;

  /** Hands one mail over; `what` names it in errors, which never quote `secret`. */
  async function send(mail: SendMailOptions, what: string, secret: string | null): Promise<void> {
    if (closed) throw new SmtpMailError("The SMTP mailer is closed.", { code: "ECLOSED" });
    let rejected: readonly unknown[];
    try {
      transport ??= loadTransport();
      ({ rejected } = await (await transport).sendMail(mail));
    } catch (error) {
      throw toSmtpMailError(error, what, secret);
    }
    // With a single recipient nodemailer already fails when it is refused; this keeps
    // the port's guarantee should that ever change.
    if (rejected.length > 0) {
      throw new SmtpMailError(`The SMTP server refused the recipient of the ${what}.`, {
        code: "EENVELOPE",
        command: "RCPT TO",
      });
    }
  }

  return {
    async sendSignInLink(mail) {
      await send(composeSignInMessage({ mail, from: options.from }), "sign-in mail", mail.link);
    },
    async sendInvitation(mail) {
      // The same bytes the outbox keeps, sent as they are, with the envelope their headers name.
      const { raw, envelope } = await buildPlainTextMail({
        ...composeInvitationMessage({ mail, from: options.from }),
        date: new Date(),
      });
      await send({ raw, envelope: { from: envelope.from, to: [...envelope.to] } }, "invitation mail", null);
    },
    async sendMention(mail) {
      const { raw, envelope } = await buildPlainTextMail({
        ...composeMentionMessage({ mail, from: options.from }),
        date: new Date(),
      });
      await send({ raw, envelope: { from: envelope.from, to: [...envelope.to] } }, "mention mail", null);
    },
    async sendWebhookDisabled(mail) {
      const { raw, envelope } = await buildPlainTextMail({
        ...composeWebhookDisabledMessage({ mail, from: options.from }),
        date: new Date(),
      });
      await send({ raw, envelope: { from: envelope.from, to: [...envelope.to] } }, "webhook mail", null);
    },
    async close() {
      closed = true;
      // A transport that failed to load has nothing to close.
      (await transport?.catch(() => undefined))?.close();
    },
  };
}

/** The URL may hold a password, and a mistyped one anything: the message quotes none of it. */
function assertSmtpUrl(smtpUrl: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(smtpUrl).protocol;
  } catch {
    // Reported below, with the same message as a URL of the wrong scheme.
  }
  if (protocol !== "smtp:" && protocol !== "smtps:") {
    throw new TypeError("The SMTP URL must have the form smtp://user:pass@host:port or smtps://user:pass@host:port.");
  }
}

/** Nodemailer's error, reduced to what is safe to log: a sign-in link and its token cut out. */
function toSmtpMailError(error: unknown, what: string, secret: string | null): SmtpMailError {
  const source: Record<string, unknown> = typeof error === "object" && error !== null ? { ...error } : {};
  const reason = error instanceof Error ? error.message : String(error);
  const safe = secret === null ? reason : redact(reason, secret);
  return new SmtpMailError(`The ${what} could not be sent over SMTP: ${safe}`, {
    code: typeof source.code === "string" ? source.code : undefined,
    command: typeof source.command === "string" ? source.command : undefined,
    responseCode: typeof source.responseCode === "number" ? source.responseCode : undefined,
  });
}

/** Cuts the link out of a text, whole and as its bare token. */
function redact(text: string, link: string): string {
  const secrets = [link];
  try {
    const token = new URL(link).searchParams.get("token");
    if (token) secrets.push(token, encodeURIComponent(token));
  } catch {
    // Not a URL: the link as a whole is still cut out.
  }
  return secrets.reduce((result, secret) => (secret === "" ? result : result.split(secret).join("[redacted]")), text);
}
