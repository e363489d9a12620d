import { createHash } from "node:crypto";
import ExcelJS from "exceljs";
import { strFromU8, strToU8, unzipSync, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  type CorpusFile,
  poiCorpus,
  poiCorpusManifest,
  storedFormulaResults,
  withoutStoredResults,
} from "../src/formula-corpus.js";

const SUMS = 'Q&A "sums" <1>';

/** A workbook as exceljs writes it: plain, shared, array and error formulas, with their results. */
async function workbookFromExceljs(): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const sums = workbook.addWorksheet(SUMS);
  sums.getCell("A1").value = 1;
  sums.getCell("A2").value = 2;
  sums.getCell("A3").value = 3;
  // exceljs writes shared and array formulas, though its types do not say so.
  sums.getCell("B1").value = { formula: "A1*2", result: 2, shareType: "shared", ref: "B1:B3" } as ExcelJS.CellValue;
  sums.getCell("B2").value = { sharedFormula: "B1", result: 4 };
  sums.getCell("B3").value = { sharedFormula: "B1", result: 6 };
  sums.getCell("C1").value = { formula: "1/0", result: { error: "#DIV/0!" } };
  sums.getCell("C2").value = { formula: 'A1&"x"', result: "1x" };
  sums.getCell("C3").value = { formula: "A1>0", result: true };
  const array = { formula: "SUM(A1:A3)*A1:A2", result: 6, shareType: "array", ref: "D1:D2" };
  sums.getCell("D1").value = array as ExcelJS.CellValue;
  sums.getCell("E1").value = { formula: "NOW()", date1904: false };
  const second = workbook.addWorksheet("Second");
  second.getCell("A1").value = { formula: "SUM(1,2)", result: 3 };
  second.getCell("A2").value = "text";
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const RELATIONSHIP = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/**
 * A worksheet written as no common library writes one: a prefixed namespace, single quotes,
 * cells and a row without addresses, CDATA, an empty result, an inline string and a formula
 * whose result is a shared string. `cut` is the sheet without its formulas' results.
 */
const PREFIXED_SHEET = {
  whole: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:worksheet xmlns:x="${MAIN}"><x:sheetData>
<x:row r='2'><x:c r='A2'><x:v>5</x:v></x:c><x:c t='s'><x:f>"a"&amp;"b"</x:f><x:v>1</x:v></x:c><x:c s="1" t="str"><x:f><![CDATA[A2&"<"]]></x:f><x:v>5&lt;</x:v></x:c></x:row>
<x:row><x:c r="A3" t='str'><x:f>""</x:f><x:v/></x:c><x:c t="e"><x:f t="shared" ref="B3:C3" si="0">1/0</x:f><x:v>#DIV/0!</x:v></x:c><x:c t="e"><x:f t="shared" si="0"/><x:v>#DIV/0!</x:v></x:c><x:c t="b"><x:f>TRUE</x:f><x:v>1</x:v></x:c><x:c><x:f>NOW()</x:f></x:c><x:c t="inlineStr"><x:f>CHAR(13)</x:f><x:is><x:t>_x000D_</x:t></x:is></x:c></x:row>
</x:sheetData></x:worksheet>`,
  cut: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<x:worksheet xmlns:x="${MAIN}"><x:sheetData>
<x:row r='2'><x:c r='A2'><x:v>5</x:v></x:c><x:c><x:f>"a"&amp;"b"</x:f></x:c><x:c s="1"><x:f><![CDATA[A2&"<"]]></x:f></x:c></x:row>
<x:row><x:c r="A3"><x:f>""</x:f></x:c><x:c><x:f t="shared" ref="B3:C3" si="0">1/0</x:f></x:c><x:c><x:f t="shared" si="0"/></x:c><x:c><x:f>TRUE</x:f></x:c><x:c><x:f>NOW()</x:f></x:c><x:c><x:f>CHAR(13)</x:f></x:c></x:row>
</x:sheetData></x:worksheet>`,
};

function prefixedWorkbook(): Uint8Array {
  const relationship = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${RELATIONSHIP}/${type}" Target="${target}"/>`;
  const relationships = (...items: string[]) =>
    `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${items.join("")}</Relationships>`;
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/><Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(relationships(relationship("rId1", "officeDocument", "xl/workbook.xml"))),
    "xl/workbook.xml": strToU8(
      `<workbook xmlns="${MAIN}" xmlns:rel="${RELATIONSHIP}"><sheets><sheet name='Prefixed' sheetId="1" rel:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      relationships(
        relationship("rId1", "worksheet", "worksheets/sheet1.xml"),
        relationship("rId2", "sharedStrings", "/xl/sharedStrings.xml"),
        relationship("rId3", "calcChain", "calcChain.xml"),
      ),
    ),
    "xl/worksheets/sheet1.xml": strToU8(PREFIXED_SHEET.whole),
    "xl/sharedStrings.xml": strToU8(
      `<sst xmlns="${MAIN}" count="2" uniqueCount="2"><si><t>first</t></si><si><r><t>a</t></r><r><rPr><b/></rPr><t>b</t></r><rPh sb="0" eb="1"><t>ア</t></rPh></si></sst>`,
    ),
    "xl/calcChain.xml": strToU8(`<calcChain xmlns="${MAIN}"><c r="B2" i="1"/><c r="C2"/></calcChain>`),
  });
}

/** Every cell exceljs reads in a workbook: its value, and for a formula its text and result. */
async function cellsReadByExceljs(bytes: Uint8Array) {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook.worksheets.flatMap((sheet) => {
    const cells: { sheet: string; cell: string; formula?: string; result?: unknown; value?: unknown }[] = [];
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        const at = { sheet: sheet.name, cell: cell.address };
        cells.push(
          cell.type === ExcelJS.ValueType.Formula
            ? { ...at, formula: cell.formula, result: cell.result }
            : { ...at, value: cell.value },
        );
      }),
    );
    return cells;
  });
}

describe("storedFormulaResults", () => {
  it("finds every formula of a workbook exceljs wrote, with the result stored for it", {
    timeout: 60_000,
  }, async () => {
    const formula = { shared: false, array: false };
    expect(await storedFormulaResults(await workbookFromExceljs())).toEqual([
      { sheet: SUMS, cell: "B1", ...formula, formula: "A1*2", shared: true, value: 2, type: "n" },
      { sheet: SUMS, cell: "C1", ...formula, formula: "1/0", value: "#DIV/0!", type: "e" },
      { sheet: SUMS, cell: "D1", ...formula, formula: "SUM(A1:A3)*A1:A2", array: true, value: 6, type: "n" },
      { sheet: SUMS, cell: "E1", ...formula, formula: "NOW()", value: null, type: "n" },
      { sheet: SUMS, cell: "B2", ...formula, formula: "", shared: true, value: 4, type: "n" },
      { sheet: SUMS, cell: "C2", ...formula, formula: 'A1&"x"', value: "1x", type: "str" },
      { sheet: SUMS, cell: "B3", ...formula, formula: "", shared: true, value: 6, type: "n" },
      { sheet: SUMS, cell: "C3", ...formula, formula: "A1>0", value: true, type: "b" },
      { sheet: "Second", cell: "A1", ...formula, formula: "SUM(1,2)", value: 3, type: "n" },
    ]);
  });

  it("reads prefixed elements, either quote, cells without an address, shared and inline strings", async () => {
    const formula = { sheet: "Prefixed", shared: false, array: false };
    expect(await storedFormulaResults(prefixedWorkbook())).toEqual([
      { ...formula, cell: "B2", formula: '"a"&"b"', value: "ab", type: "s" },
      { ...formula, cell: "C2", formula: 'A2&"<"', value: "5<", type: "str" },
      { ...formula, cell: "A3", formula: '""', value: "", type: "str" },
      { ...formula, cell: "B3", formula: "1/0", shared: true, value: "#DIV/0!", type: "e" },
      { ...formula, cell: "C3", formula: "", shared: true, value: "#DIV/0!", type: "e" },
      { ...formula, cell: "D3", formula: "TRUE", value: true, type: "b" },
      { ...formula, cell: "E3", formula: "NOW()", value: null, type: "n" },
      { ...formula, cell: "F3", formula: "CHAR(13)", value: "\r", type: "str" },
    ]);
  });

  it("refuses what is not a zip, such as an encrypted workbook (an OLE2 file)", async () => {
    const ole2 = new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, ...new Array(504).fill(0)]);
    await expect(storedFormulaResults(ole2)).rejects.toThrow();
  });

  it("refuses a strict OOXML workbook", async () => {
    const parts = unzipSync(prefixedWorkbook());
    const workbook = strFromU8(parts["xl/workbook.xml"] as Uint8Array);
    parts["xl/workbook.xml"] = strToU8(workbook.replace(MAIN, "http://purl.oclc.org/ooxml/spreadsheetml/main"));
    await expect(storedFormulaResults(zipSync(parts))).rejects.toThrow(/^Strict OOXML/);
  });
});

describe("withoutStoredResults", () => {
  it("leaves exceljs the same cells and formulas, and no formula's result", { timeout: 60_000 }, async () => {
    const bytes = await workbookFromExceljs();
    const before = await cellsReadByExceljs(bytes);
    const after = await cellsReadByExceljs(withoutStoredResults(bytes));
    expect(after).toEqual(
      before.map(({ result: _, ...cell }) => ({ ...cell, ...("formula" in cell && { result: undefined }) })),
    );
    expect(after.filter((cell) => "formula" in cell)).toHaveLength(9);
  });

  it("gives formulas without results to storedFormulaResults", { timeout: 60_000 }, async () => {
    const bytes = await workbookFromExceljs();
    const before = await storedFormulaResults(bytes);
    expect(await storedFormulaResults(withoutStoredResults(bytes))).toEqual(
      before.map((cell) => ({ ...cell, value: null, type: "n" })),
    );
  });

  it("cuts each formula cell's result and type, and keeps everything else as written", () => {
    const original = unzipSync(prefixedWorkbook());
    const cut = unzipSync(withoutStoredResults(prefixedWorkbook()));
    expect(Object.keys(cut)).toEqual(Object.keys(original));
    const { "xl/worksheets/sheet1.xml": sheet, ...others } = cut;
    expect(strFromU8(sheet as Uint8Array)).toBe(PREFIXED_SHEET.cut);
    const { "xl/worksheets/sheet1.xml": _, ...originalOthers } = original;
    expect(others).toEqual(originalOthers);
    expect(Object.keys(others)).toContain("xl/calcChain.xml");
  });
});

const corpus = poiCorpus();
if ("absent" in corpus) console.info(corpus.absent);
const files: CorpusFile[] = "files" in corpus ? corpus.files : [];

describe.skipIf("absent" in corpus)("the apache/poi corpus", () => {
  it("is every workbook of the manifest, each with the SHA-256 it pins", () => {
    const pinned = poiCorpusManifest().files.map(({ path, sha256 }) => ({ path, sha256 }));
    const found = files.map(({ path, bytes }) => ({ path, sha256: createHash("sha256").update(bytes).digest("hex") }));
    expect(found).toEqual(pinned);
  });

  it("gives each workbook's formulas, as many as the manifest says, some with a result", {
    timeout: 60_000,
  }, async () => {
    const counts = [];
    for (const { path, bytes } of files) {
      const results = await storedFormulaResults(bytes);
      counts.push({ path, formulas: results.length, withResults: results.some(({ value }) => value !== null) });
    }
    expect(counts).toEqual(files.map(({ path, formulas }) => ({ path, formulas, withResults: true })));
  });

  it("keeps each workbook's formulas and none of their results", { timeout: 60_000 }, async () => {
    const problems: string[] = [];
    for (const { path, bytes } of files) {
      const before = await storedFormulaResults(bytes);
      const after = await storedFormulaResults(withoutStoredResults(bytes));
      const same = (cell: (typeof after)[number], at: number) =>
        cell.value === null &&
        cell.type === "n" &&
        cell.cell === before[at]?.cell &&
        cell.formula === before[at]?.formula;
      if (after.length !== before.length || !after.every(same)) problems.push(path);
    }
    expect(problems).toEqual([]);
  });
});
