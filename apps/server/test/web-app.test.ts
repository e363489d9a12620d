import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import type {} from "@cellar/test-engines";
import { type Browser, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type RunningServer, startServer } from "../src/server.js";

/**
 * The web app as `pnpm start` serves it, in a real Chromium: built by Vite as
 * `scripts/pnpm build` builds it, served by the standalone server on its embedded
 * default, signed in through the dev outbox.
 */
describe("the web app", { timeout: 30_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), "cellar-web-"));
  const appFolder = join(work, "app");
  const dataDir = join(work, "data");
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    await build({
      configFile: fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url)),
      build: { outDir: appFolder, emptyOutDir: true },
      logLevel: "warn",
    });
    server = await startServer({
      env: { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir },
      logger: false,
      webAppFolder: appFolder,
    });
    const { executablePath, args } = inject("chromium");
    browser = await chromium.launch({ executablePath, args: [...args], headless: true });
    page = await (await browser.newContext()).newPage();
    // A step that cannot happen fails within seconds, naming what it waited for.
    page.setDefaultTimeout(8_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close(1000);
    rmSync(work, { recursive: true, force: true });
  });

  /** The newest mail in the dev outbox, with quoted-printable undone. */
  function newestMail(): string {
    const outbox = join(dataDir, "outbox");
    const newest = readdirSync(outbox).sort().at(-1) ?? "";
    return readFileSync(join(outbox, newest), "utf8")
      .replace(/=\r?\n/g, "")
      .replace(/=3D/g, "=");
  }

  it("serves the app at its routes, never cached, with a strict CSP; its hashed files for a year; the API's 404s stay JSON", async () => {
    for (const route of ["/", "/files", "/files/file_x", "/trash", "/account", "/sign-in?token=abc"]) {
      const response = await fetch(`${server.url}${route}`);
      expect(response.status, route).toBe(200);
      expect(response.headers.get("content-type"), route).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control"), route).toBe("no-store");
      expect(response.headers.get("content-security-policy"), route).toContain("script-src 'self'");
    }
    const html = await (await fetch(server.url)).text();
    // No inline script or style: everything the page runs comes from a file of its own.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? "";
    const asset = await fetch(`${server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    for (const path of ["/v1/nothing-here", "/nothing-here", "/assets/missing.js"]) {
      const missing = await fetch(`${server.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(await missing.json(), path).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("asks for an email, sends the link, and says to check the mail — with no accessibility violations", async () => {
    await page.goto(server.url);
    await expect(page.getByRole("heading", { name: "Sign in to Cellar" }).isVisible()).resolves.toBe(true);
    expect(
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations,
    ).toEqual([]);
    await page.getByLabel("Email address").fill("ada@example.com");
    await page.getByRole("button", { name: "Send me a link" }).click();
    await page.getByRole("heading", { name: "Check your mail" }).waitFor();
    expect(await page.textContent("main")).toContain("ada@example.com");
    expect(
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations,
    ).toEqual([]);
    expect(newestMail()).toMatch(/\/sign-in\?token=[A-Za-z0-9_-]+/);
  });

  it("finishes sign-in from the mailed link with one press, keeps it through a reload, and signs out for good", async () => {
    const link = /https?:\/\/[^\s"<>]+\/sign-in\?token=[A-Za-z0-9_-]+/.exec(newestMail())?.[0] ?? "";
    const path = new URL(link).pathname + new URL(link).search;
    // A mail scanner following the link spends nothing: it only gets the page.
    const scanner = await (await browser.newContext()).newPage();
    await scanner.goto(`${server.url}${path}`);
    await scanner.getByRole("button", { name: "Sign in" }).waitFor();
    await scanner.close();

    await page.goto(`${server.url}${path}`);
    expect(
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations,
    ).toEqual([]);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    // The token left the address bar.
    expect(new URL(page.url()).pathname).toBe("/files");
    expect(page.url()).not.toContain("token");
    await page.reload();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    expect(await page.textContent("main")).toContain("No files yet");

    const jwt = (await page.evaluate("localStorage.getItem('cellar.session')")) as string;
    expect((await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(
      200,
    );
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    expect(await page.evaluate("localStorage.getItem('cellar.session')")).toBeNull();
    expect((await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${jwt}` } })).status).toBe(
      401,
    );

    // A link used once says so, and offers a new one.
    await page.goto(`${server.url}${path}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "This link has expired or was already used.",
    );
  });

  it("uploads by the picker with progress, renames, shares, trashes, restores and downloads — each screen axe-clean", async () => {
    // Signed in as a new user, through the API and the app's own link page.
    await fetch(`${server.url}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "bo@example.com" }),
    });
    const link = /https?:\/\/[^\s"<>]+\/sign-in\?token=[A-Za-z0-9_-]+/.exec(newestMail())?.[0] ?? "";
    await page.goto(`${server.url}${new URL(link).pathname}${new URL(link).search}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("No files yet").waitFor();
    const axe = async () =>
      (await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations;
    expect(await axe()).toEqual([]);

    const rows = `id,amount\n${"1,2\n".repeat(400_000)}`;
    await page.locator('input[type="file"]').setInputFiles([
      { name: "budget.csv", mimeType: "text/csv", buffer: Buffer.from(rows) },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a spreadsheet") },
    ]);
    await page.getByText("Uploaded", { exact: true }).waitFor();
    await page.getByRole("cell", { name: "budget.csv", exact: true }).waitFor();
    // The refused one says why, beside its bar.
    await expect(page.getByRole("alert").first().textContent()).resolves.toMatch(/csv|xlsx|sheet/i);
    const bar = page.getByRole("progressbar", { name: "Upload of budget.csv" });
    expect(await bar.getAttribute("value")).toBe(String(rows.length));
    expect(await axe()).toEqual([]);

    await page.getByRole("button", { name: "Rename budget.csv" }).click();
    await page.getByLabel("New name for budget.csv").fill("Budget 2026");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("cell", { name: "Budget 2026", exact: true }).waitFor();
    await page.getByRole("button", { name: "Share Budget 2026" }).click();
    await page.getByText("public", { exact: true }).waitFor();

    const saved = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download Budget 2026" }).click();
    const download = await saved;
    expect(download.suggestedFilename()).toBe("Budget 2026.csv");
    expect(readFileSync((await download.path()) as string, "utf8")).toBe(rows);

    await page.getByRole("button", { name: "Move to trash Budget 2026" }).click();
    await page.getByText("No files yet").waitFor();
    await page.getByRole("link", { name: "Trash" }).click();
    await page.getByRole("cell", { name: /^Budget 2026/ }).waitFor();
    expect(await page.getByRole("columnheader", { name: "Deleted for good after" }).count()).toBe(1);
    expect(await axe()).toEqual([]);
    await page.getByRole("button", { name: "Restore Budget 2026" }).click();
    await page.getByText("The trash is empty").waitFor();
    await page.getByRole("link", { name: "Files" }).click();
    await page.getByRole("cell", { name: /^Budget 2026/ }).waitFor();

    await page.getByRole("link", { name: "Account" }).click();
    await page.getByText("bo@example.com").waitFor();
    expect(await axe()).toEqual([]);
    await page.getByLabel("Your name").fill("Bo Diddley");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("You are now Bo Diddley.").waitFor();
    const jwt = (await page.evaluate("localStorage.getItem('cellar.session')")) as string;
    const me = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(await me.json()).toMatchObject({ email: "bo@example.com", name: "Bo Diddley" });
  });

  it("runs no script the page did not come with: an injected inline script is refused by the CSP", async () => {
    await page.goto(server.url);
    // Run in the page (as text: this project's types know no DOM).
    const outcome = await page.evaluate(`new Promise((resolve) => {
      let violated = null;
      document.addEventListener("securitypolicyviolation", (event) => { violated = event.violatedDirective; });
      const injected = document.createElement("script");
      injected.textContent = "window.__injected = true;";
      document.body.append(injected);
      setTimeout(() => resolve({ ran: "__injected" in window, violated }), 100);
    })`);
    expect(outcome).toEqual({ ran: false, violated: "script-src-elem" });
  });
});

describe("a server whose web app is not built", () => {
  it("still answers the mailed link with the self-contained sign-in page, and its app routes say how to build", async () => {
    const work = mkdtempSync(join(tmpdir(), "cellar-web-"));
    const server = await startServer({
      env: { HOST: "127.0.0.1", PORT: "0", DATA_DIR: join(work, "data") },
      logger: false,
      webAppFolder: join(work, "not-built"),
    });
    try {
      const page = await fetch(`${server.url}/sign-in?token=abc`);
      expect(page.status).toBe(200);
      // The page of its own: one inline script, allowed by its hash.
      expect(page.headers.get("content-security-policy")).toMatch(/script-src 'sha256-/);
      const app = await fetch(`${server.url}/files`);
      expect(app.status).toBe(503);
      expect(await app.json()).toMatchObject({ error: { code: "unavailable" } });
    } finally {
      await server.close(1000);
      rmSync(work, { recursive: true, force: true });
    }
  });
});
