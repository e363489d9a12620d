/**
 * Packs every package Cellar publishes into tarballs, as `npm publish` would send them:
 * `scripts/pnpm pack:all [folder]` (after a build: `scripts/pnpm build`). pnpm packs them,
 * which writes the real versions in place of `workspace:*` and applies each package's
 * `publishConfig` (exports without the workspace's source condition); each package's
 * `prepack` adds the licence (and bundles the `cellar` command).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPOSITORY = fileURLToPath(new URL("..", import.meta.url));

/** The published packages' folders, libraries first. */
export const PUBLISHED = [
  "packages/core",
  "packages/client",
  "packages/adapter-http",
  "packages/adapter-sqlite",
  "packages/adapter-postgres",
  "packages/adapter-fs-storage",
  "packages/adapter-s3-storage",
  "packages/adapter-mail",
  "packages/adapter-formulas",
  "packages/adapter-sheets",
  "apps/cli",
] as const;

/** Packs each published package into `folder` and returns the tarballs' paths by package folder. */
export function packPublished(folder: string): Map<string, string> {
  mkdirSync(folder, { recursive: true });
  const tarballs = new Map<string, string>();
  for (const packageFolder of PUBLISHED) {
    const before = new Set(readdirSync(folder));
    const packed = spawnSync(
      "bash",
      [
        join(REPOSITORY, "scripts/pnpm"),
        "--dir",
        join(REPOSITORY, packageFolder),
        "pack",
        "--pack-destination",
        folder,
      ],
      { encoding: "utf8" },
    );
    if (packed.status !== 0) throw new Error(`pnpm pack of ${packageFolder} failed:\n${packed.stdout}${packed.stderr}`);
    const made = readdirSync(folder).filter((name) => name.endsWith(".tgz") && !before.has(name));
    if (made.length !== 1) throw new Error(`pnpm pack of ${packageFolder} made ${made.length} tarballs`);
    tarballs.set(packageFolder, join(folder, made[0] as string));
  }
  return tarballs;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const folder = resolve(process.argv[2] ?? join(REPOSITORY, "dist/packages"));
  for (const [packageFolder, tarball] of packPublished(folder)) console.log(`${packageFolder}\t${tarball}`);
}
