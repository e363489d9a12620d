/**
 * Bundles the `cellar` command into one file, dist/cellar.js, which the package's bin
 * (bin/cellar.js) starts.
 *
 * Why a bundle: a command's start is part of every run (and of `cli_upload_ratio`, the
 * upload against curl's). Loaded as ~25 modules of its own and its dependencies', the
 * command took 50–80 ms to print its version where Node alone starts in 27–40 ms; as
 * one file, about 20 ms less. Run after `tsc -b` (it bundles the compiled JavaScript).
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { recordBuild, upToDate } from "../../../scripts/build-inputs.mjs";

const outfile = fileURLToPath(new URL("../dist/cellar.js", import.meta.url));
const stampPath = fileURLToPath(new URL("../dist/cellar.build-inputs.json", import.meta.url));

/** Bundles the command, unless the files it was bundled from are unchanged since. */
export async function bundleCli() {
  if (upToDate(stampPath)) return;
  const { metafile } = await build({
    entryPoints: [fileURLToPath(new URL("../dist/src/main.js", import.meta.url))],
    outfile,
    metafile: true,
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
  recordBuild(
    stampPath,
    [...Object.keys(metafile.inputs).map((input) => resolve(input)), fileURLToPath(import.meta.url)],
    [outfile],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli();
