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
import { join } from "node:path";
import { settle, signIn } from "./cellar-client.js";
import { median } from "./load.js";
import { BIG_UPLOADS, knob, ROOT, report, scaffold } from "./scaffold.js";
import { makeFile } from "./transfer.js";

const MIB = knob("BENCH_CLI_MIB", 100);
const ROUNDS = knob("BENCH_CLI_ROUNDS", 15);
const CLI_MAIN = join(ROOT, "apps/cli/bin/cellar.js");
const bench = scaffold("cellar-bench-cli-");
const { work } = bench;

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
  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: BIG_UPLOADS });
  const curlSeconds: number[] = [];
  const cliSeconds: number[] = [];
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
  await bench.stop(cellar);
  const results = {
    cli_upload_ratio: median(curlSeconds) / median(cliSeconds),
    cli_upload_mib_s: MIB / median(cliSeconds),
    curl_upload_mib_s: MIB / median(curlSeconds),
  };
  const oneDecimal = (value: number) => value.toFixed(1);
  await report({
    title: `The cellar command against curl, ${MIB} MiB uploads`,
    results,
    rows: [
      { key: "cli_upload_ratio", target: "≥ 0.9", note: "curl's median time over cellar's" },
      {
        key: "cli_upload_mib_s",
        note: `rounds ${cliSeconds.map((s) => s.toFixed(2)).join(", ")} s`,
        format: oneDecimal,
      },
      {
        key: "curl_upload_mib_s",
        note: `rounds ${curlSeconds.map((s) => s.toFixed(2)).join(", ")} s`,
        format: oneDecimal,
      },
    ],
  });
}

await bench.run(main);
