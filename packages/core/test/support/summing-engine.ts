import {
  type CellArea,
  type FormulaEngine,
  FormulaUncomputableError,
  type FormulaValue,
  isFormulaError,
} from "../../src/index.js";

const REFERENCE = /(?:(\w+)!)?\$?([A-Z]{1,3})\$?(\d+)(?::\$?([A-Z]{1,3})\$?(\d+))?/g;

function column(letters: string): number {
  let number = 0;
  for (const letter of letters) number = number * 26 + (letter.charCodeAt(0) - 64);
  return number;
}

/**
 * A formula engine for the graph's tests: a formula is references (`A1`, `B2:C3`,
 * `Other!A1`) and numbers joined by `+`, and gives their sum; `NOPE()` is a function
 * it lacks; `~A1` is a reference made as it computes (as `INDIRECT` makes one), which
 * reading does not tell. The real engine proves itself against core's contract suite.
 */
export function summingEngine(): FormulaEngine & { evaluated: string[] } {
  const evaluated: string[] = [];
  const areasOf = (formula: string, sheet: string): CellArea[] =>
    [...formula.matchAll(REFERENCE)].map((match) => ({
      sheet: match[1] ?? sheet,
      firstRow: Number(match[3]),
      lastRow: Number(match[5] ?? match[3]),
      firstColumn: column(match[2] as string),
      lastColumn: column((match[4] ?? match[2]) as string),
    }));
  return {
    name: "summing",
    evaluated,
    read(formula, at) {
      if (formula.includes("(") && !formula.includes("NOPE()")) return { ok: false, problem: "it does not parse" };
      const unsupported = formula.includes("NOPE()") ? ["NOPE"] : [];
      return {
        ok: true,
        reading: {
          areas: areasOf(formula.replace(/~\S+/g, ""), at.sheet),
          names: [],
          functions: unsupported,
          unsupported,
          obstacle: null,
          volatile: false,
        },
      };
    },
    check(formula, at) {
      const syntax = this.read(formula, at);
      return syntax.ok ? null : syntax.problem;
    },
    evaluate(formula, at, cells) {
      if (formula.includes("NOPE()")) throw new FormulaUncomputableError("Cellar cannot compute NOPE");
      evaluated.push(`${at.sheet}!${at.row}:${at.column}`);
      let sum = 0;
      const add = (value: FormulaValue): FormulaValue | null => {
        if (isFormulaError(value)) return value;
        if (typeof value === "number") sum += value;
        return null;
      };
      for (const area of areasOf(formula.replaceAll("~", ""), at.sheet)) {
        const single = area.firstRow === area.lastRow && area.firstColumn === area.lastColumn;
        const values = single ? [[cells.value(area.sheet, area.firstRow, area.firstColumn)]] : cells.area(area);
        for (const row of values) for (const value of row) if (add(value) !== null) return value;
      }
      for (const number of formula.replaceAll("~", "").replace(REFERENCE, "").split("+"))
        if (number.trim() !== "") sum += Number(number);
      return sum;
    },
    move: (formula) => formula,
    // The graph's tests change no structure.
    restructure: (formula) => formula,
  };
}
