/**
 * The names of the files a benchmark fills a user with, and what it searches them for.
 * Each name starts with one of ten topics, in turn, so a search for a topic finds a tenth
 * of the files, spread over the whole list in every order; the topics sort apart, and
 * "invoice" falls in the middle of the names' order, so a name-sorted search walks part of
 * the list before its first match, as a real one would.
 */
export const TOPICS = [
  "Budget",
  "Invoice",
  "Payroll",
  "Forecast",
  "Inventory",
  "Expenses",
  "Sales",
  "Timesheet",
  "Roster",
  "Report",
] as const;

/** What the search benchmarks look for: in one name of ten. */
export const SEARCH_TEXT = "invoice";

/** The name of the `i`th file: "Invoice 2021-02 1.xlsx". */
export function benchFileName(i: number): string {
  return `${TOPICS[i % TOPICS.length]} ${2020 + (i % 7)}-${String(1 + (i % 12)).padStart(2, "0")} ${i}.xlsx`;
}

/**
 * `benchFileName` in PostgreSQL, over `i` with `$topics` bound to `TOPICS`. The names are
 * ASCII, so their key (core's `fileNameKey`) is PostgreSQL's `lower`.
 */
export const BENCH_FILE_NAME_SQL = `($topics::text[])[1 + i % ${TOPICS.length}] || ' ' || (2020 + i % 7) || '-' || lpad((1 + i % 12)::text, 2, '0') || ' ' || i || '.xlsx'`;
