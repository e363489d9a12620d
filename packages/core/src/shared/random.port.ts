import { randomBytes } from "node:crypto";

/**
 * Where the core gets unpredictable bytes: ids, session ids and magic-link tokens.
 *
 * Guarantee: the bytes come from a cryptographically secure generator. A test may
 * swap in a deterministic source; production must not.
 */
export interface RandomSource {
  bytes(length: number): Uint8Array;
}

export const cryptoRandom: RandomSource = {
  bytes: (length) => new Uint8Array(randomBytes(length)),
};
