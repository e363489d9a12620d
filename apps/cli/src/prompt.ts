import type { Interface } from "node:readline";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliIo } from "./io.js";

/**
 * Questions on stderr, answers from stdin line by line — typed at a terminal or piped in
 * by a script (lines that arrive before their question are kept, not lost).
 */
export class Prompter {
  readonly #io: CliIo;
  readonly #lines: AsyncIterator<string>;
  readonly #close: () => void;

  /** node:readline is loaded only by the commands that ask. */
  static async open(io: CliIo): Promise<Prompter> {
    const { createInterface } = await import("node:readline");
    const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
    // Ctrl-C while a question waits ends the wait (and the run, with status 130).
    io.signal.addEventListener("abort", () => lines.close(), { once: true });
    return new Prompter(io, lines);
  }

  private constructor(io: CliIo, lines: Interface) {
    this.#io = io;
    this.#lines = lines[Symbol.asyncIterator]();
    this.#close = () => lines.close();
  }

  async ask(question: string): Promise<string> {
    this.#io.stderr.write(question);
    const next = await this.#lines.next();
    if (next.done) throw new CliError("No answer: stdin ended.", EXIT.usage);
    return next.value.trim();
  }

  close(): void {
    this.#close();
  }
}

/** All of stdin, for `--with-token`. */
export async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stdin) text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
  return text;
}
