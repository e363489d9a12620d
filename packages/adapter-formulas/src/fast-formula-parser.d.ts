// fast-formula-parser ships no types: what Cellar uses of it.
declare module "fast-formula-parser" {
  export interface CellRef {
    sheet?: string;
    row: number;
    col: number;
  }
  export interface RangeRef {
    sheet?: string;
    from: { row: number; col: number };
    to: { row: number; col: number };
  }
  export interface FunctionArgument {
    value: unknown;
    isArray: boolean;
    isRangeRef?: boolean;
    isCellRef?: boolean;
    omitted?: boolean;
  }
  export class FormulaError extends Error {
    constructor(error: string, msg?: string, details?: unknown);
    readonly error: string;
    static readonly DIV0: FormulaError;
    static readonly NA: FormulaError;
    static readonly NAME: FormulaError;
    static readonly NULL: FormulaError;
    static readonly NUM: FormulaError;
    static readonly REF: FormulaError;
    static readonly VALUE: FormulaError;
  }
  export default class FormulaParser {
    constructor(config: {
      functions?: Record<string, (...args: FunctionArgument[]) => unknown>;
      onVariable?: (name: string, sheet: string) => CellRef | RangeRef | null;
      onCell?: (ref: Required<CellRef>) => unknown;
      onRange?: (ref: Required<RangeRef>) => unknown[][];
    });
    readonly functions: Record<string, unknown>;
    parse(formula: string, position: { sheet: string; row: number; col: number }, allowReturnArray?: boolean): unknown;
    static readonly FormulaError: typeof FormulaError;
    static readonly DepParser: new (config?: {
      onVariable?: (name: string, sheet: string) => CellRef | RangeRef | null;
    }) => { parse(formula: string, position: { sheet: string; row: number; col: number }): unknown[] };
  }
}

declare module "fast-formula-parser/grammar/lexing.js" {
  export interface LexedToken {
    readonly image: string;
    readonly startOffset: number;
    readonly tokenType: { readonly name: string };
  }
  export function lex(formula: string): { tokens: LexedToken[] };
}
