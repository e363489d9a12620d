/**
 * Just enough of a MIME parser to read back what nodemailer wrote: headers, nested
 * multiparts, and quoted-printable or base64 bodies. Nodemailer folds a long link over
 * several quoted-printable lines, so tests must decode before they look for it.
 */

export interface MessagePart {
  /** Header names in lower case, folded values unfolded. */
  readonly headers: ReadonlyMap<string, string>;
  /** The media type alone, lower case, e.g. `text/plain`. */
  readonly contentType: string;
  /** The decoded body of a leaf part; empty for a multipart. */
  readonly body: string;
}

export interface ParsedMessage extends MessagePart {
  /** Every leaf part, depth first; the message itself when it is not multipart. */
  readonly leaves: MessagePart[];
}

export function parseMessage(raw: string): ParsedMessage {
  const root = parsePart(raw);
  return { ...root, leaves: leavesOf(raw) };
}

/** The decoded body of the first leaf of the given media type; throws when there is none. */
export function partOf(message: ParsedMessage, contentType: string): string {
  const part = message.leaves.find((leaf) => leaf.contentType === contentType);
  if (part === undefined) throw new Error(`The message has no ${contentType} part.`);
  return part.body;
}

/** Headers end at the first empty line. */
function splitHeadAndBody(raw: string): { head: string; rawBody: string } {
  const split = /\r?\n\r?\n/.exec(raw);
  if (split === null) return { head: raw, rawBody: "" };
  return { head: raw.slice(0, split.index), rawBody: raw.slice(split.index + split[0].length) };
}

function parsePart(raw: string): MessagePart {
  const { head, rawBody } = splitHeadAndBody(raw);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const contentType = (headers.get("content-type") ?? "text/plain").split(";")[0]?.trim().toLowerCase() ?? "";
  const body = contentType.startsWith("multipart/") ? "" : decode(rawBody, headers.get("content-transfer-encoding"));
  return { headers, contentType, body };
}

function leavesOf(raw: string): MessagePart[] {
  const part = parsePart(raw);
  if (!part.contentType.startsWith("multipart/")) return [part];
  const boundary = /boundary="?([^";]+)"?/i.exec(part.headers.get("content-type") ?? "")?.[1];
  if (boundary === undefined) throw new Error("A multipart without a boundary.");
  const [, ...sections] = splitHeadAndBody(raw).rawBody.split(`--${boundary}`);
  return sections
    .filter((section) => !section.startsWith("--"))
    .flatMap((section) => leavesOf(section.replace(/^\r?\n/, "")));
}

function decode(body: string, encoding = "7bit"): string {
  switch (encoding.toLowerCase()) {
    case "quoted-printable":
      return Buffer.from(
        body
          .replace(/=\r?\n/g, "")
          .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
        "latin1",
      ).toString("utf8");
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    default:
      return body;
  }
}

/** A header value with its RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?utf-8\?([qb])\?([^?]*)\?=/gi, (_match, encoding: string, text: string) =>
      encoding.toLowerCase() === "b"
        ? Buffer.from(text, "base64").toString("utf8")
        : Buffer.from(
            text
              .replace(/_/g, " ")
              .replace(/=([0-9A-F]{2})/gi, (_hex, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
            "latin1",
          ).toString("utf8"),
    );
}
