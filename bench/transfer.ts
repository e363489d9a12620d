/** Moving big files through a server the benchmarks started: uploads, downloads, the test files, peak memory. */
import { randomBytes } from "node:crypto";
import { closeSync, createReadStream, fsyncSync, openSync, writeSync } from "node:fs";
import { request } from "node:http";
import { Readable } from "node:stream";
import { rssMiB } from "./processes.js";

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
