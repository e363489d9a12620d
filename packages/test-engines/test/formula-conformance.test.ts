import { createFormulaEngine } from "@cellar/adapter-formulas";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { type CorpusFile, formulaConformance, poiCorpus } from "../src/index.js";

const corpus = poiCorpus();
if ("absent" in corpus) console.info(corpus.absent);
const files: CorpusFile[] = "files" in corpus ? corpus.files : [];

/**
 * The share of the corpus's formulas (volatile ones aside) whose result Cellar computes as
 * Excel stored it, at the least: docs/performance.md gives the figure and what misses.
 */
const FLOOR = 0.955;

describe("comparing Cellar's results with a workbook's stored ones", () => {
  it("counts what matches, leaves volatile formulas out, and names the functions of what misses", {
    timeout: 60_000,
  }, async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Sheet1");
    sheet.addRow([2, 3, { formula: "A1*B1", result: 6 }, { formula: "SUM(A1:B1)", result: 5 }]);
    // A stored result no engine computes (Excel's would be 5): a miss, counted against MAX.
    sheet.addRow([
      { formula: "MAX(A1:B1)+2", result: 99 },
      { formula: "RAND()", result: 0.5 },
    ]);
    const bytes = new Uint8Array(await workbook.xlsx.writeBuffer());
    const reader = createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() });
    const report = await formulaConformance(reader, [{ path: "made-here.xlsx", bytes, formulas: 4 }]);
    expect(report).toMatchObject({ compared: 3, matched: 2, excluded: 1, unreadable: [] });
    expect(report.missesByFunction).toEqual([{ name: "MAX", misses: 1 }]);
    expect(report.examples).toEqual([
      { where: "made-here.xlsx Sheet1!A2", formula: "MAX(A1:B1)+2", excel: 99, cellar: 5 },
    ]);
  });
});

describe.skipIf("absent" in corpus)("Cellar's results against Excel's, over the apache/poi corpus", () => {
  it(`computes the workbooks' formulas, their stored results cut, as Excel did for at least ${FLOOR * 100}% of them`, {
    timeout: 600_000,
  }, async () => {
    const reader = createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() });
    const report = await formulaConformance(reader, files);
    console.info(
      `formula conformance: ${report.matched} of ${report.compared} formulas (${(report.share * 100).toFixed(2)}%) as Excel computed them; ${report.excluded} left out (volatile, or no stored result). Most missed: ${report.missesByFunction
        .slice(0, 12)
        .map(({ name, misses }) => `${name} ${misses}`)
        .join(", ")}.`,
    );
    expect(report.unreadable).toEqual([]);
    expect(report.compared).toBeGreaterThan(20_000);
    expect(report.share).toBeGreaterThanOrEqual(FLOOR);
  });
});
