/** What a sign-in mail must say; how it looks is the mailer's business. */
export interface SignInMail {
  readonly to: string;
  /** `{PUBLIC_URL}/sign-in?token=…`: a secret, never to be logged by anything but a dev mailer. */
  readonly link: string;
  readonly expiresAt: Date;
  readonly validForSeconds: number;
}

/**
 * Sends mail.
 *
 * Guarantee: `sendSignInLink` resolves only once the mail was handed over (to the mail
 * server, or to wherever a dev mailer keeps it) and rejects otherwise, so that the core
 * can withdraw a link that never went out.
 */
export interface Mailer {
  sendSignInLink(mail: SignInMail): Promise<void>;
}
