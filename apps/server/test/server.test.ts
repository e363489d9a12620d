import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { createCellar, createMemoryMailer } from "@cellar/core";
import { aFile, aTrashedFile, aUser } from "@cellar/core/testing";
import type { Logger } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../src/logger.js";
import { type RunningServer, startServer } from "../src/server.js";
import { openEmbeddedStorage } from "./support/embedded-storage.js";
import { signInLinkIn } from "./support/mail-text.js";

const DAY = 86_400_000;
const dirs: string[] = [];
const servers: RunningServer[] = [];

function aDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cellar-server-"));
  dirs.push(dir);
  return dir;
}

async function start(env: Record<string, string>, logger: Logger | false = false) {
  const server = await startServer({ env: { HOST: "127.0.0.1", PORT: "0", ...env }, logger });
  servers.push(server);
  return server;
}

afterEach(async () => {
  for (const server of servers.splice(0)) await server.close(1000);
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const json = (payload: unknown) => ({
  headers: { "content-type": "application/json" },
  payload: JSON.stringify(payload),
});

/** The newest mail in the dev outbox, as it was written. */
function newestOutboxMail(dataDir: string): string {
  const outbox = join(dataDir, "outbox");
  const newest = readdirSync(outbox).sort().at(-1) ?? "";
  return readFileSync(join(outbox, newest), "utf8");
}

async function signIn(server: RunningServer, email: string) {
  await server.app.inject({ method: "POST", url: "/v1/sessions", ...json({ email }) });
  const token = (await signInLinkIn(newestOutboxMail(server.settings.dataDir))).searchParams.get("token");
  const verified = await server.app.inject({ method: "POST", url: "/v1/sessions/verify", ...json({ token }) });
  expect(verified.statusCode).toBe(200);
  const jwt = verified.json<{ jwt: string }>().jwt;
  return { jwt, headers: { authorization: `Bearer ${jwt}` } };
}

/** A real logger whose lines the test can read. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ destination }) };
}

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the standalone server", () => {
  it("creates a missing, nested DATA_DIR readable by its own user only", async () => {
    const dataDir = join(aDataDir(), "nested", "data");
    await start({ DATA_DIR: dataDir });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "cellar.db")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, "blobs"))).toBe(true);
  });

  it("writes sign-in mail to DATA_DIR/outbox when SMTP_URL is unset, and logs the link once", async () => {
    const { lines, logger } = capturedLogger();
    const dataDir = aDataDir();
    const server = await start({ DATA_DIR: dataDir }, logger);
    await signIn(server, "ada@example.com");
    expect(readdirSync(join(dataDir, "outbox")).filter((name) => name.endsWith(".eml"))).toHaveLength(1);
    const devLines = lines.filter((line) => line.devMode === true);
    expect(devLines).toHaveLength(1);
    expect(String(devLines[0]?.link)).toMatch(/\/sign-in\?token=/);
  });

  it("says which engines it stands on when it starts", async () => {
    const { lines, logger } = capturedLogger();
    const server = await start({ DATA_DIR: aDataDir() }, logger);
    expect(lines.find((line) => line.msg === "Cellar is listening")).toMatchObject({
      url: server.url,
      metadata: "sqlite",
      files: "disk",
      mail: "dev outbox",
    });
  });

  it("serves Prometheus metrics on METRICS_PORT, apart from the API, by route and status", async () => {
    const server = await start({ DATA_DIR: aDataDir(), METRICS_PORT: "0" });
    expect(server.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.metricsUrl).not.toBe(server.url);
    const { headers } = await signIn(server, "ada@example.com");
    await fetch(`${server.url}/v1/files/file_aaaaaaaaaaaaaaaaaaaaaaaa`, { headers });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
    const text = await (await fetch(`${server.metricsUrl}/metrics`)).text();
    expect(text).toMatch(/cellar_http_requests_total\{method="GET",route="\/v1\/files\/:id",status="404"\} 1/);
    expect(text).toContain("cellar_http_request_duration_seconds_bucket");
    expect(text).toContain("cellar_http_open_connections");
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    expect(text).not.toContain("file_aaaaaaaaaaaaaaaaaaaaaaaa");
  });

  it("serves no metrics unless METRICS_PORT is set", async () => {
    const server = await start({ DATA_DIR: aDataDir() });
    expect(server.metricsUrl).toBeUndefined();
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it("puts the request id in its log lines", async () => {
    const { lines, logger } = capturedLogger();
    const server = await start({ DATA_DIR: aDataDir() }, logger);
    const response = await server.app.inject({
      method: "GET",
      url: "/v1/nowhere",
      headers: { "x-request-id": "trace-42" },
    });
    expect(response.headers["x-request-id"]).toBe("trace-42");
    const requestLines = lines.filter((line) => line.reqId === "trace-42");
    expect(requestLines.map((line) => line.msg)).toEqual(["request completed"]);
    expect(requestLines[0]).toMatchObject({ method: "GET", url: "/v1/nowhere", statusCode: 404 });
  });

  it("logs each request once, with the sign-in token masked and no headers", async () => {
    const { lines, logger } = capturedLogger();
    const server = await start({ DATA_DIR: aDataDir() }, logger);
    const token = "a".repeat(43);
    await server.app.inject({
      method: "GET",
      url: `/sign-in?token=${token}&lang=en`,
      headers: { "x-request-id": "page-7", authorization: "Bearer not-a-real-jwt" },
    });
    const requestLines = lines.filter((line) => line.reqId === "page-7");
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({
      msg: "request completed",
      method: "GET",
      url: "/sign-in?token=[redacted]&lang=en",
      statusCode: 200,
    });
    expect(typeof requestLines[0]?.responseTime).toBe("number");
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(JSON.stringify(lines)).not.toContain("not-a-real-jwt");
  });

  it("answers repeated reads of a cached file with the same JSON and headers, and a rename at once", async () => {
    const server = await start({ DATA_DIR: aDataDir() });
    const alice = await signIn(server, "alice@example.com");
    const boundary = "cellar-test";
    const uploaded = await server.app.inject({
      method: "POST",
      url: "/v1/files",
      headers: { ...alice.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\r\n--${boundary}--\r\n`,
    });
    const id = uploaded.json<{ id: string }>().id;
    const get = () => server.app.inject({ method: "GET", url: `/v1/files/${id}`, headers: alice.headers });
    const answers = [await get(), await get(), await get()];
    for (const answer of answers) {
      expect(answer.statusCode).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["x-ratelimit-limit"]).toBeDefined();
      // The same text the upload's answer had, made by the same schema.
      expect(answer.body).toBe(uploaded.body);
    }
    expect(answers[0]?.json()).toMatchObject({ id, name: "a.csv", visibility: "private", state: "active" });
    const renamed = await server.app.inject({
      method: "PATCH",
      url: `/v1/files/${id}`,
      headers: { ...alice.headers, "content-type": "application/json" },
      payload: JSON.stringify({ name: "b.csv" }),
    });
    expect(renamed.statusCode).toBe(200);
    expect((await get()).json()).toMatchObject({ id, name: "b.csv" });
    const bob = await signIn(server, "bob@example.com");
    expect((await server.app.inject({ method: "GET", url: `/v1/files/${id}`, headers: bob.headers })).statusCode).toBe(
      404,
    );

    // One cached row, read by callers of three standings: each keeps seeing their own role.
    const carol = await signIn(server, "carol@example.com");
    const made = await server.app.inject({
      method: "PATCH",
      url: `/v1/files/${id}`,
      headers: { ...alice.headers, "content-type": "application/json" },
      payload: JSON.stringify({ visibility: "public" }),
    });
    const shared = await server.app.inject({
      method: "POST",
      url: `/v1/files/${id}/permissions`,
      headers: { ...alice.headers, "content-type": "application/json" },
      payload: JSON.stringify({ email: "carol@example.com", role: "editor", notify: false }),
    });
    expect([made.statusCode, shared.statusCode]).toEqual([200, 201]);
    const roles: unknown[] = [];
    for (let round = 0; round < 2; round++) {
      for (const caller of [alice, bob, carol]) {
        const answer = await server.app.inject({ method: "GET", url: `/v1/files/${id}`, headers: caller.headers });
        expect(answer.headers.etag).toBe(`"${answer.json<{ sha256: string }>().sha256}"`);
        roles.push(answer.json<{ role: unknown }>().role);
      }
    }
    expect(roles).toEqual(["owner", null, "editor", "owner", null, "editor"]);
  });

  it("writes invitations to DATA_DIR/outbox, and sends at most INVITE_RATE_MAX an hour per account", async () => {
    const server = await start({ DATA_DIR: aDataDir(), INVITE_RATE_MAX: "1" });
    const alice = await signIn(server, "alice@example.com");
    const boundary = "cellar-test";
    const uploaded = await server.app.inject({
      method: "POST",
      url: "/v1/files",
      headers: { ...alice.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Budget.csv"\r\n\r\na,b\r\n--${boundary}--\r\n`,
    });
    const id = uploaded.json<{ id: string }>().id;
    const share = (body: Record<string, unknown>) =>
      server.app.inject({
        method: "POST",
        url: `/v1/files/${id}/permissions`,
        headers: { ...alice.headers, "content-type": "application/json" },
        payload: JSON.stringify(body),
      });

    const first = await share({ email: "grace@example.com", role: "viewer", message: "For Monday." });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ email: "grace@example.com", role: "viewer", user: null, notified: true });
    const mail = newestOutboxMail(server.settings.dataDir);
    expect(mail).toMatch(/^To: grace@example\.com$/m);
    expect(mail).toContain("alice (alice@example.com) shared a file with you");
    expect(mail.split("\r\n")).toContain(`${server.publicUrl}/files/${id}`);
    expect(mail).toContain("> For Monday.");
    expect(mail).not.toMatch(/token/i);

    const over = await share({ email: "heidi@example.com", role: "viewer" });
    expect(over.statusCode).toBe(429);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect((await share({ email: "heidi@example.com", role: "viewer", notify: false })).statusCode).toBe(201);
  });

  it("applies the rate limit, upload limit, retention and lifetimes it was given", async () => {
    const server = await start({
      DATA_DIR: aDataDir(),
      RATE_LIMIT_MAX: "8",
      MAX_UPLOAD_BYTES: "10",
      TRASH_RETENTION_DAYS: "2",
      MAGIC_LINK_TTL_SECONDS: "120",
      JWT_TTL_SECONDS: "90",
    });
    const alice = await signIn(server, "alice@example.com");
    expect(newestOutboxMail(server.settings.dataDir)).toContain("2 minutes");
    const claims = JSON.parse(Buffer.from(alice.jwt.split(".")[1] ?? "", "base64url").toString()) as {
      iat: number;
      exp: number;
    };
    expect(claims.exp - claims.iat).toBe(90);

    const boundary = "cellar-test";
    const body = (content: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n${content}\r\n--${boundary}--\r\n`;
    const upload = (content: string) =>
      server.app.inject({
        method: "POST",
        url: "/v1/files",
        headers: { ...alice.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
        payload: body(content),
      });
    expect((await upload("0123456789a")).statusCode).toBe(413);
    const uploaded = await upload("0123456789");
    expect(uploaded.statusCode).toBe(201);
    const trashed = await server.app.inject({
      method: "DELETE",
      url: `/v1/files/${uploaded.json<{ id: string }>().id}`,
      headers: alice.headers,
    });
    const file = trashed.json<{ trashed_at: string; purge_at: string }>();
    expect(Date.parse(file.purge_at) - Date.parse(file.trashed_at)).toBe(2 * DAY);

    // Alice's fourth request of the window; the sign-in requests counted against her address.
    const me = await server.app.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(me.headers["x-ratelimit-limit"]).toBe("8");
    expect(me.headers["x-ratelimit-remaining"]).toBe("4");
    for (let i = 0; i < 4; i++) await server.app.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    const over = await server.app.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(over.statusCode).toBe(429);
  });

  it("keeps sessions valid across a restart on the same DATA_DIR", async () => {
    const dataDir = aDataDir();
    const first = await start({ DATA_DIR: dataDir });
    const alice = await signIn(first, "alice@example.com");
    await first.close(1000);
    servers.splice(servers.indexOf(first), 1);
    const second = await start({ DATA_DIR: dataDir });
    expect((await second.app.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers })).statusCode).toBe(
      200,
    );
    expect(statSync(join(dataDir, "jwt-secret")).mode & 0o777).toBe(0o600);
  });

  it("changes a workbook's structure on SQLite and files: formulas follow, a thread moves, both kept across a restart", async () => {
    const dataDir = aDataDir();
    const first = await start({ DATA_DIR: dataDir });
    const alice = await signIn(first, "alice@example.com");
    const boundary = "cellar-test";
    const budget = readFileSync(
      new URL("../../../packages/adapter-sheets/test/fixtures/libreoffice-budget.xlsx", import.meta.url),
    );
    const uploaded = await first.app.inject({
      method: "POST",
      url: "/v1/files",
      headers: { ...alice.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="budget.xlsx"\r\n\r\n`),
        budget,
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]),
    });
    expect(uploaded.statusCode).toBe(201);
    const id = uploaded.json<{ id: string }>().id;
    const thread = await first.app.inject({
      method: "POST",
      url: `/v1/files/${id}/comments`,
      ...json({ text: "Is the total right?", range: "Budget!B6" }),
      headers: { ...alice.headers, "content-type": "application/json" },
    });
    expect(thread.statusCode).toBe(201);
    const changed = await first.app.inject({
      method: "POST",
      url: `/v1/files/${id}/structure`,
      ...json({ operations: [{ insert: "rows", sheet: "Budget", before: 3, count: 2 }] }),
      headers: { ...alice.headers, "content-type": "application/json", "if-match": "*" },
    });
    expect(changed.statusCode).toBe(200);
    await first.close(1000);
    servers.splice(servers.indexOf(first), 1);

    const second = await start({ DATA_DIR: dataDir });
    const read = (range: string) =>
      second.app.inject({
        method: "GET",
        url: `/v1/files/${id}/values?range=${encodeURIComponent(range)}&render=formula`,
        headers: alice.headers,
      });
    expect((await read("Summary!A1:A2")).json<{ values: unknown[][] }>().values).toEqual([
      ["=Budget!B8"],
      ["=SUM(Budget!B2:B7)"],
    ]);
    const threads = await second.app.inject({ method: "GET", url: `/v1/files/${id}/comments`, headers: alice.headers });
    expect(threads.json<{ range: string }[]>().map((each) => each.range)).toEqual(["Budget!B8"]);
    const versions = await second.app.inject({
      method: "GET",
      url: `/v1/files/${id}/versions`,
      headers: alice.headers,
    });
    expect(
      versions
        .json<{ version: number }[]>()
        .map((each) => each.version)
        .sort(),
    ).toEqual([1, 2]);
  });

  it("runs the purge job at start-up and then on its interval", async () => {
    const dataDir = aDataDir();
    const setup = await openEmbeddedStorage(dataDir);
    const owner = await setup.users.insertIfAbsent(aUser());
    async function dueFile(storage: typeof setup) {
      const file = aTrashedFile(owner.id, new Date(Date.now() - DAY));
      await storage.blobs.write({
        key: file.blobKey,
        source: (async function* () {
          yield randomBytes(16);
        })(),
      });
      await storage.files.insert({ file, activity: [] });
      return file;
    }
    const atStart = await dueFile(setup);
    const kept = aFile(owner.id);
    await setup.blobs.write({
      key: kept.blobKey,
      source: (async function* () {
        yield randomBytes(16);
      })(),
    });
    await setup.files.insert({ file: kept, activity: [] });

    const server = await start({ DATA_DIR: dataDir, PURGE_INTERVAL_SECONDS: "1" });
    await eventually(async () => (await setup.files.findById(atStart.id)) === null);
    const later = await dueFile(setup);
    await eventually(async () => (await setup.files.findById(later.id)) === null, 4000);
    expect(await setup.files.findById(kept.id)).not.toBeNull();
    expect((await server.app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    setup.close();
  });

  it("answers readiness 503 with Retry-After when file storage is gone", async () => {
    const dataDir = aDataDir();
    const server = await start({ DATA_DIR: dataDir });
    expect((await server.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
    rmSync(join(dataDir, "blobs"), { recursive: true });
    const notReady = await server.app.inject({ method: "GET", url: "/readyz" });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.headers["retry-after"]).toBe("5");
    expect(notReady.json()).toEqual({
      error: { code: "unavailable", message: "The database or file storage cannot be reached." },
    });
  });

  it("answers 503 unavailable, not 500, when the database fails under a request, and logs it with the request id", async () => {
    const { lines, logger } = capturedLogger();
    const server = await start({ DATA_DIR: aDataDir() }, logger);
    const alice = await signIn(server, "alice@example.com");
    server.storage.files.listByOwner = async () => {
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    };
    const response = await server.app.inject({
      method: "GET",
      url: "/v1/files",
      headers: { ...alice.headers, "x-request-id": "busy-1" },
    });
    expect(response.statusCode).toBe(503);
    expect(response.headers["retry-after"]).toBe("5");
    expect(response.json()).toMatchObject({ error: { code: "unavailable" } });
    // The warning goes through the request's own logger, made when it is first used.
    const requestLines = lines.filter((line) => line.reqId === "busy-1");
    expect(requestLines.map((line) => line.level)).toEqual([40, 30]);
    expect(requestLines[1]).toMatchObject({ msg: "request completed", statusCode: 503 });
  });

  it("lets core run against the same DATA_DIR from another connection while it serves", async () => {
    const dataDir = aDataDir();
    const server = await start({ DATA_DIR: dataDir });
    const alice = await signIn(server, "alice@example.com");
    const other = await openEmbeddedStorage(dataDir);
    const user = await other.users.findByEmail("alice@example.com");
    const cellar = createCellar({
      ...other,
      mailer: createMemoryMailer(),
      config: { publicUrl: server.publicUrl, jwtSecret: randomBytes(32) },
    });
    await cellar.files.upload({
      ownerId: user?.id ?? "",
      clientFileName: "side.csv",
      content: (async function* () {
        yield Buffer.from("a\n");
      })(),
    });
    const list = await server.app.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expect(list.headers["x-total-count"]).toBe("1");
    other.close();
  });
});
