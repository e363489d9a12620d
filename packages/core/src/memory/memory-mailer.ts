import type { InvitationMail, Mailer, SignInMail } from "../auth/mailer.port.js";

export interface MemoryMailer extends Mailer {
  /** Every sign-in mail handed over, oldest first. */
  readonly sent: SignInMail[];
  /** Every invitation handed over, oldest first. */
  readonly invitations: InvitationMail[];
  /** While set, sending fails with this error, as an unreachable mail server would. */
  failure: Error | null;
}

export function createMemoryMailer(): MemoryMailer {
  const mailer: MemoryMailer = {
    sent: [],
    invitations: [],
    failure: null,
    async sendSignInLink(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.sent.push(mail);
    },
    async sendInvitation(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.invitations.push(mail);
    },
  };
  return mailer;
}
