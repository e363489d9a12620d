import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CellarApiError, createCellarClient, unwrap } from "../src/index.js";

/**
 * A body over its limit sent through the client (fetch underneath) gets the server's
 * refusal as a CellarApiError, not a connection reset mid-send. The server runs in a
 * process of its own, as for any real client: see adapter-http's oversized-bodies test.
 */

const MiB = 1024 * 1024;
const MAX_UPLOAD_BYTES = 1 * MiB;
const TRIES = 8;
const TIMEOUT_MS = 120_000;

const SERVER = fileURLToPath(new URL("../../adapter-http/test/support/listening-test-app.ts", import.meta.url));

let server: ChildProcess | undefined;
let client: ReturnType<typeof createCellarClient>;
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
  client = createCellarClient({ baseUrl: ready.url, token: ready.authorization.replace(/^Bearer /, "") });
  fileId = ready.fileId;
}, TIMEOUT_MS);

afterAll(async () => {
  const child = server;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.on("exit", resolve));
  child.kill("SIGTERM");
  await exited;
});

/** What a refused call came to: the API error's status and code, or whatever else it threw. */
async function refusal(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return "accepted";
  } catch (error) {
    if (error instanceof CellarApiError) return `${error.status} ${error.code}`;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return `failed: ${cause?.code ?? cause?.message ?? String(error)}`;
  }
}

const everyTime = (answer: string) => Array.from({ length: TRIES }, () => answer);

describe("the client sending a body over its limit", () => {
  it(
    "replaceContent with 8 MiB over a 1 MiB MAX_UPLOAD_BYTES rejects with the 413",
    async () => {
      const content = new Uint8Array(8 * MiB).fill(0x31);
      const seen = await Promise.all(
        Array.from({ length: TRIES }, () =>
          refusal(() => client.replaceContent(fileId, { content, size: content.length }, { ifMatch: "*" })),
        ),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );

  it(
    "PATCH /files/{id} with an 8 MiB name rejects with the 413",
    async () => {
      const name = "a".repeat(8 * MiB);
      const seen = await Promise.all(
        Array.from({ length: TRIES }, () =>
          refusal(() => unwrap(client.api.PATCH("/files/{id}", { params: { path: { id: fileId } }, body: { name } }))),
        ),
      );
      expect(seen).toEqual(everyTime("413 payload_too_large"));
    },
    TIMEOUT_MS,
  );
});
