import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { cellarWebApp, WEB_APP_CSP } from "../src/index.js";

describe("cellarWebApp", () => {
  const folder = mkdtempSync(join(tmpdir(), "cellar-web-app-"));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it("answers its routes with index.html, and its assets by name; not the folder itself, nor dotfiles", async () => {
    mkdirSync(join(folder, "assets"));
    writeFileSync(join(folder, "index.html"), "<!doctype html><title>Cellar</title>");
    writeFileSync(join(folder, "assets", "app-abc123.js"), "export {};");
    writeFileSync(join(folder, "assets", ".secret"), "no");
    const app = Fastify({ logger: false });
    await app.register(cellarWebApp, { folder });
    try {
      const page = await app.inject({ url: "/trash" });
      expect(page.statusCode).toBe(200);
      expect(page.body).toBe("<!doctype html><title>Cellar</title>");
      expect(page.headers["content-security-policy"]).toBe(WEB_APP_CSP);
      expect(page.headers["cache-control"]).toBe("no-store");
      const asset = await app.inject({ url: "/assets/app-abc123.js" });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
      expect((await app.inject({ url: "/assets/.secret" })).statusCode).not.toBe(200);
      expect((await app.inject({ url: "/assets/../index.html" })).body).not.toContain("<title>");
    } finally {
      await app.close();
    }
  });

  it("says how to build the app where it is not built, and keeps the rest of the server working", async () => {
    const app = Fastify({ logger: false });
    await app.register(cellarWebApp, { folder: join(folder, "nothing-here") });
    app.get("/healthz", async () => ({ status: "ok" }));
    try {
      const page = await app.inject({ url: "/" });
      expect(page.statusCode).toBe(503);
      expect(page.json()).toEqual({
        error: { code: "unavailable", message: "The web app is not built here: run `scripts/pnpm build`." },
      });
      expect((await app.inject({ url: "/healthz" })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
