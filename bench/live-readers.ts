/**
 * The readers of `pnpm bench:live`: a process of its own, started by bench/live.ts and
 * told what to do over IPC, that holds the benchmark's event streams open and reads them,
 * and makes the edits whose events it times.
 *
 * Why a process apart: 1,000 streams read and parsed in the process that also starts
 * the servers, signs in and counts edits per second would slow that process's own
 * requests and timers by the readers' work. Why the edits of the latency figures are made
 * here too: an event's time and its edit's answer are read on one clock, this process's
 * `performance.now()`, so no two clocks need agree.
 *
 * Each stream is a plain HTTP/1.1 request (`node:http`, a connection each, as browsers
 * make them) whose body is parsed only as far as the figures need: blocks split at the
 * blank line, and a block's `data:` line read as JSON only for a `content` event, whose
 * `version` names the edit it tells of.
 */
import { type ClientRequest, type IncomingMessage, request } from "node:http";
import { fetchOnFreshConnection } from "./cellar-client.js";
import { quantile } from "./stats.js";

/** What bench/live.ts asks of this process; each is answered by a `LiveReply` of its kind. */
export type LiveCommand =
  | {
      readonly kind: "open";
      /** Base URLs of the servers: stream `i` reads from `servers[i % servers.length]`. */
      readonly servers: readonly string[];
      readonly fileId: string;
      /** Sessions of the readers: stream `i` is `tokens[i % tokens.length]`'s. */
      readonly tokens: readonly string[];
      readonly count: number;
    }
  | {
      readonly kind: "edits";
      /** Edit `k` goes through `servers[k % servers.length]`. */
      readonly servers: readonly string[];
      readonly fileId: string;
      readonly token: string;
      readonly count: number;
      /** The pause after each edit's answer before the next edit. */
      readonly spacingMs: number;
    }
  | { readonly kind: "close" };

export interface FanOut {
  /** Latency of each (edit, stream) pair, ms: p50, p99, max. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** The same, for the streams on the server that made the edit, and on another. */
  readonly sameServerP99: number;
  readonly otherServerP99: number;
  /** Pairs whose event was read before the edit's answer (counted as 0 ms). */
  readonly early: number;
  readonly pairs: number;
  /** Median time from sending an edit to its answer, ms. */
  readonly editP50: number;
  /** p99 of the time from sending an edit to its event, ms: the answer may wait behind the events. */
  readonly fromSentP99: number;
}

export type LiveReply =
  | { readonly kind: "opened"; readonly count: number; readonly ms: number }
  | { readonly kind: "edited"; readonly fanOut: FanOut }
  | { readonly kind: "closed" }
  | { readonly kind: "failed"; readonly message: string };

/** One open stream: when each content version was read on it. */
interface Reader {
  readonly server: number;
  readonly request: ClientRequest;
  /** Version → `performance.now()` when its event was read. */
  readonly seen: Map<number, number>;
  ended: boolean;
}

let readers: Reader[] = [];
/** When any stream last received a byte: the streams are quiet once nothing came for a while. */
let lastByteAt = 0;
/** Set when a stream ends or fails while it should be open: the figures would be wrong. */
let broken: string | null = null;
/** Set while the benchmark closes the streams: their ends are expected then. */
let closing = false;

/** How long no stream may receive anything before the opened streams count as settled. */
const QUIET_MS = 1000;
/** How long the readers wait for the events of the last edit before counting them missing. */
const EVENTS_WITHIN_MS = 30_000;
/** Streams opening at once. */
const OPENING_AT_ONCE = 25;

/** Opens one stream and resolves once its first event (the file) has been read. */
function openStream(url: string, token: string, server: number): Promise<Reader> {
  return new Promise((resolve, reject) => {
    let opened = false;
    const req = request(url, {
      agent: false,
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    });
    const reader: Reader = { server, request: req, seen: new Map(), ended: false };
    req.on("response", (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () => reject(new Error(`GET ${url} answered ${response.statusCode}: ${body}`)));
        return;
      }
      response.setEncoding("utf8");
      let buffered = "";
      response.on("data", (chunk: string) => {
        const at = performance.now();
        lastByteAt = at;
        buffered += chunk;
        let end = buffered.indexOf("\n\n");
        while (end >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          end = buffered.indexOf("\n\n");
          if (!opened && block.includes("event: file")) {
            opened = true;
            resolve(reader);
          } else if (block.includes("event: content\n")) {
            const data = block.slice(block.indexOf("data: ") + 6);
            const { version } = JSON.parse(data) as { version: number };
            if (!reader.seen.has(version)) reader.seen.set(version, at);
          } else if (block.includes("event: revoked")) {
            broken ??= "a stream was revoked";
          }
        }
      });
      response.on("end", () => {
        reader.ended = true;
        if (!opened) reject(new Error(`GET ${url} ended before its first event`));
        else if (!closing) broken ??= "a stream ended while it should have been open";
      });
    });
    req.on("error", (error) => {
      reader.ended = true;
      if (!opened) reject(error);
      else if (!closing) broken ??= `a stream failed: ${error.message}`;
    });
    req.end();
  });
}

async function open(command: Extract<LiveCommand, { kind: "open" }>): Promise<LiveReply> {
  const started = performance.now();
  closing = false;
  broken = null;
  let next = 0;
  const opened: Reader[] = [];
  await Promise.all(
    Array.from({ length: Math.min(OPENING_AT_ONCE, command.count) }, async () => {
      while (next < command.count) {
        const i = next++;
        const server = i % command.servers.length;
        const token = command.tokens[i % command.tokens.length] as string;
        opened.push(await openStream(`${command.servers[server]}/v1/files/${command.fileId}/events`, token, server));
      }
    }),
  );
  readers = readers.concat(opened);
  // Each stream that opens tells every other who is present: wait until that has died down.
  while (performance.now() - lastByteAt < QUIET_MS) await sleep(100);
  return { kind: "opened", count: readers.length, ms: performance.now() - started };
}

async function edits(command: Extract<LiveCommand, { kind: "edits" }>): Promise<LiveReply> {
  const answered: { version: number; sent: number; at: number; server: number }[] = [];
  const editTimes: number[] = [];
  for (let k = 0; k < command.count; k++) {
    const server = k % command.servers.length;
    const sent = performance.now();
    const response = await fetchOnFreshConnection(`${command.servers[server]}/v1/files/${command.fileId}/values`, {
      method: "PATCH",
      headers: {
        authorization: `Bearer ${command.token}`,
        "content-type": "application/json",
        "if-match": "*",
      },
      body: JSON.stringify({ range: "B5000", values: [[`live ${k}`]] }),
    });
    const text = await response.text();
    const at = performance.now();
    if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${text}`);
    const { file } = JSON.parse(text) as { file: { version: number } };
    answered.push({ version: file.version, sent, at, server });
    editTimes.push(at - sent);
    await sleep(command.spacingMs);
  }
  const deadline = performance.now() + EVENTS_WITHIN_MS;
  const allSeen = () => readers.every((reader) => answered.every((edit) => reader.seen.has(edit.version)));
  while (!allSeen() && broken === null && performance.now() < deadline) await sleep(50);
  if (broken !== null) throw new Error(broken);
  const all: number[] = [];
  const fromSent: number[] = [];
  const same: number[] = [];
  const other: number[] = [];
  let early = 0;
  let missing = 0;
  for (const edit of answered) {
    for (const reader of readers) {
      const seenAt = reader.seen.get(edit.version);
      if (seenAt === undefined) {
        missing++;
        continue;
      }
      // An event may be read before its edit's answer: the server writes both at once.
      if (seenAt < edit.at) early++;
      const latency = Math.max(0, seenAt - edit.at);
      all.push(latency);
      fromSent.push(seenAt - edit.sent);
      (reader.server === edit.server ? same : other).push(latency);
    }
  }
  if (missing > 0) throw new Error(`${missing} events of ${answered.length * readers.length} not read within 30 s`);
  for (const list of [all, fromSent, same, other, editTimes]) list.sort((a, b) => a - b);
  return {
    kind: "edited",
    fanOut: {
      p50: quantile(all, 0.5),
      p99: quantile(all, 0.99),
      max: all.at(-1) ?? Number.NaN,
      sameServerP99: quantile(same, 0.99),
      otherServerP99: quantile(other, 0.99),
      early,
      pairs: all.length,
      editP50: quantile(editTimes, 0.5),
      fromSentP99: quantile(fromSent, 0.99),
    },
  };
}

async function close(): Promise<LiveReply> {
  closing = true;
  const ends = readers.map(
    (reader) =>
      new Promise<void>((resolve) => {
        if (reader.ended || reader.request.destroyed) resolve();
        else reader.request.once("close", () => resolve());
      }),
  );
  for (const reader of readers) reader.request.destroy();
  await Promise.all(ends);
  readers = [];
  return { kind: "closed" };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

process.on("message", (command: LiveCommand) => {
  const run = command.kind === "open" ? open(command) : command.kind === "edits" ? edits(command) : close();
  run.then(
    (reply) => process.send?.(reply),
    (error: unknown) => process.send?.({ kind: "failed", message: String(error) } satisfies LiveReply),
  );
});
// Ends with the benchmark: its IPC channel closing means it has gone.
process.on("disconnect", () => process.exit(0));
