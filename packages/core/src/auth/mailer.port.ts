import type { Role } from "../people/role.js";

/** What a sign-in mail must say; how it looks is the mailer's business. */
export interface SignInMail {
  readonly to: string;
  /** `{PUBLIC_URL}/sign-in?token=…`: a secret, never to be logged by anything but a dev mailer. */
  readonly link: string;
  readonly expiresAt: Date;
  readonly validForSeconds: number;
}

/**
 * What the mail telling someone a file was shared with them must say. It holds no secret:
 * the link is the file's page, which asks whoever opens it to sign in.
 */
export interface InvitationMail {
  readonly to: string;
  readonly fileId: string;
  readonly fileName: string;
  /** `{PUBLIC_URL}/files/<id>`. */
  readonly fileUrl: string;
  /** Who shares it: the file's owner. */
  readonly ownerName: string;
  readonly ownerEmail: string;
  readonly role: Role;
  /** The owner's own note, or null. Their words, to be shown as plain text, never as markup. */
  readonly message: string | null;
}

/**
 * What the mail telling someone they were mentioned in a comment (`@their@address`) must
 * say. It holds no secret: the link is the file's page.
 */
export interface MentionMail {
  readonly to: string;
  readonly fileId: string;
  readonly fileName: string;
  /** `{PUBLIC_URL}/files/<id>`. */
  readonly fileUrl: string;
  /** Who wrote the comment. */
  readonly authorName: string;
  readonly authorEmail: string;
  /** The comment's text, or its first 1,000 characters and "…". Their words, to be shown as plain text. */
  readonly excerpt: string;
  /** The cells its thread is about (A1 notation), or null for the file as a whole. */
  readonly range: string | null;
}

/**
 * What the mail telling a webhook's owner that it was turned off must say: 24 hours of
 * failed deliveries (decisions §10). It holds no secret.
 */
export interface WebhookDisabledMail {
  readonly to: string;
  readonly hookId: string;
  readonly url: string;
  /** Since when every attempt failed. */
  readonly failingSince: Date;
  /** `{PUBLIC_URL}/account`: where it is turned on again. */
  readonly accountUrl: string;
}

/**
 * Sends mail.
 *
 * Guarantees:
 * - `sendSignInLink` resolves only once the mail was handed over (to the mail server, or
 *   to wherever a dev mailer keeps it) and rejects otherwise, so that the core can
 *   withdraw a link that never went out;
 * - `sendInvitation` likewise resolves only once the mail was handed over, and rejects
 *   otherwise, so that the core can say whether the person was told. Its body is plain
 *   text: the owner's message and the file's name are never read as HTML;
 * - `sendMention` likewise, for a mention in a comment: plain text, the comment never
 *   read as HTML;
 * - `sendWebhookDisabled` likewise, for a webhook turned off: plain text.
 */
export interface Mailer {
  sendSignInLink(mail: SignInMail): Promise<void>;
  sendInvitation(mail: InvitationMail): Promise<void>;
  sendMention(mail: MentionMail): Promise<void>;
  sendWebhookDisabled(mail: WebhookDisabledMail): Promise<void>;
}
