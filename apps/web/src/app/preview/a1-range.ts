/** An area of a sheet a range names, rows and columns from 1, inclusive; a whole row or column reaches to Infinity. */
export interface Area {
  /** The sheet it names, or null when it names none (the sheet it is read on). */
  readonly sheet: string | null;
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}

/** One end of a range: a cell (`B2`), a column (`B`) or a row (`2`). */
function endOf(text: string): { row: number | null; column: number | null } | null {
  const match = /^\$?([A-Za-z]{0,3})\$?([0-9]{0,7})$/.exec(text.trim());
  if (match === null || (match[1] === "" && match[2] === "")) return null;
  let column = 0;
  for (const letter of (match[1] ?? "").toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  const row = match[2] === "" ? null : Number(match[2]);
  if (row === 0) return null;
  return { row, column: column === 0 ? null : column };
}

/**
 * The area a range in A1 notation names, as the API writes them in events and comments
 * (`Sheet1!B2:C3`, `'Q1 Budget'!B2`, `A:C`, `3:5`, `C7`); null for what is none.
 */
export function parseArea(range: string): Area | null {
  let sheet: string | null = null;
  let rest = range;
  const bang = range.lastIndexOf("!");
  if (bang >= 0) {
    const name = range.slice(0, bang);
    sheet =
      name.startsWith("'") && name.endsWith("'") && name.length >= 2 ? name.slice(1, -1).replaceAll("''", "'") : name;
    rest = range.slice(bang + 1);
  }
  const [first, second, ...more] = rest.split(":");
  if (first === undefined || more.length > 0) return null;
  const start = endOf(first);
  const end = second === undefined ? start : endOf(second);
  if (start === null || end === null) return null;
  const rows = [start.row ?? 1, end.row ?? Number.POSITIVE_INFINITY];
  const columns = [start.column ?? 1, end.column ?? Number.POSITIVE_INFINITY];
  // A lone row or column reaches across the sheet: `3:3` is row 3, `C:C` column C.
  if (start.row === null && end.row === null) rows.splice(0, 2, 1, Number.POSITIVE_INFINITY);
  if (start.column === null && end.column === null) columns.splice(0, 2, 1, Number.POSITIVE_INFINITY);
  return {
    sheet,
    top: Math.min(rows[0] as number, rows[1] as number),
    bottom: Math.max(rows[0] as number, rows[1] as number),
    left: Math.min(columns[0] as number, columns[1] as number),
    right: Math.max(columns[0] as number, columns[1] as number),
  };
}

/** Whether an area is on `sheet`: one naming no sheet is on `first` (the sheet a bare range means). */
export function onSheet(area: Area, sheet: string, first: string): boolean {
  return area.sheet === null ? sheet === first : area.sheet === sheet;
}
