import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { RefusedDestination } from "@cellar/core";
import ipaddr from "ipaddr.js";

/**
 * Cloud metadata services: reached at link-local or private addresses, and refused
 * whatever `WEBHOOK_ALLOW_PRIVATE` says (a webhook there would read the machine's
 * credentials). AWS, GCP and Azure (169.254.169.254, and AWS's IPv6 fd00:ec2::254), AWS
 * ECS tasks (169.254.170.2), Alibaba (100.100.100.200), Oracle (192.0.0.192).
 */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "fd00:ec2::254",
  "100.100.100.200",
  "192.0.0.192",
]);

/** What kind of address `address` is, as a webhook's destination sees it: null for a public one. */
export function refusedAddress(address: string, allowPrivate: boolean): RefusedDestination | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "unresolvable";
  }
  // ::ffff:10.0.0.1 is 10.0.0.1.
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) {
    return "metadata";
  }
  switch (parsed.range()) {
    case "unicast":
      return null;
    case "loopback":
      return allowPrivate ? null : "loopback";
    case "private":
    case "uniqueLocal":
    case "carrierGradeNat":
      return allowPrivate ? null : "private";
    case "linkLocal":
      return "link_local";
    default:
      // Unspecified, broadcast, multicast, reserved, documentation, 6to4 and the like.
      return "unspecified";
  }
}

/** Whether an address is loopback or private: where plain http:// may go, when allowed. */
function isLoopbackOrPrivate(address: string): boolean {
  return refusedAddress(address, false) === "loopback" || refusedAddress(address, false) === "private";
}

/** Resolves a host name to every address it has (an address literal to itself). */
export type ResolveHost = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const resolveWithDns: ResolveHost = async (hostname) => {
  if (isIP(hostname) !== 0) return [{ address: hostname, family: isIP(hostname) }];
  return lookup(hostname, { all: true, verbatim: true });
};

/** Where a delivery may connect: an address checked, or why none may be. */
export type CheckedDestination =
  | { readonly ok: true; readonly address: string; readonly family: number }
  | { readonly ok: false; readonly refused: RefusedDestination };

/**
 * Checks a webhook's URL and the addresses its host resolves to now (decisions §10):
 * `https:`, or `http:` to a loopback or private address when private ones are allowed;
 * no user name or password; and every address the name resolves to allowed (one refused
 * address refuses the name: a name that answers now one address, now another, cannot
 * slip past). Gives the first address, for the connection to use.
 */
export async function checkDestination(
  url: string,
  options: { readonly allowPrivate: boolean; readonly resolve: ResolveHost },
): Promise<CheckedDestination> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, refused: "scheme" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { ok: false, refused: "scheme" };
  if (parsed.username !== "" || parsed.password !== "") return { ok: false, refused: "credentials" };
  // URL keeps an IPv6 literal in brackets.
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: readonly { address: string; family: number }[];
  try {
    addresses = await options.resolve(hostname);
  } catch {
    return { ok: false, refused: "unresolvable" };
  }
  const first = addresses[0];
  if (first === undefined) return { ok: false, refused: "unresolvable" };
  for (const { address } of addresses) {
    const refused = refusedAddress(address, options.allowPrivate);
    if (refused !== null) return { ok: false, refused };
    if (parsed.protocol === "http:" && !isLoopbackOrPrivate(address)) return { ok: false, refused: "scheme" };
  }
  return { ok: true, address: first.address, family: first.family };
}
