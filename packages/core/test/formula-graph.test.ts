import { describe, expect, it } from "vitest";
import {
  computeFormulas,
  FormulaGraph,
  type FormulaValue,
  type SheetArea,
  type StoredCells,
  type WorkbookFormula,
} from "../src/index.js";
import { summingEngine } from "./support/summing-engine.js";

const settings = { date1904: false };

/** Stored values by `sheet:row:column`. */
function storedOf(values: Record<string, FormulaValue>): StoredCells & { areasRead: SheetArea[] } {
  const areasRead: SheetArea[] = [];
  return {
    areasRead,
    value: (sheet, row, column) => values[`${sheet}:${row}:${column}`] ?? null,
    area(area) {
      areasRead.push(area);
      const rows: FormulaValue[][] = [];
      for (let row = area.firstRow; row <= Math.min(area.lastRow, 20_000); row++) {
        const line: FormulaValue[] = [];
        for (let column = area.firstColumn; column <= area.lastColumn; column++) {
          line.push(values[`${area.sheet}:${row}:${column}`] ?? null);
        }
        rows.push(line);
      }
      return rows;
    },
  };
}

const formula = (sheet: number, row: number, column: number, text: string): WorkbookFormula => ({
  sheet,
  row,
  column,
  formula: text,
});

function graphOf(formulas: WorkbookFormula[], sheets = ["Data", "Totals"]) {
  const engine = summingEngine();
  return { engine, graph: new FormulaGraph(engine, sheets, [], formulas) };
}

const all = (graph: FormulaGraph) => new Set(graph.nodes.map((node) => node.id));

describe("a workbook's formula graph", () => {
  it("computes each formula after those it reads, across sheets", () => {
    // Written out of order: Totals!A1 reads Data!C1, which reads Data!B1, which reads A1.
    const { graph, engine } = graphOf([
      formula(1, 1, 1, "Data!C1+1"),
      formula(0, 1, 3, "B1+B1"),
      formula(0, 1, 2, "A1+10"),
    ]);
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({ "0:1:1": 5 }), settings });
    expect([...computed.results.entries()].map(([id, value]) => [graph.nodes[id]?.formula, value])).toEqual([
      ["A1+10", 15],
      ["B1+B1", 30],
      ["Data!C1+1", 31],
    ]);
    expect(engine.evaluated).toEqual(["Data!1:2", "Data!1:3", "Totals!1:1"]);
  });

  it("gives a range the results computed inside it", () => {
    const { graph } = graphOf([formula(0, 1, 2, "A1+1"), formula(0, 2, 2, "A2+1"), formula(0, 3, 2, "B1:B2")]);
    const computed = computeFormulas({
      graph,
      targets: all(graph),
      stored: storedOf({ "0:1:1": 1, "0:2:1": 2, "0:3:2": 999 }),
      settings,
    });
    expect(computed.results.get(2)).toBe(5);
  });

  it("tells which formulas a change makes stale, through other formulas and ranges, and no others", () => {
    const { graph } = graphOf([
      formula(0, 1, 3, "A1+B1"), // 0 reads A1
      formula(0, 2, 3, "A2+B2"), // 1 does not
      formula(0, 10, 3, "C1:C2"), // 2 reads 0
      formula(1, 1, 1, "Data!C10+0"), // 3 reads 2
      formula(1, 2, 1, "Data!A1:A1000"), // 4 reads A1 through a long range
    ]);
    expect([...graph.dependentsOf([[0, 1, 1]])].sort()).toEqual([0, 2, 3, 4]);
    expect([...graph.dependentsOf([[0, 2, 2]])].sort()).toEqual([1, 2, 3]);
    expect([...graph.dependentsOf([[0, 5, 5]])]).toEqual([]);
  });

  it("finds cycles, names their cells in order, and computes nothing that reads one", () => {
    const { graph } = graphOf([
      formula(0, 1, 1, "B1+1"), // 0
      formula(0, 1, 2, "C1+1"), // 1
      formula(0, 1, 3, "A1+1"), // 2: A1 → B1 → C1 → A1
      formula(0, 2, 1, "A1+1"), // 3 reads the cycle
      formula(0, 3, 1, "A3+0"), // 4 reads itself
      formula(0, 4, 1, "9+0"), // 5 stands apart
    ]);
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({}), settings });
    expect(computed.cycles.map((cycle) => cycle.map((id) => graph.nodes[id]?.formula))).toEqual(
      expect.arrayContaining([expect.arrayContaining(["B1+1", "C1+1", "A1+1"]), ["A3+0"]]),
    );
    expect([...computed.results.keys()]).toEqual([5]);
    expect([...computed.uncomputed].sort()).toEqual([0, 1, 2, 3, 4]);
  });

  it("computes first what a reference made as a formula computes reaches (INDIRECT), and finds cycles made so", () => {
    const { graph } = graphOf([
      formula(0, 1, 1, "~C1+1"), // 0: reads C1, which reading it does not tell
      formula(0, 1, 3, "B1+10"), // 1
      formula(0, 1, 4, "~C1:C2"), // 2: a rectangle, made as it computes
      formula(0, 2, 3, "B1+1"), // 3
      formula(0, 5, 1, "~B5+1"), // 4: A5 → B5 → A5, a cycle only computing finds
      formula(0, 5, 2, "A5+1"), // 5
      formula(0, 6, 1, "A1+0"), // 6 reads a formula computed out of its turn
    ]);
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({ "0:1:2": 5 }), settings });
    expect(Object.fromEntries([...computed.results].map(([id, value]) => [graph.nodes[id]?.formula, value]))).toEqual({
      "~C1+1": 16,
      "B1+10": 15,
      "~C1:C2": 21,
      "B1+1": 6,
      "A1+0": 16,
    });
    expect(computed.cycles.map((cycle) => cycle.map((id) => graph.nodes[id]?.formula))).toEqual([["~B5+1", "A5+1"]]);
    expect([...computed.uncomputed].sort()).toEqual([4, 5]);
  });

  it("follows a chain 10,000 formulas deep without exhausting the stack", () => {
    const formulas = [formula(0, 1, 2, "A1+1")];
    for (let row = 2; row <= 10_000; row++) formulas.push(formula(0, row, 2, `B${row - 1}+1`));
    const { graph } = graphOf(formulas.reverse());
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({ "0:1:1": 0 }), settings });
    expect(computed.results.get(0)).toBe(10_000);
    expect(graph.dependentsOf([[0, 1, 1]]).size).toBe(10_000);
  });

  it("goes through an area that many formulas read once, not once per formula", () => {
    const formulas: WorkbookFormula[] = [];
    for (let row = 1; row <= 2_000; row++) formulas.push(formula(0, row, 2, `A${row}+1`));
    for (let row = 1; row <= 2_000; row++) formulas.push(formula(0, row, 3, "B1:B2000"));
    const { graph } = graphOf(formulas);
    const started = process.hrtime.bigint();
    const { order, cycles } = graph.order(all(graph));
    expect(cycles).toEqual([]);
    expect(order).toHaveLength(4_000);
    // Every B before any C: the C formulas read all of B.
    expect(Math.max(...order.slice(0, 2_000))).toBeLessThan(2_000);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(30_000);
  });

  it("keeps a formula it cannot compute as stored, and computes one that reads it from the stored result", () => {
    const { graph } = graphOf([formula(0, 1, 2, "NOPE()"), formula(0, 1, 3, "B1+1")]);
    expect(graph.nodes[0]?.unsupported).toEqual(["NOPE"]);
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({ "0:1:2": 41 }), settings });
    expect(computed.uncomputed).toEqual(new Set([0]));
    expect(computed.results.get(1)).toBe(42);
  });

  it("stops at its deadline, leaving the rest uncomputed", () => {
    const formulas: WorkbookFormula[] = [];
    for (let row = 1; row <= 1_000; row++) formulas.push(formula(0, row, 2, `A${row}+1`));
    const { graph } = graphOf(formulas);
    const computed = computeFormulas({ graph, targets: all(graph), stored: storedOf({}), settings, deadline: 0 });
    expect(computed.timedOut).toBe(true);
    expect(computed.uncomputed.size).toBe(1_000);
  });

  it("follows the defined names a formula reads, each resolved once, and keeps one that is not cells uncomputed", () => {
    const engine = summingEngine();
    const read = engine.read.bind(engine);
    // The summing engine reads no names: this one reads these words as names.
    const NAMES = /\b(?:Rate|Ten|Missing)\b/g;
    engine.read = (text, at) => {
      const names = text.match(NAMES) ?? [];
      const reading = read(text.replace(NAMES, "0"), at);
      return reading.ok ? { ok: true, reading: { ...reading.reading, names } } : reading;
    };
    // …and computes Rate as the cell it stands for.
    const evaluate = engine.evaluate.bind(engine);
    engine.evaluate = (text, at, cells, settings) => evaluate(text.replaceAll("Rate", "Data!A1"), at, cells, settings);
    const graph = new FormulaGraph(
      engine,
      ["Data", "Totals"],
      [
        { name: "Rate", sheet: null, refersTo: "=Data!$A$1" },
        { name: "Ten", sheet: null, refersTo: "10" },
      ],
      [
        formula(1, 1, 1, "Rate+1"),
        formula(1, 2, 1, "Rate+Rate"),
        formula(1, 3, 1, "Ten+1"),
        formula(1, 4, 1, "Missing+A1"),
        formula(1, 5, 1, "Nowhere!A1+1"),
        formula(1, 6, 1, "Nowhere!A1:B2"),
      ],
    );
    // Through Rate, and on to what reads Totals!A1 (Rate+1) in its turn.
    expect([...graph.dependentsOf([[0, 1, 1]])].sort()).toEqual([0, 1, 3]);
    expect(graph.nodes.map((node) => node.obstacle)).toEqual([
      null,
      null,
      "the name Ten stands for more than cells",
      null,
      null,
      null,
    ]);
    // A name no one defined reads nothing; nor does a reference to a sheet the workbook lacks.
    expect(graph.nodes[3]?.areas).toEqual([{ sheet: 1, firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 }]);
    expect(graph.nodes[4]?.areas).toEqual([]);
    const computed = computeFormulas({
      graph,
      targets: all(graph),
      stored: storedOf({ "0:1:1": 0.5, "1:3:1": 99 }),
      settings,
    });
    expect(computed.results.get(0)).toBe(1.5);
    expect(computed.results.get(1)).toBe(1);
    // Kept as stored: Cellar cannot compute it.
    expect(computed.results.has(2)).toBe(false);
    // A sheet the workbook lacks reads as #REF!, a cell of it or an area.
    expect(computed.results.get(4)).toEqual({ error: "#REF!" });
    expect(computed.results.get(5)).toEqual({ error: "#REF!" });
  });

  it("finds the readers of a cell among many formulas, areas wide and narrow, and the formulas inside an area", () => {
    const { graph } = graphOf([
      formula(0, 1, 10, "A1+0"), // 0
      formula(0, 2, 10, "A1+A1"), // 1: the same cell twice
      formula(0, 3, 10, "A1+1"), // 2
      formula(0, 4, 10, "B1:B50"), // 3
      formula(0, 5, 10, "B10:B20"), // 4: the same bucket as 3
      formula(0, 6, 10, "A1:H100000"), // 5: too many buckets: a wide area
      formula(0, 7, 10, "C3+0"), // 6
      formula(0, 8, 11, "J1:J3"), // 7: reads formulas 0 to 2
    ]);
    expect(graph.readersOf(0, 1, 1).sort()).toEqual([0, 1, 2, 5]);
    expect(graph.readersOf(0, 15, 2).sort()).toEqual([3, 4, 5]);
    expect(graph.readersOf(0, 90_000, 8)).toEqual([5]);
    expect(graph.readersOf(0, 90_000, 9)).toEqual([]);
    expect(graph.readersOf(1, 1, 1)).toEqual([]);
    // Narrower than the columns holding formulas, and wider.
    expect(graph.formulasIn({ sheet: 0, firstRow: 2, lastRow: 7, firstColumn: 10, lastColumn: 10 })).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
    expect(graph.formulasIn({ sheet: 0, firstRow: 1, lastRow: 8, firstColumn: 1, lastColumn: 16_384 }).sort()).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7,
    ]);
    expect(graph.formulasIn({ sheet: 1, firstRow: 1, lastRow: 8, firstColumn: 1, lastColumn: 20 })).toEqual([]);
    expect([...graph.dependentsOf([[0, 1, 1]])].sort()).toEqual([0, 1, 2, 5, 7]);
  });

  it("resolves defined names of a sheet before the workbook's, and tells a name that is not cells", () => {
    const engine = summingEngine();
    const graph = new FormulaGraph(
      engine,
      ["Data", "Totals"],
      [
        { name: "Rate", sheet: null, refersTo: "Data!$A$1" },
        { name: "Rate", sheet: 1, refersTo: "Data!$A$2" },
        { name: "Ten", sheet: null, refersTo: "10" },
      ],
      [],
    );
    expect(graph.resolveName("rate", 0)).toEqual([
      { sheet: 0, firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 },
    ]);
    expect(graph.resolveName("RATE", 1)).toEqual([
      { sheet: 0, firstRow: 2, lastRow: 2, firstColumn: 1, lastColumn: 1 },
    ]);
    expect(graph.resolveName("Ten", 0)).toBeNull();
    expect(graph.resolveName("Missing", 0)).toBeUndefined();
  });
});
