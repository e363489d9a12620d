/**
 * What a build was made from, kept beside its output: each input file's size and time,
 * and the files it wrote. A build whose inputs are all as recorded, and whose outputs are
 * all there, is not made again (scripts/build.mjs says why).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Whether the build recorded in `stampPath` is still what its inputs would make: every input as it was, every output there. */
export function upToDate(stampPath) {
  if (!existsSync(stampPath)) return false;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, "utf8"));
  } catch {
    return false;
  }
  for (const [path, [size, mtimeMs]] of Object.entries(stamp.inputs ?? {})) {
    const absolute = resolve(root, path);
    if (!existsSync(absolute)) return false;
    const stats = statSync(absolute);
    if (stats.size !== size || stats.mtimeMs !== mtimeMs) return false;
  }
  return (stamp.outputs ?? []).every((path) => existsSync(resolve(root, path)));
}

/** Records that the files `inputs` made the files `outputs` (absolute paths). */
export function recordBuild(stampPath, inputs, outputs) {
  const recorded = {};
  for (const input of new Set(inputs)) {
    if (!existsSync(input)) continue;
    const stats = statSync(input);
    if (stats.isFile()) recorded[relative(root, input)] = [stats.size, stats.mtimeMs];
  }
  writeFileSync(stampPath, JSON.stringify({ inputs: recorded, outputs: outputs.map((path) => relative(root, path)) }));
}
