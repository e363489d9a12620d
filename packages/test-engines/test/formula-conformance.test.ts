import { createFormulaEngine } from "@cellar/adapter-formulas";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import { describe, expect, it } from "vitest";
import { type CorpusFile, formulaConformance, poiCorpus } from "../src/index.js";

const corpus = poiCorpus();
if ("absent" in corpus) console.info(corpus.absent);
const files: CorpusFile[] = "files" in corpus ? corpus.files : [];

/**
 * The share of the corpus's formulas (volatile ones aside) whose result Cellar computes as
 * Excel stored it, at the least: docs/performance.md gives the figure and what misses.
 */
const FLOOR = 0.91;

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
