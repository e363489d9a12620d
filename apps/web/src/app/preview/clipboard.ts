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
// Read by the browser's own HTML parser (DOMParser), as it reads a page: end tags left
// out, character references, comments (Excel's `<!--StartFragment-->` and `<!--[if gte mso
// 9]>…<![endif]-->`), `<?xml …?>`, `<style>` and `<script>` are its business. The tests
// run it in happy-dom.
// ---------------------------------------------------------------------------------------

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

/** Elements whose content is no text of their cell: scripts, styles and the like. */
const NOT_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes"]);

/** A cell's pieces, in order: its text, `<br>`s and blocks' edges; a table inside it adds its own cells' texts. */
function addPieces(node: Node, pieces: Piece[]): Piece[] {
  for (const child of node.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) pieces.push(child.nodeValue ?? "");
    if (child.nodeType !== Node.ELEMENT_NODE) continue;
    const name = (child as Element).localName;
    if (name === "br") {
      pieces.push(LINE_BREAK);
    } else if (!NOT_TEXT.has(name)) {
      const block = BLOCKS.has(name);
      if (block) pieces.push(BLOCK_EDGE);
      if (name === "td" || name === "th") pieces.push(" ");
      addPieces(child, pieces);
      if (block) pieces.push(BLOCK_EDGE);
    }
  }
  return pieces;
}

/** Where the HTML parser puts a table's rows (it adds a `<tbody>` where none is written). */
const ROW_GROUPS = new Set(["thead", "tbody", "tfoot"]);

/**
 * A table's own rows, in the order written (not `table.rows`, which happy-dom fills with
 * the rows of a table inside a cell too). Excel's hidden row of empty cells that sets its
 * columns' widths, for Office alone, is left out: it sits between `<![if
 * supportMisalignedColumns]>` and `<![endif]>`, which HTML reads as comments, so a browser
 * shows it as a row, which a paste would write as empty cells.
 */
function rowsOf(table: Element): Element[] {
  const rows: Element[] = [];
  for (const group of table.children) {
    if (!ROW_GROUPS.has(group.localName)) continue;
    let hidden = false;
    for (const node of group.childNodes) {
      if (node.nodeType === Node.COMMENT_NODE) {
        const comment = node.nodeValue ?? "";
        if (/^\[if\s+supportMisalignedColumns\s*\]$/i.test(comment)) hidden = true;
        else if (/^\[endif\s*\]$/i.test(comment)) hidden = false;
      } else if (!hidden && (node as Element).localName === "tr") {
        rows.push(node as Element);
      }
    }
  }
  return rows;
}

/** A cell as read from a copied table, before spans are laid out. */
interface TableCell {
  readonly text: string;
  readonly element: Element;
  readonly columns: number;
  readonly rows: number;
}

/**
 * A span attribute's count: HTML's limits (1–1000 columns, up to 65534 rows), 0 rows
 * meaning to the table's end. Read here rather than by `colSpan` and `rowSpan`, which
 * happy-dom reads otherwise (`rowspan=0` as 1, no limits).
 */
function spanOf(text: string | null, most: number, zero: number): number {
  const count = Number.parseInt(text ?? "", 10);
  if (Number.isNaN(count) || count < 0) return 1;
  if (count === 0) return zero;
  return Math.min(count, most);
}

/** A number an attribute declares (`1234.5`, `1.2E+3`), or undefined. */
function numberIn(text: string | null): number | undefined {
  if (text === null || text.trim() === "") return undefined;
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
function declaredValue(cell: Element, libreOffice: boolean): Declared {
  const libreOfficeValue = numberIn(cell.getAttribute("sdval"));
  if (libreOfficeValue !== undefined) return { kind: "number", value: libreOfficeValue };
  const excelValue = numberIn(cell.getAttribute("x:num"));
  if (excelValue !== undefined) return { kind: "number", value: excelValue };
  if (cell.hasAttribute("x:num")) return undefined;
  if (cell.hasAttribute("x:str")) return { kind: "text" };
  const sheets = cell.getAttribute("data-sheets-value");
  if (sheets !== null) {
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
  return libreOffice && !cell.hasAttribute("sdval") ? { kind: "text" } : undefined;
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
function generatorIsLibreOffice(meta: Element): boolean {
  return (
    meta.getAttribute("name")?.toLowerCase() === "generator" &&
    /libreoffice|openoffice|staroffice/i.test(meta.getAttribute("content") ?? "")
  );
}

/**
 * The cells of the first table in HTML copied from a spreadsheet program (LibreOffice
 * Calc, Excel, Google Sheets, a web page), as texts to type into cells with
 * `input: "user"`; null when it holds no table (then text/plain is read instead).
 *
 * Read as a browser shows the table: a merged cell's (`colspan`, `rowspan`) other cells
 * are empty, so the block stays rectangular; `<br>` is a line break; white space collapses;
 * a caption is no cell; a wrapper around the table (Google's `<google-sheets-html-origin>`)
 * is no trouble. Which text a cell types (its shown text or its value): see `typedCell`.
 */
export function parseHtmlTable(html: string): string[][] | null {
  const page = new DOMParser().parseFromString(html, "text/html");
  const table = page.querySelector("table");
  if (table === null) return null;
  const rows = rowsOf(table).map((row) =>
    // Not `row.cells`, which happy-dom fills with a table's inside a cell too.
    [...row.children]
      .filter((cell) => cell.localName === "td" || cell.localName === "th")
      .map(
        (cell): TableCell => ({
          text: cellText(addPieces(cell, [])),
          element: cell,
          columns: spanOf(cell.getAttribute("colspan"), 1000, 1),
          rows: spanOf(cell.getAttribute("rowspan"), 65_534, 0),
        }),
      ),
  );
  const libreOffice =
    [...page.querySelectorAll("meta")].some(generatorIsLibreOffice) ||
    rows.some((cells) => cells.some(({ element }) => element.hasAttribute("sdval") || element.hasAttribute("sdnum")));
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
      line[left] = typedCell(cell.text, declaredValue(cell.element, libreOffice));
      left += cell.columns;
    }
  });
  const width = Math.max(0, ...grid.map((line) => line.length));
  if (width === 0) return null;
  return grid.map((line) => Array.from({ length: width }, (_, column) => line[column] ?? ""));
}
