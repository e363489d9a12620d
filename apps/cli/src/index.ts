export { CliError, EXIT } from "./exit-codes.js";
export type { CliIo } from "./io.js";
export { run } from "./program.js";
