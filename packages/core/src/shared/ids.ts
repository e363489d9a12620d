import type { RandomSource } from "./random.port.js";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

/** Lowercase RFC 4648 base32 without padding: URL-safe and case-insensitive. */
export function base32(bytes: Uint8Array): string {
  let out = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += BASE32[(buffer >>> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32[(buffer << (5 - bits)) & 31];
  return out;
}

/** 15 random bytes: 120 bits, comfortably above the 96 the API promises. */
const ID_RANDOM_BYTES = 15;

/**
 * `file_`, `user_`, `sess_` (sessions; `ses_` before decisions §10 named them), `perm_`
 * (people on a file), `act_` (activity entries), `cmt_` (comments), `lease_` (open event
 * streams), `tok_` (access tokens), `hook_` (webhooks), `dlv_` (their deliveries).
 */
export type IdPrefix = "file" | "user" | "sess" | "perm" | "act" | "cmt" | "blob" | "lease" | "tok" | "hook" | "dlv";

export function newId(random: RandomSource, prefix: IdPrefix): string {
  return `${prefix}_${base32(random.bytes(ID_RANDOM_BYTES))}`;
}

const ID_PATTERN = /^(file|user|ses|perm|act|cmt)_[a-z2-7]{24}$/;

/** True when `value` has the shape of an id Cellar issues with this prefix. */
export function isWellFormedId(value: string, prefix: IdPrefix): boolean {
  const match = ID_PATTERN.exec(value);
  return match !== null && match[1] === prefix;
}
