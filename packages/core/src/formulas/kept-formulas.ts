import type { DefinedName, WorkbookFormula } from "./dependency-graph.js";
import type { FormulaValue } from "./formula-values.js";

/**
 * A workbook's formulas as Cellar keeps them beside its bytes, read once at upload: what
 * an edit recomputes from without reading the workbook again.
 */
export interface KeptFormulas {
  /** Every formula cell, sheet by sheet, row by row; a shared formula spelled out for its cell. */
  readonly formulas: readonly WorkbookFormula[];
  /**
   * Parallel to `formulas`: true where the workbook's bytes hold no result for it (Cellar
   * computed it at upload, or could not). The next edit writes those results in.
   */
  readonly unstored: readonly boolean[];
  /**
   * Parallel to `formulas`, where given: the result Cellar computed at upload for a formula
   * the bytes hold none for (undefined where it could not). The next edit writes it in as
   * it is, unless the edit changes what the formula reads: a change of structure leaves
   * every result to compute, and recomputing them all at the next edit made it cost
   * seconds.
   */
  readonly results?: readonly (FormulaValue | undefined)[];
  readonly names: readonly DefinedName[];
  /** False when the workbook holds more formulas than Cellar computes (`COMPUTE_LIMITS`): the list stops short. */
  readonly complete: boolean;
}
