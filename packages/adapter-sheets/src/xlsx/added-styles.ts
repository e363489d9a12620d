/** Excel's built-in number formats that typed input asks for, by code (decisions §8). */
const BUILT_IN_IDS: Readonly<Record<string, number>> = { "m/d/yyyy": 14, "h:mm": 20, "m/d/yyyy h:mm": 22 };

/** The cell styles (`cellXfs`) of a styles part, as `<xf>` elements and their number formats. */
interface CellStyles {
  readonly start: number;
  readonly end: number;
  readonly prefix: string;
  readonly elements: readonly string[];
  readonly numberFormats: readonly number[];
}

function cellStylesOf(xml: string): CellStyles | null {
  const open = /<([\w.-]+:)?cellXfs\b[^>]*>/.exec(xml);
  if (open === null || open[0].endsWith("/>")) return null;
  const prefix = open[1] ?? "";
  const close = xml.indexOf(`</${prefix}cellXfs>`, open.index);
  if (close === -1) return null;
  const inner = xml.slice(open.index + open[0].length, close);
  const elements = [
    ...inner.matchAll(new RegExp(`<${prefix}xf\\b[^>]*?/>|<${prefix}xf\\b[^>]*>[\\s\\S]*?</${prefix}xf>`, "g")),
  ].map((match) => match[0]);
  const numberFormats = elements.map((element) => Number(/\snumFmtId\s*=\s*["'](\d+)["']/.exec(element)?.[1] ?? 0));
  return { start: open.index, end: close + `</${prefix}cellXfs>`.length, prefix, elements, numberFormats };
}

/**
 * Styles a write adds to a workbook so that a cell typed as a date shows as one: a copy
 * of the cell's own style (font, fill, borders kept) with the date's built-in number
 * format, made once per style and format, and only for a style that shows General.
 */
export class AddedStyles {
  private readonly styles: CellStyles | null;
  private readonly added = new Map<string, number>();
  private readonly elements: string[] = [];

  constructor(private readonly xml: string | null) {
    this.styles = xml === null ? null : cellStylesOf(xml);
  }

  /** The style a cell of style `style` gets to show `code`: its own when it has a number format (or none can be added). */
  styleFor(style: number, code: string): number {
    const id = BUILT_IN_IDS[code];
    const styles = this.styles;
    if (id === undefined || styles === null) return style;
    if ((styles.numberFormats[style] ?? 0) !== 0) return style;
    const key = `${style}:${id}`;
    const known = this.added.get(key);
    if (known !== undefined) return known;
    const base = styles.elements[style] ?? styles.elements[0] ?? `<${styles.prefix}xf numFmtId="0"/>`;
    const element = base
      .replace(/\snumFmtId\s*=\s*("[^"]*"|'[^']*')/, "")
      .replace(/\sapplyNumberFormat\s*=\s*("[^"]*"|'[^']*')/, "")
      .replace(new RegExp(`^<${styles.prefix}xf\\b`), `<${styles.prefix}xf numFmtId="${id}" applyNumberFormat="1"`);
    const index = styles.elements.length + this.elements.length;
    this.elements.push(element);
    this.added.set(key, index);
    return index;
  }

  /** The styles part with the added styles, or null when none was added. */
  rewritten(): string | null {
    const { styles, xml } = this;
    if (styles === null || xml === null || this.elements.length === 0) return null;
    const list = [...styles.elements, ...this.elements];
    const prefix = styles.prefix;
    const open = /<([\w.-]+:)?cellXfs\b[^>]*>/.exec(xml.slice(styles.start))?.[0] as string;
    const counted = /\scount\s*=/.test(open)
      ? open.replace(/\scount\s*=\s*("[^"]*"|'[^']*')/, ` count="${list.length}"`)
      : open.replace(/>$/, ` count="${list.length}">`);
    return `${xml.slice(0, styles.start)}${counted}${list.join("")}</${prefix}cellXfs>${xml.slice(styles.end)}`;
  }
}
