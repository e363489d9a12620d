/**
 * Builds what the server runs: the TypeScript projects (`tsc -b`), the `cellar` command's
 * bundle (apps/cli/scripts/bundle.mjs) and the web app (Vite, into apps/web/app-dist).
 * `pnpm build` and `pnpm start` run it.
 *
 * Why its own script: `pnpm start` restarts the server, and a restart with nothing changed
 * took 4.0 s (`restart_ms`, ≤ 3,000): a second pnpm started for `pnpm build` (about 1 s)
 * and a web build made again from unchanged files (about 1.5 s) were most of it. Here
 * each bundle is made again only when a file it was made from changed: the files each
 * build read (Vite's modules, esbuild's inputs) are kept beside its output with their
 * size and time (`build-inputs.json`), and compared first. `tsc -b` keeps its own
 * account (`.tsbuildinfo`).
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { recordBuild, upToDate } from "./build-inputs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

function run(args) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

async function buildWeb() {
  const webDir = join(root, "apps/web");
  const outDir = join(webDir, "app-dist");
  // Beside the output, not in it: the server serves app-dist.
  const stampPath = join(webDir, "dist/app-dist.build-inputs.json");
  if (upToDate(stampPath)) return;
  const { build } = await import("vite");
  const modules = new Set();
  const outputs = [];
  await build({
    configFile: join(webDir, "vite.config.ts"),
    logLevel: "warn",
    plugins: [
      {
        name: "cellar-build-inputs",
        generateBundle(_options, bundle) {
          for (const output of Object.values(bundle)) {
            outputs.push(join(outDir, output.fileName));
            for (const id of output.moduleIds ?? []) modules.add(id.split("?")[0]);
            for (const id of output.originalFileNames ?? []) modules.add(resolve(webDir, id));
          }
        },
      },
    ],
  });
  outputs.push(join(outDir, "index.html"));
  const inputs = [...modules].filter((id) => id.startsWith("/"));
  inputs.push(join(webDir, "index.html"), join(webDir, "vite.config.ts"), fileURLToPath(import.meta.url));
  recordBuild(stampPath, inputs, outputs);
}

run([require.resolve("typescript/bin/tsc"), "-b"]);
const { bundleCli } = await import("../apps/cli/scripts/bundle.mjs");
await bundleCli();
await buildWeb();
