/** The `cellar` command. */
import { EXIT } from "./exit-codes.js";
import { run } from "./program.js";

const interrupt = new AbortController();
process.once("SIGINT", () => {
  // The first Ctrl-C stops transfers cleanly (a download keeps its part to resume);
  // a second one leaves at once.
  interrupt.abort(new DOMException("Interrupted.", "AbortError"));
  process.once("SIGINT", () => process.exit(EXIT.interrupted));
});

process.exitCode = await run(process.argv.slice(2), {
  // Opened only by the commands that read it (login): opening stdin loads the terminal
  // and socket modules, a few milliseconds of every other command's start.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  signal: interrupt.signal,
});
