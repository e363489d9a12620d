import { simpleParser } from "mailparser";

/**
 * A mail as its reader sees it: the plain-text body, each MIME part decoded by its own
 * Content-Transfer-Encoding. Undoing quoted-printable over the whole raw message instead
 * also rewrites a 7bit part: a link whose token starts with two upper-case hex digits,
 * `token=41xyz…`, reads as `token=Axyz…`, a token that was never issued (about one
 * sign-in in sixty).
 */
export async function mailText(raw: string | Buffer): Promise<string> {
  const parsed = await simpleParser(raw);
  return parsed.text ?? "";
}

/** The sign-in link in a raw message: the one in its plain-text part. */
export async function signInLinkIn(raw: string | Buffer): Promise<URL> {
  const match = /https?:\/\/\S+\/sign-in\?token=[A-Za-z0-9_-]+/.exec(await mailText(raw));
  if (match === null) throw new Error(`No sign-in link in:\n${raw}`);
  return new URL(match[0]);
}
