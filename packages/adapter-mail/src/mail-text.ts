/** Plain-text pieces of the mails Cellar composes, where what people wrote goes in. */

/**
 * Text for a single line: each run of control characters (line breaks included) and of
 * line or paragraph separators becomes one space. Core admits none in a name; this keeps the
 * mail sound whatever it is given.
 */
export function oneLine(value: string): string {
  return value.replace(/[\p{Cc}\u2028\u2029]+/gu, " ");
}

/** A person's own words (a note, a comment), line by line (CRLF, CR or LF), each prefixed "> ", other control characters but tabs made spaces. */
export function quoted(message: string): string[] {
  return message.split(/\r\n|\r|\n|\u2028|\u2029/).map((line) => `> ${line.replace(/[^\P{Cc}\t]/gu, " ")}`.trimEnd());
}
