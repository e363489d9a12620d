import { type ChildProcess, spawn } from "node:child_process";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFUSED_BODY_DRAIN_BYTES } from "../src/http/refused-body.js";

/**
 * Bodies over their limit (or of the wrong type), sent over a real connection by Node's
 * own fetch (undici) as any client would: each must be answered with its 413 or 415, not
 * met with a connection closed under the client while it is still sending (EPIPE,
 * ECONNRESET, "other side closed"). The server runs in a process of its own, as it does
 * for real clients: sharing the test's event loop, it could never close a connection
 * before the client had read the answer on it, and the fault would not show.
 *
 * Whether a closing server's reset reaches the client before the answer is a race: each
 * case is sent several times, all of which must be answered.
 */

const MiB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 1 * MiB;
const TRIES = 8;
/** Roomy for a slow, busy 2-core machine: a few MiB cross the loopback in well under a second. */
const TIMEOUT_MS = 120_000;

const SERVER = fileURLToPath(new URL("./support/listening-test-app.ts", import.meta.url));

let server: ChildProcess | undefined;
let baseUrl = "";
let authorization = "";
let fileId = "";

beforeAll(async () => {
  const child = spawn(
    process.execPath,
    ["--conditions=@cellar/source", "--import", "tsx", SERVER, `${MAX_UPLOAD_BYTES}`],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  server = child;
  const ready = await new Promise<{ url: string; authorization: string; fileId: string }>((resolve, reject) => {
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split("\n").find((candidate) => candidate.startsWith("{") && candidate.endsWith("}"));
      if (line !== undefined) resolve(JSON.parse(line));
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`The test server exited (${code}) before it listened: ${output}`)));
  });
  baseUrl = ready.url;
  authorization = ready.authorization;
  fileId = ready.fileId;
}, TIMEOUT_MS);

afterAll(async () => {
  const child = server;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
});

/** `{"name":"aaa…"}`, `bytes` long. */
function bigJson(bytes: number): Uint8Array {
  const head = '{"name":"';
  const tail = '"}';
  return new TextEncoder().encode(`${head}${"a".repeat(bytes - head.length - tail.length)}${tail}`);
}

const CSV_ROWS = new TextEncoder().encode("1,2,3,4,5,6,7\n".repeat(4681)); // 65,534 bytes

/** `bytes` of a CSV's text. */
function csvBytes(bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  for (let at = 0; at < bytes; at += CSV_ROWS.length) out.set(CSV_ROWS.subarray(0, bytes - at), at);
  return out;
}

/** `bytes` of a CSV's text as a stream of 64 KiB chunks: sent chunked, with no Content-Length. */
function csvStream(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(controller) {
      if (left <= 0) {
        controller.close();
        return;
      }
      const piece = CSV_ROWS.subarray(0, Math.min(left, CSV_ROWS.length));
      left -= piece.length;
      controller.enqueue(piece);
    },
  });
}

/**
 * Sends the request `TRIES` times at once, as a busy client would, and answers what each
 * came to: `413 payload_too_large`, say, or the error fetch rejected with.
 */
function outcomes(request: () => Promise<Response>): Promise<string[]> {
  return Promise.all(Array.from({ length: TRIES }, () => outcome(request)));
}

async function outcome(request: () => Promise<Response>): Promise<string> {
  try {
    const response = await request();
    const text = await response.text();
    let code = text;
    try {
      const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
      code = typeof body.error?.message === "string" ? String(body.error.code) : text;
    } catch {
      // Not the API's error JSON: the text itself says what came.
    }
    return `${response.status} ${code}`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `fetch failed: ${cause?.code ?? cause?.message ?? String(error)}`;
  }
}

const everyTime = (answer: string) => Array.from({ length: TRIES }, () => answer);

describe("a body over its limit, sent by fetch", () => {
  it(
    "PATCH /v1/files/:id with a 2 MiB JSON body is answered 413",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}`, {
          method: "PATCH",
          headers: { authorization, "content-type": "application/json" },
          body: bigJson(2 * MiB),
        }),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "PATCH /v1/files/:id with an 8 MiB JSON body is answered 413",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}`, {
          method: "PATCH",
          headers: { authorization, "content-type": "application/json" },
          body: bigJson(8 * MiB),
        }),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "PUT /v1/files/:id/content with 8 MiB over a 1 MiB MAX_UPLOAD_BYTES is answered 413",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}/content`, {
          method: "PUT",
          headers: { authorization, "content-type": "text/csv", "if-match": "*" },
          body: csvBytes(8 * MiB),
        }),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "PUT /v1/files/:id/content with 8 MiB streamed (no Content-Length) is answered 413",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}/content`, {
          method: "PUT",
          headers: { authorization, "content-type": "text/csv", "if-match": "*" },
          body: csvStream(8 * MiB),
          duplex: "half",
        } as RequestInit),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "POST /v1/files with an 8 MiB file over a 1 MiB MAX_UPLOAD_BYTES is answered 413",
    async () => {
      const seen = await outcomes(() => {
        const form = new FormData();
        form.append("file", new Blob([csvBytes(8 * MiB)], { type: "text/csv" }), "big.csv");
        return fetch(`${baseUrl}/v1/files`, { method: "POST", headers: { authorization }, body: form });
      });
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "a JSON route sent 8 MiB as text/plain is answered 415",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}`, {
          method: "PATCH",
          headers: { authorization, "content-type": "text/plain" },
          body: bigJson(8 * MiB),
        }),
      );
      expect(seen).toEqual(everyTime("415 unsupported_media_type"));
    },
    TIMEOUT_MS,
  );

  it(
    "a route that takes no body, sent 8 MiB as text/plain, is answered 413 (its size is checked first)",
    async () => {
      const seen = await outcomes(() =>
        fetch(`${baseUrl}/v1/files/${fileId}/restore`, {
          method: "POST",
          headers: { authorization, "content-type": "text/plain" },
          body: bigJson(8 * MiB),
        }),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "after a refused body read to its end, the connection serves the next request",
    async () => {
      const refused = await fetch(`${baseUrl}/v1/files/${fileId}`, {
        method: "PATCH",
        headers: { authorization, "content-type": "application/json" },
        body: bigJson(2 * MiB),
      });
      expect(refused.status).toBe(413);
      await refused.text();
      expect(refused.headers.get("connection")).not.toBe("close");
      const next = await fetch(`${baseUrl}/v1/files/${fileId}`, { headers: { authorization } });
      expect(next.status).toBe(200);
    },
    TIMEOUT_MS,
  );
});

describe("a body whose rest is over what the server reads to refuse it", () => {
  it(
    "is answered at once, with Connection: close, without waiting for the rest",
    async () => {
      // Declares far more than the server reads and drops (a gigabyte): it must answer
      // without reading it, not wait for bytes this client never sends.
      const declared = 1024 * MiB;
      expect(declared).toBeGreaterThan(REFUSED_BODY_DRAIN_BYTES);
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(baseUrl).port) });
      const answer = await new Promise<string>((resolve, reject) => {
        let received = "";
        socket.on("data", (chunk: Buffer) => {
          received += chunk.toString("latin1");
        });
        socket.on("error", reject);
        socket.on("close", () => resolve(received));
        socket.write(
          `PATCH /v1/files/${fileId} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n{"name":"`,
        );
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer.toLowerCase()).toContain("connection: close");
      expect(answer).toContain('"payload_too_large"');
    },
    TIMEOUT_MS,
  );
});
