import { SpreadsheetUnreadableError } from "@cellar/core";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { MAX_XML_RUN } from "../limits.js";

export interface XmlHandlers {
  open(name: string, attributes: Readonly<Record<string, string>>): void;
  close(name: string): void;
  text(text: string): void;
  /** Called after each chunk of the part is parsed: where a consumer may wait (for a stream to drain). */
  afterChunk?(): Promise<void> | void;
}

/** An element's local name: `x:c` and `c` are the same element. */
function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

/**
 * Parses one XML part of a workbook as it streams in, with saxes: no document type (a
 * `<!DOCTYPE` is refused, so no entity of the file's own is ever expanded; saxes knows
 * only XML's five and character references), every text and tag bounded by MAX_XML_RUN.
 * Element names reach the handlers without their namespace prefix.
 */
export async function parseXmlPart(
  bytes: AsyncIterable<Uint8Array>,
  part: string,
  handlers: XmlHandlers,
): Promise<void> {
  const parser = new SaxesParser({ position: false, xmlns: false });
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
  };
  parser.on("doctype", () =>
    fail(new SpreadsheetUnreadableError(`${part} declares a document type, which Cellar refuses.`)),
  );
  parser.on("error", (error) =>
    fail(new SpreadsheetUnreadableError(`${part} is not well-formed XML (${error.message.slice(0, 200)}).`)),
  );
  parser.on("opentag", (tag: SaxesTagPlain) => {
    if (failure === undefined) handlers.open(localName(tag.name), tag.attributes);
  });
  parser.on("closetag", (tag: SaxesTagPlain) => {
    if (failure === undefined) handlers.close(localName(tag.name));
  });
  parser.on("text", (text) => {
    if (failure === undefined) handlers.text(text);
  });
  const decoder = new TextDecoder("utf-8");
  let sinceOpen = 0;
  let sinceClose = 0;
  const guard = (text: string) => {
    const open = text.lastIndexOf("<");
    const close = text.lastIndexOf(">");
    sinceOpen = open === -1 ? sinceOpen + text.length : text.length - open;
    sinceClose = close === -1 ? sinceClose + text.length : text.length - close;
    if (sinceOpen > MAX_XML_RUN || sinceClose > MAX_XML_RUN) {
      throw new SpreadsheetUnreadableError(`${part} holds a text or tag longer than ${MAX_XML_RUN} characters.`);
    }
  };
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    guard(text);
    parser.write(text);
    if (failure !== undefined) throw failure;
    await handlers.afterChunk?.();
  }
  const rest = decoder.decode();
  guard(rest);
  parser.write(rest);
  parser.close();
  if (failure !== undefined) throw failure;
}
