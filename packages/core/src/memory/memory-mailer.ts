import type { InvitationMail, Mailer, MentionMail, SignInMail, WebhookDisabledMail } from "../auth/mailer.port.js";

export interface MemoryMailer extends Mailer {
  /** Every sign-in mail handed over, oldest first. */
  readonly sent: SignInMail[];
  /** Every invitation handed over, oldest first. */
  readonly invitations: InvitationMail[];
  /** Every mail telling someone of a mention, oldest first. */
  readonly mentions: MentionMail[];
  /** Every mail telling an owner their webhook was turned off, oldest first. */
  readonly webhooksDisabled: WebhookDisabledMail[];
  /** While set, sending fails with this error, as an unreachable mail server would. */
  failure: Error | null;
}

export function createMemoryMailer(): MemoryMailer {
  const mailer: MemoryMailer = {
    sent: [],
    invitations: [],
    mentions: [],
    webhooksDisabled: [],
    failure: null,
    async sendSignInLink(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.sent.push(mail);
    },
    async sendInvitation(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.invitations.push(mail);
    },
    async sendMention(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.mentions.push(mail);
    },
    async sendWebhookDisabled(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.webhooksDisabled.push(mail);
    },
  };
  return mailer;
}
