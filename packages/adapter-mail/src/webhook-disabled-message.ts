import type { WebhookDisabledMail } from "@cellar/core";
import { oneLine } from "./mail-text.js";

/** A composed mail: one plain-text part. */
export interface WebhookDisabledMessage {
  readonly from: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

/**
 * Composes the mail telling a webhook's owner that 24 hours of failed deliveries turned it
 * off. Both mailers send exactly this. The URL is the owner's own, flattened to one line.
 */
export function composeWebhookDisabledMessage(input: {
  mail: WebhookDisabledMail;
  from: string;
}): WebhookDisabledMessage {
  const { mail, from } = input;
  const lines = [
    "Hello,",
    "",
    `Cellar could not deliver to your webhook ${mail.hookId} since ${mail.failingSince.toISOString()}, so it was turned off:`,
    "",
    `    ${oneLine(mail.url)}`,
    "",
    "Nothing is sent to it now. What happened meanwhile waits, and is delivered in order once",
    "you turn it on again (PATCH /v1/webhooks/<id> with active: true, or the Account page):",
    "",
    // On a line of its own, so that mail clients make it clickable as a whole.
    mail.accountUrl,
    "",
  ];
  return { from, to: mail.to, subject: "A Cellar webhook was turned off", text: lines.join("\n") };
}
