import { typesAsText } from "./cell-input.js";

/** Rows of cell texts, as a copy writes them or a paste reads them. */
export type TextBlock = readonly (readonly string[])[];

// ---------------------------------------------------------------------------------------
// Copy
// ---------------------------------------------------------------------------------------

/** A field that would read as more than one, or as a quoted one, when pasted back. */
const NEEDS_QUOTES = /[\t\r\n"]/;

/**
 * A block as text/plain, as spreadsheet programs write it: fields separated by tabs, a
 * field holding a tab, a line break or a quote in quotes (its quotes doubled). Each row
 * ends with CRLF, as Excel writes it (Excel, LibreOffice and Google Sheets all read it;
 * the last line end keeps a last row of empty cells). One cell is written alone, as
 * Google Sheets does, so that pasting it into a text field adds no line break.
 */
export function toTsv(block: TextBlock): string {
  const field = (text: string) => (NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const lines = block.map((row) => row.map(field).join("\t"));
  if (lines.length === 1 && block[0]?.length === 1) return lines[0] as string;
  return lines.map((line) => `${line}\r\n`).join("");
}

/** Text escaped for HTML, its line breaks as `<br>` that Excel keeps in the cell (without the style it starts a new row). */
function htmlText(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replace(/\r\n?|\n/g, '<br style="mso-data-placement:same-cell">');
}

/**
 * A block as text/html: a plain `<table>`, which LibreOffice, Excel and Google Sheets all
 * paste as cells (each reads a cell's text as if typed). Runs of spaces collapse there as
 * HTML has them; text/plain, written beside it, keeps them.
 */
export function toHtmlTable(block: TextBlock): string {
  const rows = block.map((row) => `<tr>${row.map((text) => `<td>${htmlText(text)}</td>`).join("")}</tr>`);
  return `<meta charset="utf-8"><table><tbody>${rows.join("")}</tbody></table>`;
}

// ---------------------------------------------------------------------------------------
// Paste: text/plain
// ---------------------------------------------------------------------------------------

/**
 * Rows and columns copied from a spreadsheet program (text/plain: tab-separated fields,
 * one line a row; a field holding a tab, a line break or a quote comes quoted, its quotes
 * doubled), padded with empty cells to a rectangle.
 */
export function parseClipboard(text: string): string[][] {
  const body = text.replace(/\r?\n$/, "");
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  for (;;) {
    const closing = body[at] === '"' ? closingQuote(body, at) : -1;
    if (closing >= 0) {
      row.push(body.slice(at + 1, closing).replaceAll('""', '"'));
      at = closing + 1;
    } else {
      let end = at;
      while (end < body.length && !"\t\r\n".includes(body[end] as string)) end++;
      row.push(body.slice(at, end));
      at = end;
    }
    if (at >= body.length) break;
    if (body[at] === "\t") {
      at++;
    } else {
      rows.push(row);
      row = [];
      at += body.startsWith("\r\n", at) ? 2 : 1;
    }
  }
  rows.push(row);
  const width = Math.max(...rows.map((each) => each.length));
  return rows.map((each) => [...each, ...new Array<string>(width - each.length).fill("")]);
}

/** Where a quoted field opening at `at` closes: its last quote, before a tab, a line end or the end; -1 when it is not quoted after all. */
function closingQuote(body: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = body.indexOf('"', from);
    if (quote < 0) return -1;
    if (body[quote + 1] === '"') {
      from = quote + 2;
      continue;
    }
    const next = body[quote + 1];
    return next === undefined || next === "\t" || next === "\r" || next === "\n" ? quote : -1;
  }
}

// ---------------------------------------------------------------------------------------
// Paste: text/html
//
// A small tokenizer rather than DOMParser: the tests run in Node (vitest's "node"
// environment, no DOM installed), and the few things a copied table needs (tags and their
// attributes, text, comments, entities) are simple to read. One code path, tested, in the
// browser and in the tests alike.
// ---------------------------------------------------------------------------------------

/** The Latin-1 entities, in the order of their code points from U+00A0. */
const LATIN1_ENTITIES = (
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute " +
  "micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig " +
  "Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash " +
  "Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc " +
  "euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml " +
  "yacute thorn yuml"
).split(" ");

/**
 * The named entities a copied table may hold: the Latin-1 ones (older exports write
 * `&auml;`) and the common punctuation; an unknown one is left as written.
 */
const NAMED_ENTITIES = new Map<string, string>([
  ...LATIN1_ENTITIES.map((name, index): [string, string] => [name, String.fromCharCode(0xa0 + index)]),
  ...Object.entries({
    amp: 38,
    lt: 60,
    gt: 62,
    quot: 34,
    apos: 39,
    OElig: 338,
    oelig: 339,
    Scaron: 352,
    scaron: 353,
    Yuml: 376,
    fnof: 402,
    circ: 710,
    tilde: 732,
    ensp: 8194,
    emsp: 8195,
    thinsp: 8201,
    zwnj: 8204,
    zwj: 8205,
    lrm: 8206,
    rlm: 8207,
    ndash: 8211,
    mdash: 8212,
    lsquo: 8216,
    rsquo: 8217,
    sbquo: 8218,
    ldquo: 8220,
    rdquo: 8221,
    bdquo: 8222,
    dagger: 8224,
    Dagger: 8225,
    bull: 8226,
    hellip: 8230,
    permil: 8240,
    prime: 8242,
    Prime: 8243,
    lsaquo: 8249,
    rsaquo: 8250,
    euro: 8364,
    trade: 8482,
    larr: 8592,
    uarr: 8593,
    rarr: 8594,
    darr: 8595,
    minus: 8722,
    infin: 8734,
    ne: 8800,
    le: 8804,
    ge: 8805,
  }).map(([name, code]): [string, string] => [name, String.fromCharCode(code)]),
]);

/** What HTML reads `&#128;`–`&#159;` as: Windows-1252's characters there, as Windows programs meant them. */
const WINDOWS_1252 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/** A numeric character reference's character, as HTML reads it (U+FFFD for none). */
function referencedCharacter(code: number): string {
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
  if (code >= 0x80 && code <= 0x9f) return String.fromCharCode(WINDOWS_1252[code - 0x80] as number);
  return String.fromCodePoint(code);
}

const ENTITY = /&(?:#([0-9]+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*));/g;

/** Text with its character references (`&amp;`, `&nbsp;`, `&#233;`, `&#xE9;`) read. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(
    ENTITY,
    (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (name !== undefined) return NAMED_ENTITIES.get(name) ?? whole;
      return referencedCharacter(decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? "", 16));
    },
  );
}

type HtmlToken =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "start"; readonly name: string; readonly attributes: ReadonlyMap<string, string> }
  | { readonly type: "end"; readonly name: string };

/** Elements whose content is not markup: skipped whole (a `<style>` may hold `<` in its text). */
const RAW_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"]);

const isSpace = (char: string | undefined) =>
  char === " " || char === "\t" || char === "\n" || char === "\r" || char === "\f";
const isLetter = (char: string | undefined) => char !== undefined && /[A-Za-z]/.test(char);

/** A start or end tag opening at `open` (its `<`): the token, and where the text after it starts. */
function readTag(html: string, open: number): { token: HtmlToken; next: number } {
  const length = html.length;
  let at = open + 1;
  const end = html[at] === "/";
  if (end) at++;
  let nameEnd = at;
  while (nameEnd < length && !isSpace(html[nameEnd]) && html[nameEnd] !== "/" && html[nameEnd] !== ">") nameEnd++;
  const name = html.slice(at, nameEnd).toLowerCase();
  at = nameEnd;
  const attributes = new Map<string, string>();
  for (;;) {
    while (at < length && (isSpace(html[at]) || html[at] === "/")) at++;
    if (at >= length) break;
    if (html[at] === ">") {
      at++;
      break;
    }
    // An attribute's name runs to a space, `/`, `>` or `=` (its first character may be any).
    let attributeEnd = at + 1;
    while (attributeEnd < length && !isSpace(html[attributeEnd]) && !"/>=".includes(html[attributeEnd] as string)) {
      attributeEnd++;
    }
    const attribute = html.slice(at, attributeEnd).toLowerCase();
    at = attributeEnd;
    while (at < length && isSpace(html[at])) at++;
    let value = "";
    if (html[at] === "=") {
      at++;
      while (at < length && isSpace(html[at])) at++;
      const quote = html[at];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, at + 1);
        value = html.slice(at + 1, close < 0 ? length : close);
        at = close < 0 ? length : close + 1;
      } else {
        let valueEnd = at;
        while (valueEnd < length && !isSpace(html[valueEnd]) && html[valueEnd] !== ">") valueEnd++;
        value = html.slice(at, valueEnd);
        at = valueEnd;
      }
    }
    // As HTML has it, the first of a repeated attribute counts.
    if (!attributes.has(attribute)) attributes.set(attribute, decodeEntities(value));
  }
  return { token: end ? { type: "end", name } : { type: "start", name, attributes }, next: at };
}

/**
 * HTML's tokens, as a browser reads them: text (its references read), start tags with
 * their attributes, end tags. Comments (`<!--StartFragment-->`, Excel's `<!--[if gte mso
 * 9]>…<![endif]-->`), doctypes, `<![if …]>` and `<?xml …?>` are passed over; so is the
 * content of `<style>` and `<script>`, and of Excel's `<![if supportMisalignedColumns]>`.
 */
function* htmlTokens(html: string): Generator<HtmlToken> {
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open < 0) {
      yield { type: "text", text: decodeEntities(html.slice(at)) };
      return;
    }
    if (open > at) yield { type: "text", text: decodeEntities(html.slice(at, open)) };
    const next = html[open + 1];
    if (html.startsWith("<!--", open)) {
      // Searched from the `--` it opens with, so that `<!-->` is a whole (empty) comment, as HTML reads it.
      const close = html.indexOf("-->", open + 2);
      at = close < 0 ? html.length : close + 3;
    } else if (isLetter(next) || (next === "/" && isLetter(html[open + 2]))) {
      const { token, next: after } = readTag(html, open);
      yield token;
      at = after;
      if (token.type === "start" && RAW_TEXT.has(token.name)) {
        const closing = new RegExp(`</${token.name}[\\s/>]`, "ig");
        closing.lastIndex = at;
        at = closing.exec(html)?.index ?? html.length;
      }
    } else if (next === "!" || next === "?" || next === "/") {
      // What HTML calls a bogus comment: to the next `>`.
      const close = html.indexOf(">", open + 2);
      at = close < 0 ? html.length : close + 1;
      // Excel's hidden row of empty cells that sets its columns' widths, for Office alone:
      // a browser shows it as a row, which a paste would write as empty cells.
      if (/^<!\[if\s+supportMisalignedColumns\s*\]>$/i.test(html.slice(open, at))) {
        const endif = html.slice(at).search(/<!\[endif\s*\]>/i);
        if (endif >= 0) at += endif;
      }
    } else {
      yield { type: "text", text: "<" };
      at = open + 1;
    }
  }
}

/** A line break within a cell (`<br>`), and the edge of a block (`<p>`, `<div>`), which breaks a line only between text. */
const LINE_BREAK = Symbol("line break");
const BLOCK_EDGE = Symbol("block edge");
type Piece = string | typeof LINE_BREAK | typeof BLOCK_EDGE;

const BLOCKS = new Set([
  "p",
  "div",
  "li",
  "ul",
  "ol",
  "dl",
  "dt",
  "dd",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "pre",
  "blockquote",
  "hr",
  "tr",
  "table",
]);

/** HTML's white space, which collapses (not the no-break space). */
const COLLAPSIBLE = /[ \t\n\r\f]+/g;
const HAS_TEXT = /[^ \t\n\r\f]/;

/**
 * A cell's text as a browser shows it: white space collapsed and trimmed at each line's
 * ends, `<br>` a line break (a last one adds no line), blocks on lines of their own. A
 * no-break space is a space, as typed; a cell of spaces alone is empty.
 */
function cellText(pieces: readonly Piece[]): string {
  const lines = [""];
  let edge = false;
  let endsInBreak = false;
  for (const piece of pieces) {
    if (piece === LINE_BREAK) {
      lines.push("");
      edge = false;
      endsInBreak = true;
    } else if (piece === BLOCK_EDGE) {
      edge = true;
    } else if (HAS_TEXT.test(piece)) {
      if (edge && HAS_TEXT.test(lines[lines.length - 1] as string)) lines.push("");
      lines[lines.length - 1] += piece;
      edge = false;
      endsInBreak = false;
    } else {
      lines[lines.length - 1] += piece;
    }
  }
  if (endsInBreak) lines.pop();
  const text = lines
    .map((line) => line.replace(COLLAPSIBLE, " ").replace(/^ | $/g, ""))
    .join("\n")
    .replaceAll("\u00a0", " ");
  return text.trim() === "" ? "" : text;
}

/** A cell as read from a copied table, before spans are laid out. */
interface TableCell {
  readonly text: string;
  readonly attributes: ReadonlyMap<string, string>;
  readonly columns: number;
  readonly rows: number;
}

/** A span attribute's count: HTML's limits (1–1000 columns, up to 65534 rows), 0 rows meaning to the table's end. */
function spanOf(text: string | undefined, most: number, zero: number): number {
  const count = Number.parseInt(text ?? "", 10);
  if (Number.isNaN(count) || count < 0) return 1;
  if (count === 0) return zero;
  return Math.min(count, most);
}

/** A number an attribute declares (`1234.5`, `1.2E+3`), or undefined. */
function numberIn(text: string | undefined): number | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** What a copying program says a cell holds, beside the text it shows. */
type Declared = { readonly kind: "number"; readonly value: number } | { readonly kind: "text" } | undefined;

/**
 * What a cell holds, as its program marks it: LibreOffice's `sdval` (a number's value;
 * a cell without one holds text), Excel's `x:num="…"` (the value, when the cell shows it
 * otherwise) and `x:str` (text), Google Sheets' `data-sheets-value` (`{"1":2,"2":text}`,
 * `{"1":3,"3":number}`).
 */
function declaredValue(attributes: ReadonlyMap<string, string>, libreOffice: boolean): Declared {
  const libreOfficeValue = numberIn(attributes.get("sdval"));
  if (libreOfficeValue !== undefined) return { kind: "number", value: libreOfficeValue };
  const excelValue = numberIn(attributes.get("x:num"));
  if (excelValue !== undefined) return { kind: "number", value: excelValue };
  if (attributes.has("x:num")) return undefined;
  if (attributes.has("x:str")) return { kind: "text" };
  const sheets = attributes.get("data-sheets-value");
  if (sheets !== undefined) {
    try {
      const value: unknown = JSON.parse(sheets);
      if (typeof value === "object" && value !== null) {
        const fields = value as Record<string, unknown>;
        if (fields["1"] === 2) return { kind: "text" };
        if (fields["1"] === 3 && typeof fields["3"] === "number") return { kind: "number", value: fields["3"] };
      }
    } catch {
      // Not Google's JSON after all: the shown text is all there is.
    }
    return undefined;
  }
  return libreOffice && !attributes.has("sdval") ? { kind: "text" } : undefined;
}

/** Whether text typed into a cell is read as a number, a date, a time or a boolean (not as text). */
function typesAsValue(text: string): boolean {
  return text.trim() !== "" && !text.startsWith("'") && !text.startsWith("=") && !typesAsText(text);
}

/**
 * Whether a number's shown text has its digits: `3,20 €` for 3.2, `(1,234.50)` for
 * −1234.5, `12,5 %` for 0.125, `2,68` for 2.675 (the last digit rounded). Not a date's
 * (`31.01.2026` for 46053) nor a time's.
 */
function showsDigitsOf(shown: string, value: number): boolean {
  const digits = shown.replace(/[^0-9]/g, "").replace(/^0+/, "");
  const shownNumber = digits === "" ? 0 : Number(digits);
  const size = Math.abs(value);
  for (let power = -20; power <= 20; power++) {
    if (Math.abs(size * 10 ** power - shownNumber) < 1) return true;
  }
  return false;
}

/**
 * What a pasted cell types, given what it shows and what its program says it holds.
 *
 * The shown text, as a person would type it, so that `1,234.50`, `12.5%`, `$1,200`,
 * `01/31/26` and `TRUE` keep their meaning and their format — except:
 * - a number whose shown text would not type as one (`3,20 €` in a German format,
 *   `(1,234.50)`, `1 234`, `12 kg`, an accounting `-` for zero) pastes as its value, when
 *   the shown text has the value's digits, or none at all;
 * - a cell marked as text (Excel's `x:str`, Google's text, LibreOffice's cells without a
 *   value) that would type as something else (`00123`, `=not a formula`) gets a `'`, so
 *   that it stays text, as it does when pasted into the program it came from.
 * A date in a format that does not type as one (`31.01.2026`) keeps its shown text: better
 * a text one can read than a day's serial number.
 */
function typedCell(shown: string, declared: Declared): string {
  if (declared === undefined || shown === "") {
    return declared?.kind === "number" ? String(declared.value) : shown;
  }
  if (declared.kind === "text") return typesAsText(shown) ? shown : `'${shown}`;
  if (typesAsValue(shown)) return shown;
  const wordy = /\p{L}/u.test(shown);
  const digitless = !/[0-9]/.test(shown);
  if ((digitless && !wordy) || (!digitless && showsDigitsOf(shown, declared.value))) return String(declared.value);
  return shown;
}

/** Whether a `<meta name="generator">` names LibreOffice (or its forebears), whose cells without `sdval` are text. */
function generatorIsLibreOffice(attributes: ReadonlyMap<string, string>): boolean {
  return (
    attributes.get("name")?.toLowerCase() === "generator" &&
    /libreoffice|openoffice|staroffice/i.test(attributes.get("content") ?? "")
  );
}

/**
 * The cells of the first table in HTML copied from a spreadsheet program (LibreOffice
 * Calc, Excel, Google Sheets, a web page), as texts to type into cells with
 * `input: "user"`; null when it holds no table (then text/plain is read instead).
 *
 * Read as a browser shows the table: a merged cell's (`colspan`, `rowspan`) other cells
 * are empty, so the block stays rectangular; `<br>` is a line break; white space collapses;
 * entities are read; comments and `<style>` are passed over, so Excel's
 * `<!--StartFragment-->` and Google's `<google-sheets-html-origin>` wrapper are no
 * trouble. Which text a cell types (its shown text or its value): see `typedCell`.
 */
export function parseHtmlTable(html: string): string[][] | null {
  const rows: TableCell[][] = [];
  let row: TableCell[] | null = null;
  let cell: { pieces: Piece[]; attributes: ReadonlyMap<string, string> } | null = null;
  let depth = 0;
  let found = false;
  let caption = false;
  let libreOffice = false;

  const closeCell = () => {
    if (cell === null) return;
    const { attributes } = cell;
    row ??= [];
    row.push({
      text: cellText(cell.pieces),
      attributes,
      columns: spanOf(attributes.get("colspan"), 1000, 1),
      rows: spanOf(attributes.get("rowspan"), 65_534, 0),
    });
    cell = null;
  };
  const closeRow = () => {
    closeCell();
    if (row !== null) rows.push(row);
    row = null;
  };

  for (const token of htmlTokens(html)) {
    if (token.type === "start" && token.name === "meta" && generatorIsLibreOffice(token.attributes)) libreOffice = true;
    if (token.type !== "text" && token.name === "table") {
      // Only the first table is read; one inside a cell is that cell's text.
      if (token.type === "start") {
        if (depth === 0 && found) break;
        depth++;
        found = true;
      } else if (depth > 0) {
        depth--;
        if (depth === 0) break;
      }
      if (depth >= 1 && (token.type === "end" || depth > 1)) cell?.pieces.push(BLOCK_EDGE);
      continue;
    }
    if (depth === 0) continue;
    const name = token.type === "text" ? "" : token.name;
    if (depth === 1 && token.type !== "text") {
      if (name === "caption") caption = token.type === "start";
      if (token.type === "start" && (name === "td" || name === "th")) {
        closeCell();
        cell = { pieces: [], attributes: token.attributes };
        row ??= [];
        continue;
      }
      if (name === "td" || name === "th") {
        closeCell();
        continue;
      }
      if (name === "tr" || name === "tbody" || name === "thead" || name === "tfoot") {
        closeRow();
        if (token.type === "start" && name === "tr") row = [];
        continue;
      }
    }
    if (cell === null || caption) continue;
    if (token.type === "text") cell.pieces.push(token.text);
    else if (name === "br") cell.pieces.push(LINE_BREAK);
    else if (BLOCKS.has(name)) cell.pieces.push(BLOCK_EDGE);
    else if (token.type === "start" && (name === "td" || name === "th")) cell.pieces.push(" ");
  }
  closeRow();
  if (!found) return null;

  libreOffice ||= rows.some((cells) =>
    cells.some((each) => each.attributes.has("sdval") || each.attributes.has("sdnum")),
  );
  return layOut(rows, libreOffice);
}

/** Cells placed by their spans, as HTML's table model places them, a merged cell's others empty; null for no cells. */
function layOut(rows: readonly TableCell[][], libreOffice: boolean): string[][] | null {
  const grid: (string | undefined)[][] = rows.map(() => []);
  rows.forEach((cells, top) => {
    const line = grid[top] as (string | undefined)[];
    let left = 0;
    for (const cell of cells) {
      while (line[left] !== undefined) left++;
      // A span past the table's last row is cut short, as HTML cuts it.
      const bottom = Math.min(top + (cell.rows === 0 ? rows.length : cell.rows), rows.length);
      for (let at = top; at < bottom; at++) {
        const spanned = grid[at] as (string | undefined)[];
        for (let column = left; column < left + cell.columns; column++) spanned[column] ??= "";
      }
      line[left] = typedCell(cell.text, declaredValue(cell.attributes, libreOffice));
      left += cell.columns;
    }
  });
  const width = Math.max(0, ...grid.map((line) => line.length));
  if (width === 0) return null;
  return grid.map((line) => Array.from({ length: width }, (_, column) => line[column] ?? ""));
}
