/**
 * What a formula gives and reads: a number, text, a boolean, nothing (an empty cell), or
 * one of a spreadsheet's error values. Dates and times are serial numbers, as in the
 * workbook's own date system.
 */

/** The error values of a spreadsheet program, as they are written and shown. */
export const FORMULA_ERRORS = ["#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"] as const;

export type FormulaErrorText = (typeof FORMULA_ERRORS)[number];

/** An error value, as a cell holds it (`#DIV/0!`, …). */
export interface FormulaError {
  readonly error: FormulaErrorText;
}

export type FormulaValue = number | string | boolean | null | FormulaError;

const ERRORS = new Map<string, FormulaError>(FORMULA_ERRORS.map((text) => [text, Object.freeze({ error: text })]));

/** The error value written `text`, or null when `text` is not one. */
export function formulaError(text: string): FormulaError | null {
  return ERRORS.get(text.toUpperCase()) ?? null;
}

export function isFormulaError(value: FormulaValue): value is FormulaError {
  return typeof value === "object" && value !== null;
}
