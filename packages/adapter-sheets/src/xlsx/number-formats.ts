/**
 * The number formats built into every workbook (ECMA-376 §18.8.30), by id, as Excel shows
 * them in English (United States). Some depend on the reader's locale in Excel itself
 * (14, the short date; 22, the short date and time; 5–8 and 42–44, the currency); Cellar
 * gives them these fixed codes. The ids of East Asian formats (27–36, 50–58), which differ
 * between Excel's languages, show as dates, or times for 32, 33, 55 and 56. Any other id
 * without a code of the workbook's own is General.
 */
export const BUILT_IN_FORMATS: ReadonlyMap<number, string> = new Map([
  [0, "General"],
  [1, "0"],
  [2, "0.00"],
  [3, "#,##0"],
  [4, "#,##0.00"],
  [5, '"$"#,##0_);\\("$"#,##0\\)'],
  [6, '"$"#,##0_);[Red]\\("$"#,##0\\)'],
  [7, '"$"#,##0.00_);\\("$"#,##0.00\\)'],
  [8, '"$"#,##0.00_);[Red]\\("$"#,##0.00\\)'],
  [9, "0%"],
  [10, "0.00%"],
  [11, "0.00E+00"],
  [12, "# ?/?"],
  [13, "# ??/??"],
  [14, "m/d/yyyy"],
  [15, "d-mmm-yy"],
  [16, "d-mmm"],
  [17, "mmm-yy"],
  [18, "h:mm AM/PM"],
  [19, "h:mm:ss AM/PM"],
  [20, "h:mm"],
  [21, "h:mm:ss"],
  [22, "m/d/yyyy h:mm"],
  [37, "#,##0_);\\(#,##0\\)"],
  [38, "#,##0_);[Red]\\(#,##0\\)"],
  [39, "#,##0.00_);\\(#,##0.00\\)"],
  [40, "#,##0.00_);[Red]\\(#,##0.00\\)"],
  [41, '_(* #,##0_);_(* \\(#,##0\\);_(* "-"_);_(@_)'],
  [42, '_("$"* #,##0_);_("$"* \\(#,##0\\);_("$"* "-"_);_(@_)'],
  [43, '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)'],
  [44, '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)'],
  [45, "mm:ss"],
  [46, "[h]:mm:ss"],
  [47, "mm:ss.0"],
  [48, "##0.0E+0"],
  [49, "@"],
  ...[27, 28, 29, 30, 31, 34, 35, 36, 50, 51, 52, 53, 54, 57, 58].map((id): [number, string] => [id, "m/d/yyyy"]),
  ...[32, 33, 55, 56].map((id): [number, string] => [id, "h:mm:ss"]),
]);

/** Whether a code is General itself: its cells need no reference to it. */
export function isGeneral(code: string): boolean {
  return /^\s*general\s*$/i.test(code);
}

/**
 * The number formats of one workbook's cells, each code once, in the order first used:
 * what the index keeps (`numberFormats`) and the rows blob refers to by position.
 * `styleCodes` holds each cell style's code, null for General.
 */
export function createFormatTable(styleCodes: readonly (string | null)[]) {
  const codes: string[] = [];
  const positions = new Map<string, number>();
  // Per style: its code's position, -1 for General, undefined until first asked.
  const byStyle: (number | undefined)[] = [];
  return {
    codes,
    /** The position of a cell style's format in `codes`, or -1 for General (an unknown style included). */
    positionOf(style: number): number {
      let position = byStyle[style];
      if (position !== undefined) return position;
      const code = styleCodes[style];
      if (code === undefined || code === null) {
        position = -1;
      } else {
        position = positions.get(code);
        if (position === undefined) {
          position = codes.push(code) - 1;
          positions.set(code, position);
        }
      }
      if (style >= 0 && style < styleCodes.length) byStyle[style] = position;
      return position;
    },
  };
}

/** A stored cell's number format: its position in the index's list and, for a date or time read from a serial number, that number. */
export interface CellFormat {
  readonly position: number;
  readonly serial?: number;
}
