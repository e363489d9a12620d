import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInLinkIn } from "./support/mail-text.js";
import { type ServerProcess, startServerProcess } from "./support/server-process.js";
import { startSmtpSink } from "./support/smtp-sink.js";

/**
 * The whole flow over real HTTP against the real server process, with mail going out
 * over real SMTP: two users sign in, upload, share, download, trash, restore, sign out.
 */
describe("the standalone server, end to end", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: ServerProcess;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "cellar-e2e-"));
    smtp = await startSmtpSink();
    server = await startServerProcess({ DATA_DIR: dataDir, SMTP_URL: `smtp://127.0.0.1:${smtp.port}` });
  }, 30_000);

  afterAll(async () => {
    await server?.stop("SIGKILL");
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (path: string, init: RequestInit & { jwt?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.jwt !== undefined) headers.set("authorization", `Bearer ${init.jwt}`);
    return fetch(`${server.url}${path}`, { ...init, headers });
  };
  const json = (body: unknown) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

  async function signIn(email: string) {
    const since = smtp.mails.length;
    const requested = await api("/v1/sessions", json({ email }));
    expect(requested.status).toBe(202);
    expect(await requested.json()).toEqual({ status: "sent" });
    const link = await signInLinkIn((await smtp.nextMailTo(email, since)).raw);
    expect(link.origin).toBe(server.url);

    // Opening the link shows a page and spends nothing.
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    await page.text();

    const verified = await api("/v1/sessions/verify", json({ token: link.searchParams.get("token") }));
    expect(verified.status).toBe(200);
    return (await verified.json()) as { jwt: string; user: { id: string; email: string; name: string } };
  }

  it("walks the whole flow for two users over real HTTP, multipart and SMTP", async () => {
    const alice = await signIn("alice@example.com");
    const bob = await signIn("bob@example.com");
    expect(alice.user).toMatchObject({ email: "alice@example.com", name: "alice" });

    const me = await api("/v1/users/me", { jwt: alice.jwt });
    expect(me.status).toBe(200);
    expect(me.headers.get("x-ratelimit-limit")).toBe("600");
    expect(me.headers.get("x-request-id")).toBeTruthy();

    const csv = "month,amount\njanuary,1200\nfebruary,1150\n";
    const form = new FormData();
    form.append("visibility", "private");
    form.append("file", new Blob([csv], { type: "text/csv" }), "budget.csv");
    const uploaded = await api("/v1/files", { method: "POST", body: form, jwt: alice.jwt });
    expect(uploaded.status).toBe(201);
    const file = (await uploaded.json()) as { id: string; name: string; sha256: string; size: number };
    expect(uploaded.headers.get("location")).toBe(`${server.url}/v1/files/${file.id}`);
    expect(file).toMatchObject({
      name: "budget.csv",
      size: csv.length,
      sha256: createHash("sha256").update(csv).digest("hex"),
    });

    const listed = await api("/v1/files", { jwt: alice.jwt });
    expect(listed.headers.get("x-total-count")).toBe("1");
    expect(((await listed.json()) as { id: string }[]).map((f) => f.id)).toEqual([file.id]);

    const downloaded = await api(`/v1/files/${file.id}/download`, { jwt: alice.jwt });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("etag")).toBe(`"${file.sha256}"`);
    expect(await downloaded.text()).toBe(csv);

    // Bob cannot see it while it is private, and can once it is public.
    expect((await api(`/v1/files/${file.id}`, { jwt: bob.jwt })).status).toBe(404);
    const shared = await api(`/v1/files/${file.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visibility: "public", name: "Budget 2026" }),
      jwt: alice.jwt,
    });
    expect(shared.status).toBe(200);
    const bobsCopy = await api(`/v1/files/${file.id}/download`, { jwt: bob.jwt });
    expect(bobsCopy.status).toBe(200);
    expect(bobsCopy.headers.get("content-disposition")).toContain('filename="Budget 2026.csv"');
    expect(await bobsCopy.text()).toBe(csv);
    expect((await api(`/v1/files/${file.id}`, { method: "DELETE", jwt: bob.jwt })).status).toBe(403);

    // Trash and restore.
    const trashed = await api(`/v1/files/${file.id}`, { method: "DELETE", jwt: alice.jwt });
    expect(trashed.status).toBe(200);
    expect(await trashed.json()).toMatchObject({ state: "trashed" });
    expect((await api(`/v1/files/${file.id}`, { jwt: bob.jwt })).status).toBe(404);
    const trash = await api("/v1/files?trashed=true", { jwt: alice.jwt });
    expect(((await trash.json()) as { id: string }[]).map((f) => f.id)).toEqual([file.id]);
    const restored = await api(`/v1/files/${file.id}/restore`, { method: "POST", jwt: alice.jwt });
    expect(await restored.json()).toMatchObject({ state: "active", trashed_at: null, purge_at: null });

    // Signing out ends that session only.
    expect((await api("/v1/sessions", { method: "DELETE", jwt: alice.jwt })).status).toBe(204);
    expect((await api("/v1/users/me", { jwt: alice.jwt })).status).toBe(401);
    expect((await api("/v1/users/me", { jwt: bob.jwt })).status).toBe(200);

    // With SMTP_URL set, mail goes only there: no outbox, no dev-mode log line.
    expect(existsSync(join(dataDir, "outbox"))).toBe(false);
    expect(server.logs().some((line) => line.devMode === true)).toBe(false);

    // No log line holds a token or a JWT.
    const log = server.output();
    expect(log).not.toContain(alice.jwt);
    expect(log).not.toMatch(/token=[A-Za-z0-9_-]{20,}/);
  }, 60_000);

  it("shares a file by address over SMTP: one plain-text mail with the file's link and no token, and the person sees it", async () => {
    const owner = await signIn("olive@example.com");
    const form = new FormData();
    form.append("file", new Blob(["a,b\n1,2\n"], { type: "text/csv" }), "Plan.csv");
    const file = (await (await api("/v1/files", { method: "POST", body: form, jwt: owner.jwt })).json()) as {
      id: string;
    };

    const since = smtp.mails.length;
    const shared = await api(`/v1/files/${file.id}/permissions`, {
      ...json({ email: "peggy@example.com", role: "commenter", message: "Your turn." }),
      jwt: owner.jwt,
    });
    expect(shared.status).toBe(201);
    expect(await shared.json()).toMatchObject({ email: "peggy@example.com", role: "commenter", notified: true });
    const mail = await smtp.nextMailTo("peggy@example.com", since);
    expect(mail.raw).toMatch(/^Content-Type: text\/plain; charset=utf-8$/m);
    expect(mail.raw).toMatch(/^Content-Transfer-Encoding: 7bit$/m);
    expect(mail.raw.split("\r\n")).toContain(`${server.url}/files/${file.id}`);
    expect(mail.raw).toContain("olive (olive@example.com) shared a file with you");
    expect(mail.raw).toContain("> Your turn.");
    expect(mail.raw).not.toMatch(/token/i);

    const peggy = await signIn("peggy@example.com");
    const seen = await api(`/v1/files/${file.id}`, { jwt: peggy.jwt });
    expect(seen.status).toBe(200);
    expect(await seen.json()).toMatchObject({ id: file.id, role: "commenter" });
    const listed = (await (await api("/v1/files?shared=true", { jwt: peggy.jwt })).json()) as { id: string }[];
    expect(listed.map((f) => f.id)).toEqual([file.id]);
  }, 60_000);

  it("answers health and readiness, and serves its OpenAPI document", async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: "ok" });
    expect(await (await fetch(`${server.url}/readyz`)).json()).toEqual({ status: "ready" });
    const openapi = (await (await fetch(`${server.url}/openapi.json`)).json()) as { openapi: string };
    expect(openapi.openapi).toMatch(/^3\.1/);
  });

  it("answers unknown addresses outside /v1 in the error shape too", async () => {
    const response = await fetch(`${server.url}/nowhere`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: "not_found", message: "Nothing exists at this address." } });
    expect(response.headers.get("x-request-id")).toBeTruthy();
  });

  it("refuses to start on a bad setting, with one line naming it", () => {
    const main = new URL("../src/main.ts", import.meta.url).pathname;
    const run = spawnSync(process.execPath, ["--conditions=@cellar/source", "--import", "tsx", main], {
      env: { PATH: process.env.PATH ?? "", PORT: "abc", DATA_DIR: join(dataDir, "unused") },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split("\n")).toEqual(['cellar: PORT must be a whole number from 0 to 65535, not "abc".']);
    expect(existsSync(join(dataDir, "unused"))).toBe(false);
  }, 30_000);

  it("exits 0 on SIGTERM", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
  }, 40_000);
});
