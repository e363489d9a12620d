/**
 * The `cellar` command against curl: `scripts/pnpm bench:cli` (it builds first). It starts
 * the server on its embedded default and uploads one 100 MiB file, alternately with
 * `cellar upload` and with `curl -F`, each a new process as a person at a terminal runs
 * it, and adds to bench/results.json (run `pnpm bench` first: it writes the file anew):
 *
 * - `cli_upload_ratio`: curl's median time over the command's (≥ 0.9: the command is at
 *   least nine tenths as fast as curl), with `cli_upload_mib_s` and `curl_upload_mib_s`.
 *
 * The file is a `.sheet`, so that no spreadsheet reading after the upload competes with
 * the next one for the two cores. `BENCH_CLI_MIB` and `BENCH_CLI_ROUNDS` change the size
 * and the rounds (default 100 and 15).
 */

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { settle, signIn } from "./cellar-client.js";
import { median } from "./load.js";
import { repositoryRoot, startEmbeddedCellar, stopProcess } from "./processes.js";
import { makeFile } from "./transfer.js";

const MIB = Number(process.env.BENCH_CLI_MIB ?? 100);
const ROUNDS = Number(process.env.BENCH_CLI_ROUNDS ?? 15);
const root = repositoryRoot();
const CLI_MAIN = join(root, "apps/cli/bin/cellar.js");
const work = mkdtempSync(join(tmpdir(), "cellar-bench-cli-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

/** Runs a command to its end and returns its wall time in seconds; a failure stops the benchmark. */
function timed(command: string, args: readonly string[], env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? "", HOME: work, ...env }, stdio: "pipe" });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const seconds = (performance.now() - started) / 1000;
      // curl prints the status it was answered; the command prints the new file's id.
      if (code !== 0 || !/^(201|file_[a-z2-7]{24})\s*$/.test(output)) {
        reject(new Error(`${command} ${args.join(" ")} failed (${code}): ${output}`));
      } else resolve(seconds);
    });
  });
}

async function main() {
  const path = join(work, "big.sheet");
  makeFile(path, MIB);
  const cellar = await startEmbeddedCellar(join(work, "data"));
  const curlSeconds: number[] = [];
  const cliSeconds: number[] = [];
  try {
    await settle(500);
    const { jwt } = await signIn(cellar, "alice@example.com");
    const curl = () =>
      timed(
        "curl",
        [
          "-sS",
          "-o",
          "/dev/null",
          "-w",
          "%{http_code}",
          "-H",
          `authorization: Bearer ${jwt}`,
          "-F",
          `file=@${path}`,
          `${cellar.url}/v1/files`,
        ],
        {},
      );
    const cli = () =>
      timed(process.execPath, [CLI_MAIN, "upload", "-q", path], { CELLAR_TOKEN: jwt, CELLAR_SERVER: cellar.url });
    // One of each first, unmeasured: disk cache and the server's first upload.
    await curl();
    await cli();
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated, so that a slow spell of the machine falls on both.
      curlSeconds.push(await curl());
      cliSeconds.push(await cli());
    }
  } finally {
    await stopProcess(cellar);
  }
  const results = {
    cli_upload_ratio: median(curlSeconds) / median(cliSeconds),
    cli_upload_mib_s: MIB / median(cliSeconds),
    curl_upload_mib_s: MIB / median(curlSeconds),
  };
  console.log(`\nThe cellar command against curl, ${MIB} MiB uploads (Node ${process.version})\n`);
  console.log("| key | value | notes |\n|---|---:|---|");
  console.log(
    `| cli_upload_ratio | ${results.cli_upload_ratio.toFixed(3)} | ≥ 0.9; curl's median time over cellar's |`,
  );
  console.log(
    `| cli_upload_mib_s | ${results.cli_upload_mib_s.toFixed(1)} | rounds ${cliSeconds.map((s) => s.toFixed(2)).join(", ")} s |`,
  );
  console.log(
    `| curl_upload_mib_s | ${results.curl_upload_mib_s.toFixed(1)} | rounds ${curlSeconds.map((s) => s.toFixed(2)).join(", ")} s |`,
  );
  const file = join(root, "bench/results.json");
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, number>) : {};
  await writeFile(file, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  console.log("\nadded to bench/results.json");
}

await main();
