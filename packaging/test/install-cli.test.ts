import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPOSITORY } from "../pack.js";

const work = mkdtempSync(join(tmpdir(), "cellar-install-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("scripts/install-cli", () => {
  it("installs a cellar command that runs from any folder, on a Node.js Cellar supports, whatever node is on PATH", () => {
    const prefix = join(work, "prefix");
    const installed = spawnSync("bash", [join(REPOSITORY, "scripts/install-cli"), prefix], {
      cwd: work,
      encoding: "utf8",
    });
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`as ${prefix}/bin/cellar`);
    expect(installed.stdout).toContain(`Add ${prefix}/bin to your PATH`);

    const { version } = JSON.parse(readFileSync(join(REPOSITORY, "apps/cli/package.json"), "utf8")) as {
      version: string;
    };
    // From a folder outside the checkout, with a PATH that holds no node at all: the
    // launcher names the Node.js it runs on, so the command cannot pick up another.
    const ran = spawnSync(join(prefix, "bin/cellar"), ["--version"], {
      cwd: tmpdir(),
      encoding: "utf8",
      env: { PATH: "/nonexistent", HOME: work },
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(`${version}\n`);
    const launcher = readFileSync(join(prefix, "bin/cellar"), "utf8");
    const node = /^exec "([^"]+)"/m.exec(launcher)?.[1] ?? "";
    const major = Number(spawnSync(node, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }).stdout);
    expect(major).toBeGreaterThanOrEqual(22);
    // The package it runs is the installed copy, not the checkout's.
    expect(launcher).toContain(`${prefix}/lib/node_modules/@cellar/cli/bin/cellar.js`);
  }, 240_000);
});
