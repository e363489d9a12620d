import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cellarApi, cellarOpenApi } from "@cellar/adapter-http";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { createInMemoryCellar } from "@cellar/core";
import { createRecordingWebhookTransport } from "@cellar/core/testing";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTypes } from "../scripts/generated-types.js";
import { CellarApiError, createCellarClient, FILE_SORT_ORDERS, PERMISSION_ROLES, unwrap } from "../src/index.js";
import { replaceContentFromFile, uploadFile } from "../src/node/index.js";

describe("the generated types", () => {
  it("match the OpenAPI document the server serves (run `scripts/pnpm --filter @cellar/client generate`)", async () => {
    const checkedIn = readFileSync(new URL("../src/generated/openapi.ts", import.meta.url), "utf8");
    expect(checkedIn).toBe(await generatedTypes());
  });
});

/**
 * The real time, one millisecond on at least at every reading: changes made within one
 * millisecond still get times in the order they were made, so activity lists in that order.
 */
function steppingClock() {
  let last = 0;
  return {
    now() {
      last = Math.max(Date.now(), last + 1);
      return new Date(last);
    },
  };
}

describe("the client against a real server", () => {
  const publicUrl = "http://127.0.0.1";
  const receiver = createRecordingWebhookTransport();
  const cellar = createInMemoryCellar({
    config: { publicUrl },
    spreadsheets: createSpreadsheetReader(),
    spreadsheetWriter: createSpreadsheetWriter(),
    clock: steppingClock(),
    webhookTransport: receiver.transport,
  });
  const app = Fastify({ logger: false });
  let baseUrl = "";

  beforeAll(async () => {
    await app.register(cellarOpenApi, { publicUrl });
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => app.close());

  async function tokenOf(email: string) {
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email } }));
    const token = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    return (await unwrap(anonymous.api.POST("/sessions/verify", { body: { token } }))).jwt;
  }

  async function signedIn(email: string) {
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email } }));
    const token = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    const session = await unwrap(anonymous.api.POST("/sessions/verify", { body: { token } }));
    return createCellarClient({ baseUrl, token: session.jwt });
  }

  it("signs in and reads typed answers", async () => {
    const client = await signedIn("ada@example.com");
    const me = await unwrap(client.api.GET("/users/me"));
    expect(me.email).toBe("ada@example.com");
    const files = await unwrap(client.api.GET("/files", { params: { query: { per_page: "10" } } }));
    expect(files).toEqual([]);
  });

  it("lists every file page after page as one sequence", async () => {
    const client = await signedIn("cy@example.com");
    const owner = await unwrap(client.api.GET("/users/me"));
    for (let i = 0; i < 7; i++) {
      await cellar.files.upload({
        ownerId: owner.id,
        clientFileName: `f${i}.csv`,
        content: (async function* () {
          yield new TextEncoder().encode("a,b\n");
        })(),
      });
    }
    const names: string[] = [];
    for await (const file of client.files({ perPage: 3 })) names.push(file.name);
    // The same files in the same order as one page of all of them.
    const onePage = await unwrap(client.api.GET("/files", { params: { query: { per_page: "100" } } }));
    expect(names).toEqual(onePage.map((file) => file.name));
    expect([...names].sort()).toEqual(["f0.csv", "f1.csv", "f2.csv", "f3.csv", "f4.csv", "f5.csv", "f6.csv"]);
    const trashed: string[] = [];
    for await (const file of client.files({ trashed: true })) trashed.push(file.name);
    expect(trashed).toEqual([]);
  });

  it("lists the files a search finds, in the order asked, page after page", async () => {
    const client = await signedIn("di@example.com");
    const owner = await unwrap(client.api.GET("/users/me"));
    for (const name of ["Budget b.csv", "notes.csv", "BUDGET a.csv", "Q3 budget.csv", "plan.csv"]) {
      await cellar.files.upload({
        ownerId: owner.id,
        clientFileName: "x.csv",
        name,
        content: (async function* () {
          yield new TextEncoder().encode("a,b\n");
        })(),
      });
    }
    const names: string[] = [];
    for await (const file of client.files({ q: "budget", sort: "-name", perPage: 2 })) names.push(file.name);
    expect(names).toEqual(["Q3 budget.csv", "Budget b.csv", "BUDGET a.csv"]);
    expect(FILE_SORT_ORDERS).toEqual([
      "created_at",
      "-created_at",
      "updated_at",
      "-updated_at",
      "name",
      "-name",
      "size",
      "-size",
    ]);
  });

  it("uploads a stream with progress as its bytes go out, byte for byte", async () => {
    const client = await signedIn("dee@example.com");
    const line = new TextEncoder().encode("id,amount,note\n");
    const rows = Array.from({ length: 40 }, (_, i) =>
      new TextEncoder().encode(`${i},${i * 3},"row ${i}"\n`.repeat(2000)),
    );
    const size = line.length + rows.reduce((sum, chunk) => sum + chunk.length, 0);
    const progress: number[] = [];
    const file = await client.upload(
      {
        fileName: "big.csv",
        size,
        content: (async function* () {
          yield line;
          yield* rows;
        })(),
      },
      {
        name: "Big one",
        visibility: "public",
        onProgress: (sent, total) => {
          expect(total).toBe(size);
          progress.push(sent);
        },
      },
    );
    expect(file).toMatchObject({ name: "Big one", visibility: "public", size });
    expect(progress.at(-1)).toBe(size);
    expect(progress.length).toBeGreaterThan(10);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    const download = await client.api.GET("/files/{id}/download", {
      params: { path: { id: file.id } },
      parseAs: "arrayBuffer",
    });
    const expected = Buffer.concat([line, ...rows]);
    expect(Buffer.from(download.data as ArrayBuffer).equals(expected)).toBe(true);
  });

  it("uploads a file from disk in Node (uploadFile), byte for byte, with progress as the socket takes it", async () => {
    const client = await signedIn("fay@example.com");
    const me = await unwrap(client.api.GET("/users/me"));
    const folder = mkdtempSync(join(tmpdir(), "cellar-client-"));
    // 5.5 MiB: more than the two 1 MiB buffers, and not a whole number of them.
    const bytes = Buffer.alloc(5.5 * 1024 * 1024);
    for (let at = 0; at < bytes.length; at++) bytes[at] = (at * 7919) % 251;
    const path = join(folder, "blob.sheet");
    writeFileSync(path, bytes);
    const progress: number[] = [];
    const jwt = await tokenOf("fay@example.com");
    const file = await uploadFile({ baseUrl, token: jwt }, path, {
      name: "Blob",
      visibility: "public",
      onProgress: (sent, total) => {
        expect(total).toBe(bytes.length);
        progress.push(sent);
      },
    });
    expect(file).toMatchObject({ name: "Blob", visibility: "public", size: bytes.length, owner_id: me.id });
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBe(bytes.length);
    expect(progress.length).toBeGreaterThanOrEqual(6);
    const download = await createCellarClient({ baseUrl, token: jwt }).download(file.id);
    const chunks: Uint8Array[] = [];
    for await (const chunk of download.body) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);

    // Refused (not a spreadsheet): the server's answer.
    writeFileSync(join(folder, "notes.txt"), "hello");
    const refused = await uploadFile({ baseUrl, token: jwt }, join(folder, "notes.txt")).catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ status: 415, code: "unsupported_media_type" });
    const anonymous = await uploadFile({ baseUrl }, path).catch((error: unknown) => error);
    expect(anonymous).toMatchObject({ status: 401, code: "unauthorized" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(uploadFile({ baseUrl, token: jwt }, path, { signal: aborted.signal })).rejects.toThrow();
  });

  it("reports a refused upload as the API's error", async () => {
    const client = await signedIn("eve@example.com");
    const refused = await client
      .upload({ fileName: "notes.txt", content: new TextEncoder().encode("hello") })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 415, code: "unsupported_media_type" });
  });

  it("throws the API's errors as CellarApiError with their code, status and details", async () => {
    const client = await signedIn("bo@example.com");
    const missing = await unwrap(
      client.api.GET("/files/{id}", { params: { path: { id: "file_nosuchfileanywhere0000" } } }),
    ).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CellarApiError);
    expect(missing).toMatchObject({ status: 404, code: "not_found", message: "No such file." });
    const invalid = await unwrap(client.api.PATCH("/users/me", { body: { name: "" } })).catch(
      (error: unknown) => error,
    );
    expect(invalid).toMatchObject({ status: 400, code: "validation_error" });
    expect((invalid as CellarApiError).details[0]?.field).toBe("name");
    const anonymous = createCellarClient({ baseUrl });
    await expect(unwrap(anonymous.api.GET("/users/me"))).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });

  it("makes, lists, reads, changes and deletes webhooks, and lists their delivery attempts", async () => {
    const client = await signedIn("wren@example.com");
    const file = await client.upload(csv("a,b\n"), { name: "Hooked" });
    const made = await client.webhooks.create({ url: "https://hooks.example/in", events: ["*"], file_id: file.id });
    expect(made).toMatchObject({
      id: expect.stringMatching(/^hook_/),
      events: ["file", "content", "permissions", "comment"],
      file_id: file.id,
      active: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    const listed: unknown[] = [];
    for await (const hook of client.webhooks.list()) listed.push(hook);
    expect(listed).toEqual([expect.objectContaining({ id: made.id })]);
    expect(listed[0]).not.toHaveProperty("secret");
    expect(await client.webhooks.get(made.id)).not.toHaveProperty("secret");
    expect(await client.webhooks.update(made.id, { events: ["file"] })).toMatchObject({ events: ["file"] });

    const dispatch = cellar.webhookDispatch;
    if (dispatch === undefined) throw new Error("no webhooks");
    await dispatch.feed();
    await unwrap(client.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Renamed" } }));
    while ((await dispatch.feed()).entries > 0) {}
    while ((await dispatch.deliverDue()) > 0) {}
    const attempts: unknown[] = [];
    for await (const attempt of client.webhooks.deliveries(made.id)) attempts.push(attempt);
    expect(attempts).toEqual([
      {
        event_id: expect.stringMatching(/^evt_/),
        attempt: 1,
        status: 200,
        duration_ms: 3,
        at: expect.any(String),
        error: null,
      },
    ]);

    await expect(client.webhooks.create({ url: "https://refused.example/", events: ["file"] })).rejects.toMatchObject({
      status: 400,
      code: "validation_error",
      details: [{ field: "url" }],
    });
    await client.webhooks.delete(made.id);
    await expect(client.webhooks.get(made.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("reads a window of cells raw or as the workbook's author sees them", async () => {
    const client = await signedIn("flo@example.com");
    const bytes = readFileSync(new URL("../../adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url));
    const file = await client.upload({ fileName: "formats.xlsx", content: new Uint8Array(bytes) });
    expect(await client.values(file.id, "B3:C3")).toEqual({ range: "Formats!B3:C3", values: [[1234.5, -1234.5]] });
    expect(await client.values(file.id, "B3:C3", { render: "formatted", types: true })).toEqual({
      range: "Formats!B3:C3",
      values: [["$1,234.50", "-$1,234.50"]],
      types: [["number", "number"]],
    });
    await expect(client.values(file.id, "not a range")).rejects.toMatchObject({
      status: 400,
      code: "validation_error",
    });
  });

  it("changes a CSV's structure as one version, based on the content it names", async () => {
    const client = await signedIn("gil@example.com");
    const file = await client.upload({ fileName: "moves.csv", content: new TextEncoder().encode("a,b\n1,2\n") });
    const changed = await client.structure(
      file.id,
      [
        { insert: "columns", sheet: "Sheet1", before: "B", count: 1 },
        { delete: "rows", sheet: "Sheet1", from: 1, count: 1 },
      ],
      { ifMatch: file.sha256 },
    );
    expect(changed.version).toBe(2);
    expect((await client.values(file.id, "A1:C1")).values).toEqual([["1", null, "2"]]);
    await expect(
      client.structure(file.id, [{ insert: "rows", sheet: "Sheet1", before: 1, count: 1 }], { ifMatch: file.sha256 }),
    ).rejects.toMatchObject({ status: 412, code: "precondition_failed" });
  });

  it("finds the cells whose text as shown holds some text, page after page, as one sequence", async () => {
    const client = await signedIn("fay@example.com");
    const rows = ["name,city"];
    for (let row = 2; row <= 260; row++) rows.push(row % 2 === 0 ? `Person ${row},Paris` : `Person ${row},Lyon`);
    const file = await client.upload({ fileName: "cities.csv", content: new TextEncoder().encode(rows.join("\n")) });
    const found: { range: string; value: unknown; text: string }[] = [];
    for await (const cell of client.find(file.id, "PARIS", { perPage: 50 })) found.push(cell);
    expect(found).toHaveLength(130);
    expect(found[0]).toEqual({ range: "Sheet1!B2", value: "Paris", text: "Paris" });
    expect(found.at(-1)?.range).toBe("Sheet1!B260");
    const formats = readFileSync(
      new URL("../../adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url),
    );
    const book = await client.upload({ fileName: "formats.xlsx", content: new Uint8Array(formats) });
    const dollars: unknown[] = [];
    for await (const cell of client.find(book.id, "-$1,234.50", { sheet: "Formats" })) dollars.push(cell);
    expect(dollars).toContainEqual({ range: "Formats!C3", value: -1234.5, text: "-$1,234.50" });
  });

  const csv = (text: string) => ({ fileName: "people.csv", content: new TextEncoder().encode(text) });

  it("shares a file with a person by mail, changes their role and takes them off", async () => {
    const owner = await signedIn("gus@example.com");
    const file = await owner.upload(csv("a,b\n"), { name: "Team plan" });
    const shared = await owner.share(file.id, { email: "Hal@Example.com", role: "viewer", message: "Have a look" });
    expect(shared).toMatchObject({
      file_id: file.id,
      email: "hal@example.com",
      role: "viewer",
      user: null,
      notified: true,
    });
    expect(cellar.deps.mailer.invitations.at(-1)).toMatchObject({ to: "hal@example.com", message: "Have a look" });
    const quiet = await owner.share(file.id, { email: "ivy@example.com", role: "editor", notify: false });
    expect(quiet.notified).toBe(false);
    expect((await owner.permissions(file.id)).map(({ email, role }) => [email, role])).toEqual([
      ["hal@example.com", "viewer"],
      ["ivy@example.com", "editor"],
    ]);
    expect(await owner.changeRole(file.id, shared.id, "commenter")).toMatchObject({ id: shared.id, role: "commenter" });
    await owner.removePermission(file.id, quiet.id);
    expect((await owner.permissions(file.id)).map(({ email }) => email)).toEqual(["hal@example.com"]);
    expect(PERMISSION_ROLES).toEqual(["viewer", "commenter", "editor"]);
  });

  it("throws a refused share, role change or removal as CellarApiError", async () => {
    const owner = await signedIn("jo@example.com");
    const file = await owner.upload(csv("a,b\n"));
    await expect(owner.share(file.id, { email: "jo@example.com", role: "viewer" })).rejects.toMatchObject({
      status: 400,
      code: "validation_error",
    });
    const permission = await owner.share(file.id, { email: "kim@example.com", role: "editor", notify: false });
    const kim = await signedIn("kim@example.com");
    const forbidden = await kim.changeRole(file.id, permission.id, "viewer").catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(CellarApiError);
    expect(forbidden).toMatchObject({ status: 403, code: "forbidden" });
    await expect(owner.removePermission(file.id, "perm_nosuchpermission0000")).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });
    const stranger = await signedIn("lu@example.com");
    await expect(stranger.permissions(file.id)).rejects.toMatchObject({ status: 404, code: "not_found" });
    // Anyone on the file may leave it.
    await kim.removePermission(file.id, permission.id);
    await expect(kim.permissions(file.id)).rejects.toMatchObject({ status: 404 });
  });

  it("lists the files shared with you, with your role, found and ordered as your own", async () => {
    const owner = await signedIn("max@example.com");
    const reader = await signedIn("ned@example.com");
    for (const [name, role] of [
      ["Budget b", "viewer"],
      ["notes", "editor"],
      ["budget a", "editor"],
    ] as const) {
      const file = await owner.upload(csv("a,b\n"), { name });
      await owner.share(file.id, { email: "ned@example.com", role, notify: false });
    }
    const newestShareFirst: string[] = [];
    for await (const file of reader.files({ shared: true, perPage: 2 }))
      newestShareFirst.push(`${file.name}:${file.role}`);
    expect(newestShareFirst).toEqual(["budget a:editor", "notes:editor", "Budget b:viewer"]);
    const found: string[] = [];
    for await (const file of reader.files({ shared: true, q: "BUDGET", sort: "name" })) found.push(file.name);
    expect(found).toEqual(["budget a", "Budget b"]);
    const own: string[] = [];
    for await (const file of reader.files()) own.push(file.name);
    expect(own).toEqual([]);
    const both = reader.files({ shared: true, trashed: true })[Symbol.asyncIterator]().next();
    await expect(both).rejects.toMatchObject({ status: 400, code: "validation_error" });
  });

  it("lists what happened to a file, newest first, page after page", async () => {
    const owner = await signedIn("oz@example.com");
    const file = await owner.upload(csv("a,b\n"), { name: "Log" });
    await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Log 2" } }));
    const permission = await owner.share(file.id, { email: "pat@example.com", role: "viewer", notify: false });
    await owner.changeRole(file.id, permission.id, "editor");
    await owner.removePermission(file.id, permission.id);
    const entries = [];
    for await (const entry of owner.activity(file.id, { perPage: 2 })) entries.push(entry);
    expect(entries.map(({ action, details }) => [action, details])).toEqual([
      ["unshared", { email: "pat@example.com" }],
      ["role_changed", { email: "pat@example.com", role: "editor" }],
      ["shared", { email: "pat@example.com", role: "viewer" }],
      ["renamed", { name: "Log 2" }],
      ["uploaded", { name: "Log" }],
    ]);
    expect(entries[0]?.actor).toMatchObject({ email: "oz@example.com" });
    const stranger = await signedIn("quin@example.com");
    const hidden = stranger.activity(file.id)[Symbol.asyncIterator]().next();
    await expect(hidden).rejects.toMatchObject({ status: 404, code: "not_found" });
  });
});

describe("versions and cell edits against a real server", () => {
  const publicUrl = "http://127.0.0.1";
  const cellar = createInMemoryCellar({
    config: { publicUrl },
    spreadsheets: createSpreadsheetReader(),
    spreadsheetWriter: createSpreadsheetWriter(),
    clock: steppingClock(),
  });
  const app = Fastify({ logger: false });
  let baseUrl = "";

  beforeAll(async () => {
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => app.close());

  async function tokenOf(email: string) {
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email } }));
    const token = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    return (await unwrap(anonymous.api.POST("/sessions/verify", { body: { token } }))).jwt;
  }

  const encoded = (text: string) => new TextEncoder().encode(text);
  const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

  async function received(body: AsyncIterable<Uint8Array>) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  async function listed<T>(items: AsyncIterable<T>): Promise<T[]> {
    const all: T[] = [];
    for await (const item of items) all.push(item);
    return all;
  }

  it("replaces a file's content from a stream with If-Match, and refuses a stale one as precondition_failed", async () => {
    const client = createCellarClient({ baseUrl, token: await tokenOf("rae@example.com") });
    const original = encoded("id,amount\n1,10\n");
    const file = await client.upload({ fileName: "ledger.csv", content: original }, { name: "Ledger" });
    expect(file).toMatchObject({ version: 1, sha256: sha256(original) });

    const rows = Array.from({ length: 30 }, (_, i) => encoded(`${i},${i * 10}\n`.repeat(1000)));
    const replacement = Buffer.concat([encoded("id,amount\n"), ...rows]);
    const progress: number[] = [];
    const replaced = await client.replaceContent(
      file.id,
      {
        size: replacement.length,
        content: (async function* () {
          yield encoded("id,amount\n");
          yield* rows;
        })(),
      },
      {
        ifMatch: file.sha256,
        onProgress: (sent, total) => {
          expect(total).toBe(replacement.length);
          progress.push(sent);
        },
      },
    );
    expect(replaced).toMatchObject({
      id: file.id,
      name: "Ledger",
      version: 2,
      size: replacement.length,
      sha256: sha256(replacement),
    });
    expect(progress.at(-1)).toBe(replacement.length);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect((await received((await client.download(file.id)).body)).equals(replacement)).toBe(true);

    // Based on version 1, which is no longer the content: refused, and nothing stored.
    const stale = await client
      .replaceContent(file.id, { content: encoded("id,amount\n2,20\n") }, { ifMatch: file.sha256 })
      .catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(CellarApiError);
    expect(stale).toMatchObject({ status: 412, code: "precondition_failed" });
    // An ETag as the download gives it, and `*`, are taken as they are.
    const byEtag = await client.replaceContent(
      file.id,
      { content: new Blob([encoded("id,amount\n3,30\n")]) },
      { ifMatch: `"${replaced.sha256}"` },
    );
    expect(byEtag.version).toBe(3);
    const anyContent = await client.replaceContent(
      file.id,
      { content: encoded("id,amount\n4,40\n") },
      { ifMatch: "*" },
    );
    expect(anyContent.version).toBe(4);
    await expect(
      client.replaceContent(file.id, { content: encoded("\u0000\u0001binary") }, { ifMatch: "*" }),
    ).rejects.toMatchObject({ status: 415, code: "unsupported_media_type" });
  });

  it("replaces a file's content from disk in Node (replaceContentFromFile), byte for byte, with progress", async () => {
    const token = await tokenOf("sol@example.com");
    const client = createCellarClient({ baseUrl, token });
    const file = await client.upload({ fileName: "big.csv", content: encoded("a,b\n") });
    const folder = mkdtempSync(join(tmpdir(), "cellar-client-"));
    // 2.5 MiB: more than the two 1 MiB buffers, and not a whole number of them.
    const bytes = Buffer.from(`a,b\n${"12345,67890\n".repeat(Math.ceil((2.5 * 1024 * 1024) / 12))}`);
    const path = join(folder, "next.csv");
    writeFileSync(path, bytes);
    const progress: number[] = [];
    const replaced = await replaceContentFromFile({ baseUrl, token }, file.id, path, {
      ifMatch: file.sha256,
      onProgress: (sent, total) => {
        expect(total).toBe(bytes.length);
        progress.push(sent);
      },
    });
    expect(replaced).toMatchObject({ id: file.id, version: 2, size: bytes.length, sha256: sha256(bytes) });
    expect(progress.at(-1)).toBe(bytes.length);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect((await received((await client.download(file.id)).body)).equals(bytes)).toBe(true);
    // Refusals, of a small file: a large one refused before the server reads it may lose
    // the answer with the connection the server closes.
    const small = join(folder, "small.csv");
    writeFileSync(small, "a,b\n");
    await expect(
      replaceContentFromFile({ baseUrl, token }, file.id, small, { ifMatch: file.sha256 }),
    ).rejects.toMatchObject({ status: 412, code: "precondition_failed" });
    await expect(replaceContentFromFile({ baseUrl }, file.id, small, { ifMatch: "*" })).rejects.toMatchObject({
      status: 401,
      code: "unauthorized",
    });
    await expect(
      replaceContentFromFile({ baseUrl, token }, "file_nosuchfileanywhere0000", small, { ifMatch: "*" }),
    ).rejects.toMatchObject({ status: 404, code: "not_found" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      replaceContentFromFile({ baseUrl, token }, file.id, small, { ifMatch: "*", signal: aborted.signal }),
    ).rejects.toThrow();
    // Nothing of the refusals was stored.
    expect((await unwrap(client.api.GET("/files/{id}", { params: { path: { id: file.id } } }))).version).toBe(2);
  });

  it("lists the versions newest first, downloads one, keeps one and restores one as a new version", async () => {
    const client = createCellarClient({ baseUrl, token: await tokenOf("tam@example.com") });
    const first = encoded("n\n1\n");
    const second = encoded("n\n2\n");
    const file = await client.upload({ fileName: "n.csv", content: first });
    const v2 = await client.replaceContent(file.id, { content: second }, { ifMatch: file.sha256 });
    const v3 = await client.replaceContent(file.id, { content: encoded("n\n3\n") }, { ifMatch: v2.sha256 });

    const versions = await listed(client.versions(file.id, { perPage: 2 }));
    expect(versions.map(({ version, current, keep }) => [version, current, keep])).toEqual([
      [3, true, false],
      [2, false, false],
      [1, false, false],
    ]);
    expect(versions[2]).toMatchObject({ size: first.length, sha256: sha256(first) });
    expect(versions[0]?.author).toMatchObject({ email: "tam@example.com" });

    const old = await client.downloadVersion(file.id, 1);
    expect(old.etag).toBe(`"${sha256(first)}"`);
    expect((await received(old.body)).equals(Buffer.from(first))).toBe(true);
    // Resumed from a byte, as any download.
    const rest = await client.downloadVersion(file.id, 2, { from: 2, etag: `"${sha256(second)}"` });
    expect((await received(rest.body)).equals(Buffer.from(second.subarray(2)))).toBe(true);

    expect(await client.keepVersion(file.id, 1, true)).toMatchObject({ version: 1, keep: true });
    expect((await listed(client.versions(file.id))).find(({ version }) => version === 1)?.keep).toBe(true);

    const restored = await client.restoreVersion(file.id, 1, { ifMatch: v3.sha256 });
    expect(restored).toMatchObject({ id: file.id, version: 4, sha256: sha256(first) });
    await expect(client.restoreVersion(file.id, 2, { ifMatch: v3.sha256 })).rejects.toMatchObject({
      status: 412,
      code: "precondition_failed",
    });
    await expect(client.downloadVersion(file.id, 99)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(client.keepVersion(file.id, 99, true)).rejects.toMatchObject({ status: 404 });
  });

  it("writes cells with If-Match or expect, and names each cell that changed since on a 412", async () => {
    const client = createCellarClient({ baseUrl, token: await tokenOf("uma@example.com") });
    const file = await client.upload({ fileName: "budget.csv", content: encoded("item,amount\nrent,1200\n") });
    const edited = await client.editValues(file.id, { range: "B2", values: [[1300]] }, { ifMatch: file.sha256 });
    expect(edited).toMatchObject({ updated_range: "Sheet1!B2", updated_cells: 1, file: { id: file.id, version: 2 } });
    // A CSV's cells are its text.
    expect((await client.values(file.id, "A1:B2")).values).toEqual([
      ["item", "amount"],
      ["rent", "1300"],
    ]);

    // By the cells themselves: B2 holds 1300 now, not 1200.
    const conflict = await client
      .editValues(file.id, { range: "B2", values: [[1400]], expect: [["1200"]] })
      .catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(CellarApiError);
    expect(conflict).toMatchObject({ status: 412, code: "precondition_failed" });
    expect((conflict as CellarApiError).details).toEqual([
      expect.objectContaining({ cell: "Sheet1!B2", value: "1300" }),
    ]);
    const several = await client.editValues(file.id, {
      data: [
        { range: "A3:B3", values: [["food", "300"]], expect: [[null, null]] },
        { range: "B2", values: [["1250"]], expect: [["1300"]] },
      ],
    });
    expect(several).toMatchObject({ updated_range: ["Sheet1!A3:B3", "Sheet1!B2"], updated_cells: 3 });
    expect((await client.values(file.id, "A2:B3")).values).toEqual([
      ["rent", "1250"],
      ["food", "300"],
    ]);
    // Neither If-Match nor expect: refused.
    await expect(client.editValues(file.id, { range: "B2", values: [[1]] })).rejects.toMatchObject({
      status: 428,
    });
    await expect(
      client.editValues(file.id, { range: "B2", values: [[1]] }, { ifMatch: file.sha256 }),
    ).rejects.toMatchObject({ status: 412, code: "precondition_failed" });
  });

  it("appends rows after the last row with a value, to the first sheet or a named one", async () => {
    const client = createCellarClient({ baseUrl, token: await tokenOf("vic@example.com") });
    const file = await client.upload({ fileName: "log.csv", content: encoded("when,what\nmon,a\n") });
    const appended = await client.appendRows(file.id, {
      values: [
        ["tue", "b"],
        ["wed", null],
      ],
    });
    expect(appended).toMatchObject({ updated_range: "Sheet1!A3:B4", file: { id: file.id, version: 2 } });
    const named = await client.appendRows(
      file.id,
      { sheet: "Sheet1", values: [["thu", "d"]] },
      { ifMatch: appended.file.sha256 },
    );
    expect(named.updated_range).toBe("Sheet1!A5:B5");
    expect((await client.values(file.id, "A3:B5")).values).toEqual([
      ["tue", "b"],
      ["wed", null],
      ["thu", "d"],
    ]);
    await expect(client.appendRows(file.id, { sheet: "Nope", values: [["x"]] })).rejects.toMatchObject({
      status: 400,
      code: "validation_error",
    });
    await expect(
      client.appendRows(file.id, { values: [["fri", "e"]] }, { ifMatch: appended.file.sha256 }),
    ).rejects.toMatchObject({ status: 412, code: "precondition_failed" });
  });
});

describe("downloads", () => {
  const publicUrl = "http://127.0.0.1";
  const cellar = createInMemoryCellar({
    config: { publicUrl },
    spreadsheets: createSpreadsheetReader(),
    spreadsheetWriter: createSpreadsheetWriter(),
  });
  const app = Fastify({ logger: false });
  let baseUrl = "";
  let token = "";
  // 3 MiB of rows, so that the body arrives in many chunks.
  const bytes = new TextEncoder().encode(
    `id,name\n${Array.from({ length: 150_000 }, (_, i) => `${i},"row ${i}"`).join("\n")}\n`,
  );
  let fileId = "";

  beforeAll(async () => {
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email: "dl@example.com" } }));
    const link = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    token = (await unwrap(anonymous.api.POST("/sessions/verify", { body: { token: link } }))).jwt;
    const file = await createCellarClient({ baseUrl, token }).upload(
      { fileName: "rows.csv", content: new Blob([bytes]) },
      { name: "Rows — März" },
    );
    fileId = file.id;
  });
  afterAll(() => app.close());

  async function received(body: AsyncIterable<Uint8Array>) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  it("streams a file with its offered name, size, ETag and progress", async () => {
    const progress: number[] = [];
    const download = await createCellarClient({ baseUrl, token }).download(fileId, {
      onProgress: (at, total) => {
        expect(total).toBe(bytes.length);
        progress.push(at);
      },
    });
    expect(download).toMatchObject({ fileName: "Rows — März.csv", size: bytes.length, from: 0 });
    expect(download.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await received(download.body)).equals(bytes)).toBe(true);
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toBe(bytes.length);
  });

  it("resumes from a byte with a Range, and refuses to splice a file that changed", async () => {
    const client = createCellarClient({ baseUrl, token });
    const whole = await client.download(fileId);
    await received(whole.body);
    const rest = await client.download(fileId, { from: 1_000_000, etag: whole.etag });
    expect(rest).toMatchObject({ from: 1_000_000, size: bytes.length });
    expect((await received(rest.body)).equals(bytes.subarray(1_000_000))).toBe(true);
    // Every byte already at hand: nothing more to send.
    const done = await client.download(fileId, { from: bytes.length, etag: whole.etag });
    expect(done.from).toBe(bytes.length);
    expect((await received(done.body)).length).toBe(0);
    const changed = await client.download(fileId, { from: 10, etag: '"0000"' }).catch((error: unknown) => error);
    expect(changed).toMatchObject({ code: "file_changed" });
  });

  it("asks for the rest of the same version when the connection drops mid-body", async () => {
    let requests = 0;
    const ranges: (string | null)[] = [];
    // The first answer's body fails after 200,000 bytes, as a dropped connection does.
    const dropping: typeof fetch = async (input, init) => {
      requests++;
      ranges.push(new Request(input, init).headers.get("range"));
      const response = await fetch(input, init);
      if (requests > 1 || response.body === null) return response;
      let passed = 0;
      const reader = response.body.getReader();
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await reader.read();
          if (next.done) return controller.close();
          passed += next.value.length;
          if (passed > 200_000) {
            await reader.cancel();
            controller.error(new TypeError("terminated"));
          } else controller.enqueue(next.value);
        },
      });
      return new Response(cut, { status: response.status, headers: response.headers });
    };
    const download = await createCellarClient({ baseUrl, token, fetch: dropping }).download(fileId);
    expect((await received(download.body)).equals(bytes)).toBe(true);
    expect(requests).toBe(2);
    expect(ranges[0]).toBeNull();
    expect(ranges[1]).toMatch(/^bytes=\d+-$/);
    // With no resumes allowed, the drop reaches the caller.
    requests = 0;
    const once = await createCellarClient({ baseUrl, token, fetch: dropping, retries: { max: 0 } }).download(fileId);
    await expect(received(once.body)).rejects.toThrow("terminated");
  });

  it("downloads a conversion, and reports a missing file as the API's error", async () => {
    const client = createCellarClient({ baseUrl, token });
    const xlsx = await client.download(fileId, { format: "xlsx" });
    expect(xlsx.fileName).toBe("Rows — März.xlsx");
    expect(xlsx.size).toBeUndefined();
    const zip = await received(xlsx.body);
    expect(zip.subarray(0, 2).toString()).toBe("PK");
    await expect(client.download("file_nosuchfileanywhere0000")).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });
  });
});

describe("answers that are not Cellar's", () => {
  /** A server that answers every request with `status` and `headers`, counting them. */
  async function answering(status: number, headers: Record<string, string>) {
    let requests = 0;
    const server = createServer((request, response) => {
      requests++;
      request.resume();
      request.on("end", () =>
        response.writeHead(status, headers).end(JSON.stringify({ error: { code: "x", message: "y" } })),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      requests: () => requests,
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it("sends nothing again after a 503 that names no Retry-After", async () => {
    const unavailable = await answering(503, { "content-type": "application/json" });
    try {
      const client = createCellarClient({ baseUrl: unavailable.url });
      const { response } = await client.api.POST("/sessions", { body: { email: "ada@example.com" } });
      expect(response.status).toBe(503);
      expect(unavailable.requests()).toBe(1);
      await expect(client.download("file_x")).rejects.toMatchObject({ status: 503 });
      expect(unavailable.requests()).toBe(2);
    } finally {
      await unavailable.close();
    }
  });

  it("reports a redirect on upload as the wrong address, not as a stored file", async () => {
    const moved = await answering(301, { location: "https://files.example.org/v1/files" });
    const folder = mkdtempSync(join(tmpdir(), "cellar-client-"));
    writeFileSync(join(folder, "a.csv"), "a,b\n");
    try {
      await expect(uploadFile({ baseUrl: moved.url }, join(folder, "a.csv"))).rejects.toThrow(
        "The server answered 301 (to https://files.example.org/v1/files) instead of storing the file",
      );
    } finally {
      await moved.close();
    }
  });
});

describe("retries", () => {
  it("sends a request again after the Retry-After of a 429, at most `max` times", async () => {
    const publicUrl = "http://127.0.0.1";
    const limited = createInMemoryCellar({ config: { publicUrl, rateLimitMax: 2, rateLimitWindowSeconds: 1 } });
    const server = Fastify({ logger: false });
    await server.register(cellarApi, { prefix: "/v1", cellar: limited, publicUrl });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    try {
      let sent = 0;
      const counting: typeof fetch = (input, init) => {
        sent++;
        return fetch(input, init);
      };
      const client = createCellarClient({ baseUrl: url, fetch: counting, retries: { max: 2 } });
      const started = performance.now();
      for (let i = 0; i < 4; i++) {
        const { response } = await client.api.GET("/files/{id}", { params: { path: { id: "file_x" } } });
        // Each answer is the route's own (401: no token), never a 429.
        expect(response.status).toBe(401);
      }
      expect(sent).toBeGreaterThan(4);
      expect(performance.now() - started).toBeGreaterThan(500);
      const impatient = createCellarClient({ baseUrl: url, retries: { max: 0 } });
      await impatient.api.GET("/users/me");
      await impatient.api.GET("/users/me");
      const refused = await unwrap(impatient.api.GET("/users/me")).catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 429, code: "rate_limited" });
      expect((refused as CellarApiError).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    } finally {
      await server.close();
    }
  });
});
