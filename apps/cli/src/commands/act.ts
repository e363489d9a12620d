import type { CommandContext } from "../context.js";

/**
 * Turns a command's body into the parser's action: the body gets the run's context, then
 * the command's arguments and its options, as the parser passes them (each body declares
 * the types it was registered with).
 */
export type Act = (
  body: (context: CommandContext, ...args: never[]) => Promise<void>,
) => (...args: unknown[]) => Promise<void>;

/**
 * An argument or option value as text. The parser (cac, through mri) reads `2026` as a
 * number, and a `type: [String]` option as a list of what was given (the last counts).
 */
export function text(value: unknown): string {
  return String(Array.isArray(value) ? value.at(-1) : value);
}
