/** An attribute of a start tag: its namespace URI ("" when unprefixed), local name and decoded value. */
export interface XmlAttribute {
  readonly namespace: string;
  readonly name: string;
  readonly value: string;
  /** Where its text begins in the document (at the whitespace before it) and ends: removing that span removes it. */
  readonly start: number;
  readonly end: number;
}

/**
 * What a reader meets in a document, in order. An element's name is its namespace URI and
 * local name, whatever prefix it was written with; a self-closing tag gives an `open` and a
 * `close` at the same place, so that every `open` has its `close`. `start` and `end` are the
 * offsets of the tag in the document's text, to cut or rewrite it.
 */
export type XmlEvent =
  | {
      readonly kind: "open";
      readonly namespace: string;
      readonly name: string;
      readonly attributes: readonly XmlAttribute[];
      readonly start: number;
      readonly end: number;
    }
  | {
      readonly kind: "close";
      readonly namespace: string;
      readonly name: string;
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: "text"; readonly text: string };

const XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace";
const TAG_NAME = /[^\s/>=]+/y;
const ATTRIBUTE = /\s+([^\s/>=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const TAG_END = /\s*(\/?)>/y;
const REFERENCE = /&(?:#x([0-9a-fA-F]+)|#([0-9]+)|(lt|gt|amp|quot|apos));/g;
const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/**
 * The events of an XML document, read from its text: enough of XML for the parts of an
 * Office Open XML package (namespaces and their prefixes, both quote styles, self-closing
 * tags, character and predefined entity references, CDATA, comments and processing
 * instructions), and nothing more: a document type declaration is refused, as OOXML forbids
 * one. Throws on a tag it cannot read, an unbound prefix or a mismatched end tag.
 */
export function* xmlEvents(xml: string): Generator<XmlEvent> {
  const scopes: ReadonlyMap<string, string>[] = [new Map([["xml", XML_NAMESPACE]])];
  const open: string[] = [];
  let at = 0;
  while (at < xml.length) {
    const lt = xml.indexOf("<", at);
    if (lt === -1) {
      yield { kind: "text", text: decodeText(xml.slice(at)) };
      break;
    }
    if (lt > at) yield { kind: "text", text: decodeText(xml.slice(at, lt)) };
    if (xml.startsWith("<!--", lt)) {
      at = after(xml, "-->", lt);
    } else if (xml.startsWith("<![CDATA[", lt)) {
      at = after(xml, "]]>", lt);
      yield { kind: "text", text: xml.slice(lt + 9, at - 3).replace(/\r\n?/g, "\n") };
    } else if (xml.startsWith("<?", lt)) {
      at = after(xml, "?>", lt);
    } else if (xml.startsWith("<!", lt)) {
      throw new Error(`XML at ${lt}: a document type declaration, which Office Open XML does not allow`);
    } else if (xml[lt + 1] === "/") {
      const gt = xml.indexOf(">", lt);
      if (gt === -1) throw new Error(`XML at ${lt}: an end tag that does not end`);
      const qualified = xml.slice(lt + 2, gt).trim();
      const expected = open.pop();
      if (qualified !== expected) throw new Error(`XML at ${lt}: </${qualified}> closes <${expected ?? "nothing"}>`);
      const scope = scopes.pop() as ReadonlyMap<string, string>;
      yield { kind: "close", ...resolve(qualified, scope, true, lt), start: lt, end: gt + 1 };
      at = gt + 1;
    } else {
      TAG_NAME.lastIndex = lt + 1;
      const qualified = TAG_NAME.exec(xml)?.[0];
      if (qualified === undefined) throw new Error(`XML at ${lt}: a "<" that starts no tag`);
      let position = lt + 1 + qualified.length;
      const written: { qualified: string; value: string; start: number; end: number }[] = [];
      for (;;) {
        ATTRIBUTE.lastIndex = position;
        const attribute = ATTRIBUTE.exec(xml);
        if (attribute === null) break;
        const value = decodeAttribute(attribute[2] ?? attribute[3] ?? "");
        written.push({ qualified: attribute[1] as string, value, start: position, end: ATTRIBUTE.lastIndex });
        position = ATTRIBUTE.lastIndex;
      }
      TAG_END.lastIndex = position;
      const end = TAG_END.exec(xml);
      if (end === null) throw new Error(`XML at ${position}: a malformed start tag <${qualified}`);
      const parent = scopes.at(-1) as ReadonlyMap<string, string>;
      const scope = new Map(parent);
      for (const { qualified: name, value } of written) {
        if (name === "xmlns") scope.set("", value);
        else if (name.startsWith("xmlns:")) scope.set(name.slice(6), value);
      }
      const attributes = written
        .filter(({ qualified: name }) => name !== "xmlns" && !name.startsWith("xmlns:"))
        .map(({ qualified: name, value, start, end }) => ({
          ...resolve(name, scope, false, start),
          value,
          start,
          end,
        }));
      const element = resolve(qualified, scope, true, lt);
      const tagEnd = TAG_END.lastIndex;
      yield { kind: "open", ...element, attributes, start: lt, end: tagEnd };
      if (end[1] === "/") {
        yield { kind: "close", ...element, start: tagEnd, end: tagEnd };
      } else {
        open.push(qualified);
        scopes.push(scope);
      }
      at = tagEnd;
    }
  }
  if (open.length > 0) throw new Error(`XML: <${open.at(-1)}> is never closed`);
}

/** The value of an element's attribute with this local name (unprefixed, unless a namespace is given). */
export function attributeOf(
  event: { readonly attributes: readonly XmlAttribute[] },
  name: string,
  namespace = "",
): XmlAttribute | undefined {
  return event.attributes.find((attribute) => attribute.name === name && attribute.namespace === namespace);
}

function resolve(qualified: string, scope: ReadonlyMap<string, string>, isElement: boolean, at: number) {
  const colon = qualified.indexOf(":");
  if (colon === -1) return { namespace: isElement ? (scope.get("") ?? "") : "", name: qualified };
  const prefix = qualified.slice(0, colon);
  const namespace = scope.get(prefix);
  if (namespace === undefined) throw new Error(`XML at ${at}: the prefix of ${qualified} is not declared`);
  return { namespace, name: qualified.slice(colon + 1) };
}

function after(xml: string, terminator: string, from: number): number {
  const found = xml.indexOf(terminator, from);
  if (found === -1) throw new Error(`XML at ${from}: no "${terminator}" ends what starts here`);
  return found + terminator.length;
}

function decodeText(raw: string): string {
  return decodeReferences(raw.replace(/\r\n?/g, "\n"));
}

/** XML normalises an attribute's literal whitespace to spaces; a character reference keeps its character. */
function decodeAttribute(raw: string): string {
  return decodeReferences(raw.replace(/\r\n?|[\t\n]/g, " "));
}

function decodeReferences(raw: string): string {
  if (!raw.includes("&")) return raw;
  return raw.replace(REFERENCE, (reference, hex?: string, decimal?: string, name?: string) => {
    if (name !== undefined) return NAMED[name] as string;
    const code = hex !== undefined ? Number.parseInt(hex, 16) : Number(decimal);
    return code <= 0x10ffff ? String.fromCodePoint(code) : reference;
  });
}
