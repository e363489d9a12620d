#!/usr/bin/env node
// The `cellar` command: starts the bundle that `scripts/bundle.mjs` builds into dist/ (a
// file of its own, so that the command exists, and says how to build it, before a build).
try {
  await import("../dist/cellar.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.message).includes("cellar.js")) throw error;
  process.stderr.write("cellar: not built yet: run `scripts/pnpm build` in the Cellar checkout.\n");
  process.exitCode = 1;
}
