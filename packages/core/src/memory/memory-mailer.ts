import type { Mailer, SignInMail } from "../auth/mailer.port.js";

export interface MemoryMailer extends Mailer {
  /** Every mail handed over, oldest first. */
  readonly sent: SignInMail[];
  /** While set, sending fails with this error, as an unreachable mail server would. */
  failure: Error | null;
}

export function createMemoryMailer(): MemoryMailer {
  const mailer: MemoryMailer = {
    sent: [],
    failure: null,
    async sendSignInLink(mail) {
      if (mailer.failure !== null) throw mailer.failure;
      mailer.sent.push(mail);
    },
  };
  return mailer;
}
