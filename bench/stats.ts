/** Timing helpers for Cellar's benchmarks: run something many times, report quantiles. */

export interface Timing {
  readonly label: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly p99Ms: number;
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** Runs `body` `runs` times after `warmup` unmeasured runs and reports median and p99. */
export async function measure(
  label: string,
  runs: number,
  body: (run: number) => unknown,
  warmup = 10,
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await body(i);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await body(i);
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  samples.sort((a, b) => a - b);
  return { label, runs, medianMs: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99) };
}

export function printTable(title: string, rows: readonly Timing[]): void {
  const width = Math.max(...rows.map((r) => r.label.length), 10);
  console.log(`\n${title}\n`);
  console.log(`| ${"operation".padEnd(width)} | runs | median ms | p99 ms |`);
  console.log(`| ${"-".repeat(width)} | ---: | --------: | -----: |`);
  for (const row of rows) {
    console.log(
      `| ${row.label.padEnd(width)} | ${String(row.runs).padStart(4)} | ${row.medianMs.toFixed(3).padStart(9)} | ${row.p99Ms.toFixed(3).padStart(6)} |`,
    );
  }
}
