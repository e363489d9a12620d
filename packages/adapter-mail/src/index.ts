/**
 * `@cellar/adapter-mail`: core's `Mailer` port on nodemailer. `createSmtpMailer` sends
 * over SMTP (`SMTP_URL` set); `createOutboxMailer` writes `.eml` files and logs the link
 * (dev mode, `SMTP_URL` unset). Both send the messages `composeSignInMessage`,
 * `composeInvitationMessage` and `composeMentionMessage` compose.
 */
export { composeInvitationMessage, type InvitationMessage } from "./invitation-message.js";
export { composeMentionMessage, type MentionMessage } from "./mention-message.js";
export {
  createOutboxMailer,
  DEV_MODE_INVITATION_LOG_MESSAGE,
  DEV_MODE_LOG_MESSAGE,
  DEV_MODE_MENTION_LOG_MESSAGE,
  DEV_MODE_WEBHOOK_LOG_MESSAGE,
  type OutboxLog,
  type OutboxMailer,
  type OutboxMailerOptions,
} from "./outbox-mailer.js";
export { composeSignInMessage, describeValidity, SIGN_IN_SUBJECT, type SignInMessage } from "./sign-in-message.js";
export { createSmtpMailer, SmtpMailError, type SmtpMailer, type SmtpMailerOptions } from "./smtp-mailer.js";
