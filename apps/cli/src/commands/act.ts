import type { CommandContext } from "../context.js";

/**
 * Turns a command's body into commander's action: the body gets the run's context, then
 * the command's arguments and options as commander passes them (each body declares the
 * types it was registered with).
 */
export type Act = (
  body: (context: CommandContext, ...args: never[]) => Promise<void>,
) => (...args: unknown[]) => Promise<void>;
