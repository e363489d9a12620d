import type { MentionMail } from "@cellar/core";
import { FILE_URL } from "./invitation-mail.js";

/** A mention as core hands it to a mailer: Ada asks Grace about two cells of her budget. */
export function aMention(overrides: Partial<MentionMail> = {}): MentionMail {
  return {
    to: "grace@example.com",
    fileId: "file_abcdefghijklmnopqrstuvwx",
    fileName: "Budget 2026.xlsx",
    fileUrl: FILE_URL,
    authorName: "Ada Lovelace",
    authorEmail: "ada@example.com",
    excerpt: "@grace@example.com could you check these two?\nThe second looks high.",
    range: "Q3!B2:B3",
    ...overrides,
  };
}
