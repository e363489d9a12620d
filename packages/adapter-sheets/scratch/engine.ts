const mib = (n: number) => (n / 1024 ** 2).toFixed(1);
const before = process.memoryUsage();
const { createFormulaEngine } = await import("@cellar/adapter-formulas");
const engine = await createFormulaEngine();
(globalThis as any).keep = engine;
await new Promise((r) => setTimeout(r, 500));
const after = process.memoryUsage();
console.log("rss", mib(before.rss), "->", mib(after.rss), "heapUsed", mib(before.heapUsed), "->", mib(after.heapUsed));
