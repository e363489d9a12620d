import type { Parameters } from "fast-check";

/**
 * The seed the suite runs with unless told otherwise, so that CI is deterministic: a
 * run that fails, fails every time. Explore new inputs with `FC_SEED=random`.
 */
const DEFAULT_SEED = 20_261_121;

/**
 * fast-check's run settings for the fuzz suites: a fixed number of runs so a suite stays
 * within its time budget. A failure prints its seed and path; to replay it, run the suite
 * with `FC_SEED=<seed> FC_PATH=<path>` in the environment.
 */
export function fuzzParameters<T>(numRuns: number): Parameters<T> {
  const requested = process.env.FC_SEED;
  const seed = requested === "random" ? undefined : (requested ?? String(DEFAULT_SEED));
  const path = process.env.FC_PATH;
  return {
    numRuns,
    ...(seed === undefined ? {} : { seed: Number(seed) }),
    ...(path === undefined ? {} : { path }),
  };
}

/** A distinct client address per run, so per-address limits never carry over between runs. */
export function clientAddress(run: number): string {
  return `10.${(run >> 16) & 255}.${(run >> 8) & 255}.${run & 255}`;
}

/** Percent-encodes every UTF-8 byte of `value` (a lone surrogate becomes U+FFFD), so any text fits in a URL. */
export function percentEncodeAll(value: string): string {
  return [...Buffer.from(value, "utf8")].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

/** Like `encodeURIComponent`, but never throws on a lone surrogate. */
export function encodeComponent(value: string): string {
  return [...value]
    .map((character) => (/^[A-Za-z0-9\-_.!~*'()]$/.test(character) ? character : percentEncodeAll(character)))
    .join("");
}
