import {
  type FormulaEngine,
  movedArea,
  type NamedArea,
  STRUCTURE_MAX_COLUMNS,
  STRUCTURE_MAX_ROWS,
  type StructureChange,
  type StructureOperation,
  sameSheet,
} from "@cellar/core";

/** A change of rows or columns, the kind `movedArea` and the positions below take. */
type CellChange = Extract<StructureChange, { readonly at: number }>;

/** A worksheet as the workbook will list them: one it had (`original`, its place among them before), or a new one. */
export interface PlannedSheet {
  readonly original: number | null;
  readonly name: string;
}

/**
 * What a request's operations do to a workbook, worked out once before a byte is written:
 * the worksheets as they end up, and, for each worksheet it had, where its cells go and how
 * its formulas read. Operations apply in order, each to what the ones before left, as
 * `readStructureOperations` checked them.
 */
export class StructurePlan {
  /** The worksheets in their new order, new ones included. */
  readonly sheets: PlannedSheet[];
  /** The changes formulas follow, in order. */
  private readonly changes: StructureChange[] = [];
  /** For each change, each original worksheet's name at that moment. */
  private readonly namesAt: string[][] = [];
  /** Per original worksheet: the changes of its rows and columns, in order. */
  private readonly cellChanges: CellChange[][];

  constructor(
    originalNames: readonly string[],
    operations: readonly StructureOperation[],
    private readonly engine: Pick<FormulaEngine, "restructure" | "move">,
  ) {
    const sheets: { original: number | null; name: string }[] = originalNames.map((name, original) => ({
      original,
      name,
    }));
    this.cellChanges = originalNames.map(() => []);
    const names = [...originalNames];
    const placeOf = (name: string) => sheets.findIndex((sheet) => sameSheet(sheet.name, name));
    for (const operation of operations) {
      switch (operation.kind) {
        case "add_sheet":
          sheets.splice(operation.index ?? sheets.length, 0, { original: null, name: operation.name });
          continue;
        case "move_sheet": {
          const [moved] = sheets.splice(placeOf(operation.sheet), 1);
          if (moved !== undefined) sheets.splice(operation.to, 0, moved);
          continue;
        }
        default:
      }
      this.changes.push(operation);
      this.namesAt.push([...names]);
      const place = placeOf(operation.sheet);
      const sheet = sheets[place];
      if (sheet === undefined) continue;
      if (operation.kind === "rename_sheet") {
        sheet.name = operation.to;
        if (sheet.original !== null) names[sheet.original] = operation.to;
      } else if (operation.kind === "delete_sheet") {
        sheets.splice(place, 1);
      } else if (sheet.original !== null) {
        (this.cellChanges[sheet.original] as CellChange[]).push(operation);
      }
    }
    this.sheets = sheets;
  }

  /** Whether any formula may read differently: rows, columns or a sheet's name changed, or a sheet went. */
  get movesReferences(): boolean {
    return this.changes.length > 0;
  }

  /** Whether the original worksheet `sheet`'s cells move. */
  movesCells(sheet: number): boolean {
    return (this.cellChanges[sheet]?.length ?? 0) > 0;
  }

  /** Whether rows (or columns) of the original worksheet `sheet` are inserted or deleted. */
  changesAlong(sheet: number, along: "rows" | "columns"): boolean {
    return (this.cellChanges[sheet] ?? []).some((change) => change.kind.endsWith(along));
  }

  /** A formula of the original worksheet `sheet` (null for a workbook's name of no sheet: its first), as it reads after every change. */
  formula(text: string, sheet: number | null): string {
    let formula = text;
    for (const [at, change] of this.changes.entries()) {
      const own = (this.namesAt[at] as string[])[sheet ?? 0] ?? "";
      formula = this.engine.restructure(formula, own, change);
    }
    return formula;
  }

  /** A formula copied `rows` down and `columns` right, relative references moved (a shared formula's other cells). */
  moved(text: string, rows: number, columns: number): string {
    return this.engine.move(text, rows, columns);
  }

  /** Where row (or column) `position` of the original worksheet `sheet` goes; null when it is deleted. */
  position(sheet: number, along: "rows" | "columns", position: number): number | null {
    let at: number | null = position;
    for (const change of this.cellChanges[sheet] ?? []) {
      if (!change.kind.endsWith(along)) continue;
      if (change.kind.startsWith("insert")) {
        if (at >= change.at) at += change.count;
      } else if (at >= change.at + change.count) at -= change.count;
      else if (at >= change.at) return null;
      if (at > (along === "rows" ? STRUCTURE_MAX_ROWS : STRUCTURE_MAX_COLUMNS)) return null;
    }
    return at;
  }

  /** A rectangle of the original worksheet `sheet` after its changes: moved, grown or shrunk; null when its cells are gone. */
  area(sheet: number, area: Omit<NamedArea, "sheet">): Omit<NamedArea, "sheet"> | null {
    let moved: NamedArea | null = { ...area, sheet: "" };
    for (const change of this.cellChanges[sheet] ?? []) {
      moved = movedArea({ ...moved, sheet: change.sheet }, change);
      if (moved === null) return null;
    }
    const { sheet: _, ...rest } = moved;
    return rest;
  }
}
