/** Moving big files through a server the benchmarks started: uploads, downloads, the test files, peak memory. */
import { randomBytes } from "node:crypto";
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { json } from "./cellar-client.js";
import { BIG_MIB, pairedRatio, ROUNDS, rounds } from "./load.js";
import { type RunningProcess, rssMiB } from "./processes.js";

/** Peak RSS of `pid` while `work` runs, sampled every 20 ms. */
export async function peakRssDuring<T>(
  pid: number | undefined,
  run: () => Promise<T>,
): Promise<{ result: T; peakMiB: number }> {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 20);
  try {
    const result = await run();
    return { result, peakMiB: Math.max(peak, rssMiB(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** Sends `path` as a multipart upload (or a plain body to the bare route), streamed from disk. */
export function upload(url: string, path: string, size: number, jwt?: string, fileName = "big.sheet"): Promise<number> {
  const boundary = "cellar-bench-boundary";
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": `multipart/form-data; boundary=${boundary}`,
          "content-length": head.length + size + tail.length,
          ...(jwt === undefined ? {} : { authorization: `Bearer ${jwt}` }),
        },
      },
      (response) => {
        response.resume();
        response.on("end", () => {
          if ((response.statusCode ?? 500) >= 300) reject(new Error(`upload answered ${response.statusCode}`));
          else resolve(size / 1024 ** 2 / ((performance.now() - started) / 1000));
        });
      },
    );
    req.on("error", reject);
    Readable.from(
      (async function* () {
        yield head;
        yield* createReadStream(path, { highWaterMark: 1024 * 1024 });
        yield tail;
      })(),
    ).pipe(req);
  });
}

/** Downloads `url` to nowhere and returns MiB/s. */
export function download(url: string, jwt?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let bytes = 0;
    const req = request(url, { headers: jwt === undefined ? {} : { authorization: `Bearer ${jwt}` } }, (response) => {
      response.on("data", (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on("end", () => resolve(bytes / 1024 ** 2 / ((performance.now() - started) / 1000)));
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Writes `mib` MiB of random bytes to `path`, on disk before it returns: otherwise the
 * kernel would still be writing them back while the next figures are measured.
 */
export function makeFile(path: string, mib: number): void {
  const block = randomBytes(1024 * 1024);
  const fd = openSync(path, "w");
  for (let i = 0; i < mib; i++) writeSync(fd, block);
  fsyncSync(fd);
  closeSync(fd);
}

/** The files uploaded and downloaded in `work`: a big one of BIG_MIB MiB and one of 100 MiB. */
export function transferFiles(work: string) {
  const big = join(work, "big.bin");
  const medium = join(work, "medium.bin");
  return {
    big,
    medium,
    bigBytes: BIG_MIB * 1024 ** 2,
    /** Writes both, right before they are used: writing them then overlaps no measurement. */
    make() {
      makeFile(big, BIG_MIB);
      makeFile(medium, 100);
    },
  };
}

/**
 * Uploads and downloads through Cellar against the bare routes of `bare`, paired round by
 * round: Cellar's peak RSS during a 100 MiB upload; the big file's uploads (at most two
 * rounds), their paired ratio and Cellar's peak RSS; its downloads (at most three rounds)
 * and their paired ratio. `keys` are the figures as results.json names them (`upload_ratio`,
 * …; a benchmark adds its prefix).
 */
export async function transferRounds(
  bare: RunningProcess,
  cellar: RunningProcess,
  files: ReturnType<typeof transferFiles>,
  jwt: string,
) {
  const upload_rss_100m_mib = await uploadPeakMiB(cellar, files.medium, 100 * 1024 ** 2, jwt);
  const uploads = await uploadRounds(`${bare.url}/upload`, cellar, files.big, files.bigBytes, jwt);
  const downloads = await downloadRounds(`${bare.url}/download`, cellar, files.bigBytes, jwt);
  return {
    keys: {
      upload_rss_100m_mib,
      upload_ratio: uploads.ratio,
      upload_rss_1g_mib: uploads.peakMiB,
      download_ratio: downloads.ratio,
    },
    uploadRounds: uploads.rounds,
    downloadRounds: downloads.rounds,
  };
}

/** Cellar's peak RSS during an upload of `path` (`size` bytes) by the user of `jwt`. */
export async function uploadPeakMiB(cellar: RunningProcess, path: string, size: number, jwt: string): Promise<number> {
  return (await peakRssDuring(cellar.child.pid, () => upload(`${cellar.url}/v1/files`, path, size, jwt))).peakMiB;
}

/**
 * Uploads of `path` (`size` bytes) to the bare route `bareUrl` and to Cellar, paired round
 * by round (at most two rounds): the paired ratio, Cellar's peak RSS and the rounds.
 */
export async function uploadRounds(bareUrl: string, cellar: RunningProcess, path: string, size: number, jwt: string) {
  const bare: number[] = [];
  const measured: number[] = [];
  let peakMiB = 0;
  for (let round = 0; round < Math.min(ROUNDS, 2); round++) {
    bare.push(await upload(bareUrl, path, size));
    const run = await peakRssDuring(cellar.child.pid, () => upload(`${cellar.url}/v1/files`, path, size, jwt));
    measured.push(run.result);
    peakMiB = Math.max(peakMiB, run.peakMiB);
  }
  return { ratio: pairedRatio(measured, bare), peakMiB, rounds: rounds(measured, bare, "MiB/s") };
}

/**
 * Downloads of the bare route `bareUrl` and of the user's file of `size` bytes from
 * Cellar, paired round by round (at most three rounds): the paired ratio and the rounds.
 */
export async function downloadRounds(bareUrl: string, cellar: RunningProcess, size: number, jwt: string) {
  const listed = await json<{ id: string; size: number }[]>(`${cellar.url}/v1/files?per_page=100`, { jwt });
  const id = listed.body.find((file) => file.size === size)?.id ?? "";
  const bare: number[] = [];
  const measured: number[] = [];
  for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
    bare.push(await download(bareUrl));
    measured.push(await download(`${cellar.url}/v1/files/${id}/download`, jwt));
  }
  return { ratio: pairedRatio(measured, bare), rounds: rounds(measured, bare, "MiB/s") };
}
