/**
 * Reads of a file shared with someone, as the benchmarks measure them: the file's
 * metadata read by a viewer beside the same read by its owner, and the first page of the
 * files shared with one person.
 */
import { fetchOnFreshConnection, json, signIn, uploadSmallCsv } from "./cellar-client.js";
import { CONNECTIONS, load, median, pairedRatio, ROUNDS, rounds, sequentialMedian, WARM_UP_SECONDS } from "./load.js";
import type { RunningProcess } from "./processes.js";

/** Gives `email` the viewer's role on the owner's file, telling nobody by mail. */
async function shareAsViewer(cellar: RunningProcess, ownerJwt: string, fileId: string, email: string) {
  const shared = await json<{ role: string }>(`${cellar.url}/v1/files/${fileId}/permissions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, role: "viewer", notify: false }),
    jwt: ownerJwt,
  });
  if (shared.status !== 201 || shared.body.role !== "viewer") throw new Error(`sharing answered ${shared.status}`);
}

/**
 * Authenticated `GET fileUrl` by the file's owner and by a viewer it is shared with, each
 * against the bare route `bareUrl`, in the same rounds: a warm-up of each, then, round by
 * round, the bare route, the owner, the viewer: the owner's figure right after the bare
 * route's, as `get_file_rps_ratio` has always been taken, the viewer's in the same round.
 *
 * - `owner`: the owner's ratio, p99 and rounds;
 * - `viewer.ratio`: the viewer's req/s over the bare route's, paired by round, as
 *   `owner.ratio` is; `viewer.ofOwner`: the viewer's req/s over the owner's, paired by round.
 */
export async function ownerAndViewerGetRounds(bareUrl: string, fileUrl: string, ownerJwt: string, viewerJwt: string) {
  const owner = { authorization: `Bearer ${ownerJwt}` };
  const viewer = { authorization: `Bearer ${viewerJwt}` };
  const bareRps: number[] = [];
  const ownerRps: number[] = [];
  const ownerP99: number[] = [];
  const viewerRps: number[] = [];
  const viewerP99: number[] = [];
  await load(bareUrl, {}, WARM_UP_SECONDS);
  await load(fileUrl, owner, WARM_UP_SECONDS);
  await load(fileUrl, viewer, WARM_UP_SECONDS);
  for (let round = 0; round < ROUNDS; round++) {
    bareRps.push((await load(bareUrl)).rps);
    const byOwner = await load(fileUrl, owner);
    ownerRps.push(byOwner.rps);
    ownerP99.push(byOwner.p99);
    const byViewer = await load(fileUrl, viewer);
    viewerRps.push(byViewer.rps);
    viewerP99.push(byViewer.p99);
  }
  const ofOwner = pairedRatio(viewerRps, ownerRps);
  return {
    owner: {
      ratio: pairedRatio(ownerRps, bareRps),
      p99: median(ownerP99),
      rounds: rounds(ownerRps, bareRps, "req/s"),
      p99Note: `${CONNECTIONS} connections, median of ${ownerP99.join(", ")}`,
    },
    viewer: {
      ratio: pairedRatio(viewerRps, bareRps),
      ofOwner,
      p99: median(viewerP99),
      note:
        `viewer / owner in the same rounds ${ofOwner.toFixed(3)}; viewer p99 ${median(viewerP99)} ms; ` +
        `rounds, viewer / owner / bare req/s: ${viewerRps
          .map((value, round) => `${value.toFixed(0)} / ${ownerRps[round]?.toFixed(0)} / ${bareRps[round]?.toFixed(0)}`)
          .join(", ")}`,
    },
  };
}

/** The target of a viewer's read: at least 0.9 of the owner's ratio measured in the same run. */
export const viewerTarget = (ownerKey: string, ownerRatio: number) =>
  `≥ 0.9 × ${ownerKey} (${(0.9 * ownerRatio).toFixed(3)})`;

/**
 * Median latency of the first page (25) of `GET /files?shared=true` for a person to whom
 * `count` files are shared, over 200 sequential requests. Its total is checked first.
 */
export async function sharedFirstPage(cellarUrl: string, jwt: string, count: number) {
  const url = `${cellarUrl}/v1/files?shared=true&page=1&per_page=25`;
  const response = await fetchOnFreshConnection(url, { headers: { authorization: `Bearer ${jwt}` } });
  const total = Number(response.headers.get("x-total-count"));
  const page = (await response.json()) as unknown[];
  if (response.status !== 200 || total !== count || page.length !== Math.min(25, count)) {
    throw new Error(`the shared list answered ${response.status} with X-Total-Count ${total}, not ${count}`);
  }
  const ms = await sequentialMedian(url, jwt, 200);
  return { ms, note: `${count} files shared with one person, newest share first, per_page 25` };
}

/**
 * Alice's small file read by Alice and by Vera, a viewer it is shared with, against the
 * bare JSON route: `ownerAndViewerGetRounds` on a Cellar just started.
 */
export async function fileReadsByOwnerAndViewer(cellar: RunningProcess, bareUrl: string) {
  const alice = await signIn(cellar, "alice@example.com");
  const small = await uploadSmallCsv(cellar, alice.jwt);
  const vera = await signIn(cellar, "vera@example.com");
  await shareAsViewer(cellar, alice.jwt, small.id, "vera@example.com");
  return ownerAndViewerGetRounds(`${bareUrl}/json`, `${cellar.url}/v1/files/${small.id}`, alice.jwt, vera.jwt);
}
