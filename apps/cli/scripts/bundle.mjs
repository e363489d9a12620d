/**
 * Bundles the `cellar` command into one file, dist/cellar.js, which the package's bin
 * (bin/cellar.js) starts.
 *
 * Why a bundle: a command's start is part of every run (and of `cli_upload_ratio`, the
 * upload against curl's). Loaded as ~25 modules of its own and its dependencies', the
 * command took 50–80 ms to print its version where Node alone starts in 27–40 ms; as
 * one file, about 20 ms less. Run after `tsc -b` (it bundles the compiled JavaScript).
 */
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

await build({
  entryPoints: [fileURLToPath(new URL("../dist/src/main.js", import.meta.url))],
  outfile: fileURLToPath(new URL("../dist/cellar.js", import.meta.url)),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // CommonJS dependencies (cli-progress) call require: an ES module has none of its own.
  banner: {
    js: 'import { createRequire as cellarRequire } from "node:module";\nconst require = cellarRequire(import.meta.url);',
  },
  legalComments: "eof",
  logLevel: "warning",
});
