import { createFormulaEngine } from "./src/index.js";

const e = createFormulaEngine();
const cells = {
  value: (s: string, r: number, c: number) => r * 10 + c,
  area: (a: any) => [
    [1, 2],
    [3, 4],
  ],
  name: () => null,
} as any;
const at = { sheet: "S", row: 5, column: 1 };
for (const f of ['INDIRECT("A"&ROW()-1)+1', "SUM(OFFSET(A1,0,0,2,2))", 'INDIRECT("B2")', "OFFSET(A1,1,1)"]) {
  console.log(f, JSON.stringify(e.read(f, at)));
  try {
    console.log(f, "=>", JSON.stringify(e.evaluate(f, at, cells, { date1904: false })));
  } catch (err) {
    console.log(f, "throws", String(err).slice(0, 100));
  }
}
