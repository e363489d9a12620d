import type { CliIo } from "./io.js";

/**
 * SGR colour codes, written out: importing node:util for its styleText loads a dozen of
 * Node's internal modules with it, milliseconds of every command's start.
 */
const paint = (code: number, reset: number) => (text: string) => `\u001b[${code}m${text}\u001b[${reset}m`;
const red = paint(31, 39);
const dim = paint(2, 22);

/** How the user asked to be answered: the global options every command shares. */
export interface OutputOptions {
  /** One JSON document per line (NDJSON for lists) on stdout, nothing else there. */
  readonly json: boolean;
  /** Only what a script needs on stdout (ids), no notes on stderr. */
  readonly quiet: boolean;
  readonly progress: boolean;
}

/**
 * Where answers go: results on stdout, notes and errors on stderr, so that
 * `cellar ls --json | jq` and `id=$(cellar upload -q f.csv)` see results only.
 */
export class Output {
  readonly #io: CliIo;
  readonly options: OutputOptions;

  constructor(io: CliIo, options: OutputOptions) {
    this.#io = io;
    this.options = options;
  }

  /** Colour only on a terminal, never with NO_COLOR set (no-color.org) or TERM=dumb. */
  #colored(stream: { isTTY?: boolean }): boolean {
    return stream.isTTY === true && !this.#io.env.NO_COLOR && this.#io.env.TERM !== "dumb";
  }

  /** Whether progress bars may be drawn: both streams are a terminal and nobody asked otherwise. */
  get showsProgress(): boolean {
    const { json, quiet, progress } = this.options;
    return progress && !json && !quiet && this.#io.stdout.isTTY === true && this.#io.stderr.isTTY === true;
  }

  get stderr() {
    return this.#io.stderr;
  }

  /** A line of result on stdout. */
  result(text: string): void {
    this.#io.stdout.write(`${text}\n`);
  }

  /** A JSON document on one line of stdout. */
  json(value: unknown): void {
    this.#io.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** A note for the person at the terminal, on stderr; none with --quiet or --json. */
  note(text: string): void {
    if (this.options.quiet || this.options.json) return;
    this.#io.stderr.write(`${text}\n`);
  }

  /** An error, on one line of stderr whatever the options. */
  error(text: string): void {
    const prefix = this.#colored(this.#io.stderr) ? red("cellar:") : "cellar:";
    this.#io.stderr.write(`${prefix} ${text}\n`);
  }

  /** Dimmed on a terminal: headers of tables. */
  dim(text: string): string {
    return this.#colored(this.#io.stdout) ? dim(text) : text;
  }

  /** Rows under a header, in columns as wide as their widest cell. */
  table(header: readonly string[], rows: readonly (readonly string[])[]): void {
    const widths = header.map((title, column) =>
      Math.max(title.length, ...rows.map((row) => [...(row[column] ?? "")].length)),
    );
    const line = (cells: readonly string[]) =>
      cells
        .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  ")
        .trimEnd();
    this.result(this.dim(line(header)));
    for (const row of rows) this.result(line(row));
  }
}

/** `2026-11-23T21:27:25.123Z` → `2026-11-23 21:27` (UTC, as the API gives it). */
export function shortTime(iso: string | null): string {
  return iso === null ? "" : iso.slice(0, 16).replace("T", " ");
}

/** A cell of a CSV record: quoted when it holds a delimiter, a quote or a line end. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
