import type { InvitationMail } from "@cellar/core";

export const FILE_URL = "https://cellar.example.org/files/file_abcdefghijklmnopqrstuvwx";

/** An invitation as core hands it to a mailer: Ada shares her budget with Grace as an editor. */
export function anInvitation(overrides: Partial<InvitationMail> = {}): InvitationMail {
  return {
    to: "grace@example.com",
    fileId: "file_abcdefghijklmnopqrstuvwx",
    fileName: "Budget 2026.xlsx",
    fileUrl: FILE_URL,
    ownerName: "Ada Lovelace",
    ownerEmail: "ada@example.com",
    role: "editor",
    message: "Here are the figures for Q3.\nThe second sheet is the one to check.",
    ...overrides,
  };
}

/** Names and a note that try to add headers of their own: none of it may become one. */
export const INJECTION: Partial<InvitationMail> = {
  ownerName: "Ada\r\nBcc: eve@evil.example",
  fileName: "Budget\nX-Injected: yes.xlsx",
  message: "Hi\r\n\r\nBcc: eve@evil.example\r\nX-Injected: yes",
};
