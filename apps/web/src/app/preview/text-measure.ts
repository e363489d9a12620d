/** Widths kept per font: more than a few screenfuls of distinct texts, dropped all at once past it. */
const KEPT_WIDTHS = 20_000;

/**
 * Text widths in the grid's font, measured on a canvas: the grid decides from them where
 * text spills over and what does not fit, without laying out the page to find out.
 */
export class TextMeasure {
  private readonly context: CanvasRenderingContext2D | null;
  private readonly widths = new Map<string, number>();
  private font = "";

  constructor() {
    this.context = typeof document === "undefined" ? null : document.createElement("canvas").getContext("2d");
  }

  /** Measures in the font an element is drawn in (bold when asked), from then on. */
  use(element: Element): void {
    const style = getComputedStyle(element);
    const font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    if (font === this.font) return;
    this.font = font;
    this.widths.clear();
  }

  /** The width of `text` in px; bold as the header row of a CSV is drawn. */
  width(text: string, bold = false): number {
    const key = bold ? `b${text}` : `n${text}`;
    let width = this.widths.get(key);
    if (width === undefined) {
      if (this.context === null) return text.length * 8;
      this.context.font = bold ? this.font.replace(/^(\S+) \S+/, "$1 bold") : this.font;
      width = this.context.measureText(text).width;
      if (this.widths.size >= KEPT_WIDTHS) this.widths.clear();
      this.widths.set(key, width);
    }
    return width;
  }

  /** The widest of the ten digits: what a workbook's column widths count in. */
  digitWidth(): number {
    let widest = 0;
    for (let digit = 0; digit <= 9; digit++) widest = Math.max(widest, this.width(String(digit)));
    return widest;
  }
}
