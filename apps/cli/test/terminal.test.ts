import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startCellarServer } from "./support/cellar-server.js";
import { CELLAR_COMMAND, cellar, scratchHome, spawnCellar } from "./support/run-cli.js";
import { startSlowProxy } from "./support/slow-proxy.js";

const server = await startCellarServer();
afterAll(() => server.close());

/** Quoted for `sh -c`. */
const shellQuoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `cellar` in a pseudo-terminal, as a person at a terminal would (util-linux's
 * `script`, in every Debian): stdin, stdout and stderr are all the terminal.
 */
function inTerminal(args: readonly string[], options: { home: string; env: Record<string, string> }) {
  const command = [...CELLAR_COMMAND, ...args].map(shellQuoted).join(" ");
  const child = spawn("script", ["-qfec", command, "/dev/null"], {
    cwd: options.home,
    env: { HOME: options.home, PATH: process.env.PATH ?? "", TERM: "xterm-256color", ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { screen: () => screen, exited };
}

describe("the cellar command as a process", { timeout: 30_000 }, () => {
  it("prints its version", async () => {
    const run = spawnCellar(["--version"], { home: scratchHome() });
    expect(await run.exited).toBe(0);
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(run.output().stdout).toBe(`${manifest.version}\n`);
  });

  it("draws a progress bar per upload on a terminal, and none with --no-progress", async () => {
    const home = scratchHome();
    const token = await server.tokenFor("tty@example.com");
    // 12 MiB through a link of 4 MiB/s: seconds of bar, after the first few MiB that the
    // sockets' buffers take at once.
    writeFileSync(join(home, "big.csv"), Buffer.from(`a,b\n${"1,2\n".repeat(3 * 1024 * 1024)}`));
    writeFileSync(join(home, "small.csv"), "x,y\n1,2\n");
    const proxy = await startSlowProxy(server.url, 4 * 1024 * 1024);
    try {
      const env = { CELLAR_TOKEN: token, CELLAR_SERVER: proxy.url };
      const run = inTerminal(["upload", "big.csv", "small.csv"], { home, env });
      expect(await run.exited).toBe(0);
      const screen = run.screen();
      // cli-progress's bar, redrawn as the bytes go: several distinct percentages of big.csv.
      expect(screen).toContain("█");
      const percentages = new Set([...screen.matchAll(/(\d+)% [\d.]+ \w*B of 12 MiB/g)].map((match) => match[1]));
      expect(percentages.size).toBeGreaterThan(3);
      expect(percentages).toContain("100");
      expect(screen).toMatch(/small\.csv/);
      expect(screen.match(/file_[a-z2-7]{24} {2}big\.csv {2}12 MiB/g)).toHaveLength(1);

      const quiet = inTerminal(["upload", "small.csv", "--no-progress"], { home, env });
      expect(await quiet.exited).toBe(0);
      expect(quiet.screen()).not.toContain("█");
      expect(quiet.screen()).toMatch(/^file_[a-z2-7]{24} {2}small\.csv {2}8 B\r?\n$/);
    } finally {
      await proxy.close();
    }
  });

  it("colours its errors on a terminal, but not with NO_COLOR", async () => {
    const home = scratchHome();
    const colored = inTerminal(["whoami", "--server", server.url], { home, env: {} });
    expect(await colored.exited).toBe(4);
    expect(colored.screen()).toContain("\u001b[31mcellar:\u001b[39m Not signed in");
    const plain = inTerminal(["whoami", "--server", server.url], { home, env: { NO_COLOR: "1" } });
    expect(await plain.exited).toBe(4);
    expect(plain.screen()).toMatch(/^cellar: Not signed in/);
  });

  it("stops on Ctrl-C with status 130, and the same command then resumes the download", async () => {
    const home = scratchHome();
    const token = await server.tokenFor("interrupted@example.com");
    const bytes = Buffer.from(
      `id,blob\n${randomBytes(3 * 1024 * 1024)
        .toString("hex")
        .replace(/(.{80})/g, "1,$1\n")}\n`,
    );
    writeFileSync(join(home, "data.csv"), bytes);
    const id = (
      await cellar(["upload", "data.csv", "-q", "--server", server.url], { home, env: { CELLAR_TOKEN: token } })
    ).stdout.trim();
    const proxy = await startSlowProxy(server.url, 1024 * 1024);
    const part = join(home, `.cellar-${id}.part`);
    try {
      const run = spawnCellar(["download", id, "-o", "copy.csv"], {
        home,
        env: { CELLAR_TOKEN: token, CELLAR_SERVER: proxy.url },
      });
      // Interrupted once some bytes are on disk.
      while (!existsSync(part) || statSync(part).size < 500_000)
        await new Promise((resolve) => setTimeout(resolve, 50));
      run.child.kill("SIGINT");
      expect(await run.exited).toBe(130);
      expect(run.output().stderr).toBe("cellar: Interrupted.\n");
      const kept = statSync(part).size;
      expect(kept).toBeGreaterThanOrEqual(500_000);
      expect(kept).toBeLessThan(bytes.length);
    } finally {
      await proxy.close();
    }
    const resumed = await cellar(["download", id, "-o", "copy.csv", "--server", server.url], {
      home,
      env: { CELLAR_TOKEN: token },
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/\(resumed at [\d.]+ (KiB|MiB)\)\n$/);
    expect(readFileSync(join(home, "copy.csv")).equals(bytes)).toBe(true);
    expect(existsSync(part)).toBe(false);
  });
});
