/** What a run of `cellar` reads and writes: the process's own streams, or a test's. */
export interface CliIo {
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };
  readonly env: NodeJS.ProcessEnv;
  /** Where relative paths start. */
  readonly cwd: string;
  /** Aborted on Ctrl-C: transfers stop, partial downloads stay to be resumed. */
  readonly signal: AbortSignal;
  /** Another `fetch` (tests). */
  readonly fetch?: typeof globalThis.fetch;
}
