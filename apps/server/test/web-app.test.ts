import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import type {} from "@cellar/test-engines";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
  type Route,
} from "playwright-core";
import { build } from "vite";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { type RunningServer, startServer } from "../src/server.js";
import { signInLinkIn, startSmtpSink } from "./support/smtp-sink.js";

/** Screenshots of each screen, for people to look at: ignored by git, kept after the run. */
const SCREENSHOTS = fileURLToPath(new URL("../../../test-artifacts/web/", import.meta.url));
const WORKBOOK = fileURLToPath(
  new URL("../../../packages/adapter-sheets/test/fixtures/libreoffice-book.xlsx", import.meta.url),
);

/** Where the web app keeps its session token (apps/web/src/app/session.ts). */
const SESSION_KEY = "cellar.session";
/**
 * The upload limit of a second server, small so that a file over it is small too: sending
 * many MiB through the browser is slow on a busy machine, and proves nothing more.
 */
const SMALL_UPLOAD_LIMIT = 64 * 1024;
/**
 * How long one step (a click, a wait for text) may take. Generous: a step that cannot
 * happen still fails naming what it waited for, and a slow, busy machine is not a failure.
 */
const STEP_MS = 60_000;
/** How long one test may take: many steps, each well within STEP_MS. */
const TEST_MS = 300_000;
/** For `expect.poll`: what the page shows is polled for as long as a step may take. */
const UNTIL = { timeout: STEP_MS };

/** The CSV the uploads, previews and shares are made of: 400,000 rows under a header. */
const BUDGET_ROWS = `id,amount\n${"1,2\n".repeat(400_000)}`;
/** A `.sheet` file that is not one Cellar can read. */
const LEGACY_SHEET = "\u0000\u0001raw";

/** A file as the API returns it (the fields these tests look at). */
interface FileJson {
  readonly id: string;
  readonly name: string;
  readonly trashed_at?: string | null;
}

/** A signed-in user of one server: the address and the session's token. */
interface Session {
  readonly email: string;
  readonly jwt: string;
  readonly at: RunningServer;
}

/**
 * The web app as `pnpm start` serves it, in a real Chromium: built by Vite as
 * `scripts/pnpm build` builds it, served by the standalone server on its embedded
 * default, with sign-in mail going through a real SMTP server.
 *
 * Each test stands on its own, in a browser context of its own, as a user of its own
 * whose files it uploads through the API: none relies on what another test left.
 */
describe("the web app", { timeout: TEST_MS }, () => {
  const work = mkdtempSync(join(tmpdir(), "cellar-web-"));
  const appFolder = join(work, "app");
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: RunningServer;
  /** The same app, refusing files over SMALL_UPLOAD_LIMIT. */
  let smallServer: RunningServer;
  let browser: Browser;
  /** The contexts this test opened, closed after it. */
  const contexts: BrowserContext[] = [];
  /** Requests the app's pages made to anywhere but their server: there should be none. */
  const elsewhere: string[] = [];
  let users = 0;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await build({
      configFile: fileURLToPath(new URL("../../web/vite.config.ts", import.meta.url)),
      build: { outDir: appFolder, emptyOutDir: true },
      logLevel: "warn",
    });
    smtp = await startSmtpSink();
    const serve = (name: string, env: Record<string, string> = {}) =>
      startServer({
        env: {
          HOST: "127.0.0.1",
          PORT: "0",
          DATA_DIR: join(work, name),
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          ...env,
        },
        logger: false,
        webAppFolder: appFolder,
      });
    server = await serve("data");
    smallServer = await serve("small-data", { MAX_UPLOAD_BYTES: String(SMALL_UPLOAD_LIMIT) });
    const { executablePath, args } = inject("chromium");
    browser = await chromium.launch({ executablePath, args: [...args], headless: true });
  }, TEST_MS);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(elsewhere.splice(0), "requests to other origins").toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close(1000);
    await smallServer?.close(1000);
    await smtp?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const axe = async (on: Page) =>
    (await new AxeBuilder({ page: on }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations;
  const screenshot = (name: string, on: Page) =>
    on.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  const tokenOf = async (on: Page) => (await on.evaluate(`localStorage.getItem('${SESSION_KEY}')`)) as string;
  const api = (path: string, jwt: string, init: RequestInit = {}, at: RunningServer = server) =>
    fetch(`${at.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${jwt}`, ...init.headers } });
  const postJson = (at: RunningServer, path: string, body: unknown) =>
    fetch(`${at.url}/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** An address no other test (nor an earlier step of this one) has used. */
  const newEmail = (who: string) => `${who}-${++users}@example.com`;

  /**
   * A page in a browser context of its own (closed after the test), its requests to
   * other origins noted; with `session`, signed in before its first script runs: the
   * token is where the app keeps it.
   */
  async function newPage(
    options: { at?: RunningServer; session?: Session; context?: BrowserContextOptions } = {},
  ): Promise<Page> {
    const at = options.at ?? options.session?.at ?? server;
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      ...options.context,
      ...(options.session === undefined
        ? {}
        : {
            storageState: {
              cookies: [],
              origins: [{ origin: at.url, localStorage: [{ name: SESSION_KEY, value: options.session.jwt }] }],
            },
          }),
    });
    contexts.push(context);
    context.setDefaultTimeout(STEP_MS);
    context.setDefaultNavigationTimeout(STEP_MS);
    const page = await context.newPage();
    page.on("request", (request) => {
      const origin = new URL(request.url()).origin;
      if (origin !== at.url && !request.url().startsWith("blob:")) elsewhere.push(request.url());
    });
    return page;
  }

  /**
   * Signs a new user in through the API, as fast as it goes: the link is asked for and
   * its mail read from the SMTP server as in the app, and its token exchanged directly.
   */
  async function newSession(who: string, at: RunningServer = server): Promise<Session> {
    const email = newEmail(who);
    const since = smtp.mails.length;
    expect((await postJson(at, "/sessions", { email })).status).toBe(202);
    const token = signInLinkIn((await smtp.nextMailTo(email, since)).raw).searchParams.get("token");
    const verified = await postJson(at, "/sessions/verify", { token });
    expect(verified.status).toBe(200);
    return { email, jwt: ((await verified.json()) as { jwt: string }).jwt, at };
  }

  /** A new user's page, signed in and showing their files. */
  async function signedInPage(
    who: string,
    options: { at?: RunningServer; context?: BrowserContextOptions } = {},
  ): Promise<{ page: Page; session: Session }> {
    const session = await newSession(who, options.at);
    const page = await newPage({ session, ...(options.context === undefined ? {} : { context: options.context }) });
    await page.goto(`${session.at.url}/files`);
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    return { page, session };
  }

  /** Uploads a file through the API, as `fileName`, with the form's `name` and `visibility` if given. */
  async function seed(
    session: Session,
    fileName: string,
    content: string | Uint8Array,
    fields: { name?: string; visibility?: "public" | "private" } = {},
  ): Promise<FileJson> {
    const form = new FormData();
    form.append("file", new Blob([content]), fileName);
    for (const [field, value] of Object.entries(fields)) form.append(field, value);
    const response = await api("/files", session.jwt, { method: "POST", body: form }, session.at);
    expect(response.status, `upload of ${fileName}: ${response.status === 201 ? "" : await response.text()}`).toBe(201);
    return (await response.json()) as FileJson;
  }

  /** The three files the upload test leaves: a large CSV renamed and shared, a workbook, a file Cellar cannot read. */
  async function seedTheUsualFiles(session: Session, budget: string = BUDGET_ROWS) {
    return {
      budget: await seed(session, "budget.csv", budget, { name: "Budget 2026", visibility: "public" }),
      book: await seed(session, "book.xlsx", readFileSync(WORKBOOK)),
      legacy: await seed(session, "legacy.sheet", Buffer.from(LEGACY_SHEET, "latin1")),
    };
  }

  /** Asks for a link through the app's own form and returns the link the SMTP server received. */
  async function requestLink(email: string, on: Page): Promise<URL> {
    const since = smtp.mails.length;
    await on.goto(server.url);
    await on.getByLabel("Email address").fill(email);
    await on.getByRole("button", { name: "Send me a link" }).click();
    await on.getByRole("heading", { name: "Check your mail" }).waitFor();
    return signInLinkIn((await smtp.nextMailTo(email, since)).raw);
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
    const worker = await fetch(`${server.url}/download-worker.js`);
    expect(worker.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(worker.headers.get("cache-control")).toBe("no-cache");
    for (const path of ["/v1/nothing-here", "/nothing-here", "/assets/missing.js"]) {
      const missing = await fetch(`${server.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(await missing.json(), path).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("signs in through the mailed link with one press, keeps it through a reload, and signs out for good", async () => {
    const page = await newPage();
    const email = newEmail("ada");
    await page.goto(server.url);
    await page.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    expect(await axe(page)).toEqual([]);
    await screenshot("sign-in", page);
    const link = await requestLink(email, page);
    expect(await page.textContent("main")).toContain(email);
    expect(await axe(page)).toEqual([]);
    await screenshot("check-your-mail", page);
    expect(link.origin).toBe(server.url);

    // A mail scanner following the link spends nothing: it only gets the page.
    const scanner = await newPage();
    await scanner.goto(link.href);
    await scanner.getByRole("button", { name: "Sign in" }).waitFor();
    await scanner.close();

    await page.goto(link.href);
    expect(await axe(page)).toEqual([]);
    await screenshot("finish-sign-in", page);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    // The token left the address bar.
    expect(new URL(page.url()).pathname).toBe("/files");
    expect(page.url()).not.toContain("token");
    await page.reload();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    await page.getByText("No files yet").waitFor();
    await screenshot("files-empty", page);

    const jwt = await tokenOf(page);
    expect((await api("/users/me", jwt)).status).toBe(200);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    expect(await tokenOf(page)).toBeNull();
    expect((await api("/users/me", jwt)).status).toBe(401);

    // A link used once says so, and offers a new one.
    await page.goto(link.href);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain(
      "This link has expired or was already used.",
    );
  });

  it("uploads by picker and by drop, with progress, refusals, cancel and offline; renames, shares, downloads", async () => {
    const { page, session } = await signedInPage("bo");
    const context = page.context();
    await page.locator('input[type="file"]').setInputFiles([
      { name: "budget.csv", mimeType: "text/csv", buffer: Buffer.from(BUDGET_ROWS) },
      { name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("not a spreadsheet") },
    ]);
    await page.getByText("Uploaded", { exact: true }).waitFor();
    await page.getByRole("link", { name: "budget.csv", exact: true }).waitFor();
    // The refused one says why, beside its bar.
    await expect(page.getByRole("alert").first().textContent()).resolves.toMatch(/csv|xlsx|sheet/i);
    const bar = page.getByRole("progressbar", { name: "Upload of budget.csv" });
    expect(await bar.getAttribute("value")).toBe(String(BUDGET_ROWS.length));
    expect(await axe(page)).toEqual([]);

    // Dropped from the desktop: the same uploads, through the drop zone.
    const workbook = readFileSync(WORKBOOK).toString("base64");
    const dropped = await page.evaluateHandle(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(workbook)}), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], "book.xlsx"));
      transfer.items.add(new File(["\\u0000\\u0001raw"], "legacy.sheet"));
      return transfer;
    })()`);
    await page.locator(".drop").dispatchEvent("drop", { dataTransfer: dropped });
    await page.getByRole("link", { name: "book.xlsx", exact: true }).waitFor();
    await page.getByRole("link", { name: "legacy.sheet", exact: true }).waitFor();

    // An upload still under way is cancelled and nothing is stored. The request is held
    // on its way to the server until then, so the test does not race the upload.
    const held: Route[] = [];
    await page.route(`${server.url}/v1/files`, (route) => {
      if (route.request().postDataBuffer()?.includes("slow.csv")) held.push(route);
      else void route.continue();
    });
    await page
      .locator('input[type="file"]')
      .setInputFiles([{ name: "slow.csv", mimeType: "text/csv", buffer: Buffer.from(`a\n${"1\n".repeat(50_000)}`) }]);
    await expect.poll(() => held.length, UNTIL).toBe(1);
    await screenshot("uploading", page);
    const abandoned = page.waitForEvent("requestfailed", (request) => request === held[0]?.request());
    await page.getByRole("button", { name: "Cancel slow.csv" }).click();
    await page.getByText("Cancelled.").waitFor();
    // The page itself gave the request up.
    expect((await abandoned).failure()?.errorText).toBe("net::ERR_ABORTED");
    await page.unroute(`${server.url}/v1/files`);
    await held[0]?.abort().catch(() => undefined); // the page gave it up: it never reaches the server
    // (Too large: its own test, on a server with a small limit.)
    // Offline: the upload says so.
    await context.setOffline(true);
    await page
      .locator('input[type="file"]')
      .setInputFiles([{ name: "offline.csv", mimeType: "text/csv", buffer: Buffer.from("a\n1\n") }]);
    await page.getByText("You are offline", { exact: false }).waitFor();
    await context.setOffline(false);
    const names = ((await (await api("/files?per_page=100", session.jwt)).json()) as FileJson[]).map((f) => f.name);
    expect(names.sort()).toEqual(["book.xlsx", "budget.csv", "legacy.sheet"]);

    // Rename by keyboard: the field takes focus with the name selected; Escape leaves it.
    const renameField = "document.activeElement?.getAttribute('aria-label') === 'New name for budget.csv'";
    await page.getByRole("button", { name: "Rename budget.csv" }).click();
    await page.waitForFunction(renameField);
    await page.keyboard.press("Escape");
    await page.getByLabel("New name for budget.csv").waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Rename budget.csv" }).click();
    await page.waitForFunction(renameField);
    await page.keyboard.type("Budget 2026");
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
    await page.getByRole("button", { name: "Share Budget 2026" }).click();
    await page.getByText("public", { exact: true }).waitFor();
    await expect(page.getByRole("status").first().textContent()).resolves.toMatch(/\/files\/file_[a-z2-7]+/);
    await screenshot("files", page);

    const saved = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download Budget 2026" }).click();
    const download = await saved;
    expect(download.suggestedFilename()).toBe("Budget 2026.csv");
    expect(readFileSync((await download.path()) as string, "utf8")).toBe(BUDGET_ROWS);
    // Saved by the download worker, straight to disk, not from a copy in the page's memory;
    // the page stayed where it was.
    expect(download.url()).toMatch(new RegExp(`^${server.url}/download-worker/[0-9a-f-]{36}$`));
    expect(new URL(page.url()).pathname).toBe("/files");
    // Its address works once: opened again, it has expired.
    const again = await context.newPage();
    const reopened = await again.goto(download.url());
    expect(reopened?.status()).toBe(410);
    await again.close();
  });

  it("refuses a file over the server's upload limit with the server's reason, and stores nothing", async () => {
    const { page, session } = await signedInPage("cy", { at: smallServer });
    // Four times the limit: the server stops reading it early, and still gives its reason.
    const huge = `a\n${"1\n".repeat((4 * SMALL_UPLOAD_LIMIT) / 2)}`;
    expect(huge.length).toBeGreaterThan(SMALL_UPLOAD_LIMIT);
    await page
      .locator('input[type="file"]')
      .setInputFiles([{ name: "huge.csv", mimeType: "text/csv", buffer: Buffer.from(huge) }]);
    await page.getByText(/huge\.csv.*(too large|larger|over)/i).waitFor();
    expect(await axe(page)).toEqual([]);
    // A file within the limit goes through on the same server.
    await page
      .locator('input[type="file"]')
      .setInputFiles([{ name: "small.csv", mimeType: "text/csv", buffer: Buffer.from("a\n1\n") }]);
    await page.getByRole("link", { name: "small.csv", exact: true }).waitFor();
    const names = ((await (await api("/files", session.jwt, {}, smallServer)).json()) as FileJson[]).map((f) => f.name);
    expect(names).toEqual(["small.csv"]);
  });

  it("previews a CSV in a grid: letters, row numbers, a frozen header row, keyboard moves", async () => {
    const { page, session } = await signedInPage("bo");
    await seedTheUsualFiles(session);
    await page.reload();
    await page.getByRole("link", { name: "Budget 2026", exact: true }).click();
    await page.getByRole("heading", { name: "Budget 2026" }).waitFor();
    const grid = page.getByRole("grid", { name: "Cells of Sheet1" });
    await grid.waitFor();
    expect(await grid.getAttribute("aria-rowcount")).toBe("400002"); // the letters' row, then 400,001
    await page.locator("#cell-2-1").filter({ hasText: "1" }).waitFor();
    expect(await page.getByRole("columnheader", { name: "B", exact: true }).count()).toBe(1);
    // The header row stays while the rows under it scroll.
    await grid.focus();
    await page.keyboard.press("PageDown");
    await page.keyboard.press("PageDown");
    await expect.poll(() => page.locator("#cell-2-1").count(), UNTIL).toBe(0);
    await page.locator("#cell-1-1").filter({ hasText: "id" }).waitFor();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-2-2");
    await expect.poll(() => page.getByRole("status").last().textContent(), UNTIL).toBe("Row 2 of 400,001, column B");
    await page.keyboard.press("Control+End");
    await page.locator("#cell-400001-2").filter({ hasText: "2" }).waitFor();
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-400001-2");
    // CSV cells are text; a column of numbers is lined up as numbers.
    expect(await page.locator("#cell-400001-2").getAttribute("class")).toContain("align-end");
    expect(await axe(page)).toEqual([]);
    await screenshot("preview-csv", page);
  });

  it("previews a workbook's sheets as tabs, dates as dates; an unreadable file says so and still downloads", async () => {
    const { page, session } = await signedInPage("bo");
    const { book } = await seedTheUsualFiles(session);
    await page.reload();
    await page.getByRole("link", { name: "book.xlsx", exact: true }).click();
    const tabs = page.getByRole("tab");
    await tabs.first().waitFor();
    expect(await tabs.allTextContents()).toEqual(["Budget", "Données 'été' 📊", "Empty"]);
    expect(await tabs.first().getAttribute("aria-selected")).toBe("true");
    const grid = page.getByRole("grid", { name: "Cells of Budget" });
    await grid.waitFor();
    expect(new URL(page.url()).pathname).toBe(`/files/${book.id}`);
    const typed = (await (
      await api(`/files/${book.id}/values?range=Budget!A1:H40&types=true`, session.jwt)
    ).json()) as {
      values: unknown[][];
      types: (string | null)[][];
    };
    // Each date cell of the sheet shows as a date, not the API's ISO text; numbers line up right.
    const dates = typed.types.flatMap((row, r) =>
      row.flatMap((type, c) =>
        type === "date" && /^\d{4}-\d{2}-\d{2}$/.test(String(typed.values[r]?.[c])) ? [[r, c]] : [],
      ),
    );
    expect(dates.length).toBeGreaterThan(0);
    for (const [r = 0, c = 0] of dates) {
      const cell = page.locator(`#cell-${r + 1}-${c + 1}`);
      await cell.filter({ hasText: /\S/ }).waitFor();
      expect(await cell.textContent()).not.toBe(typed.values[r]?.[c]);
      expect(await cell.getAttribute("class")).toContain("align-end");
    }
    expect(await axe(page)).toEqual([]);
    await screenshot("preview-xlsx", page);
    // Arrow keys move between tabs, as tabs do.
    await tabs.first().focus();
    await page.keyboard.press("ArrowRight");
    await page.getByRole("grid", { name: "Cells of Données 'été' 📊" }).waitFor();
    await tabs.last().click();
    await page.getByText("This sheet has no cells with a value.").waitFor();

    await page.getByRole("link", { name: "Back to your files" }).click();
    await page.getByRole("link", { name: "legacy.sheet", exact: true }).click();
    await expect(page.getByRole("alert").textContent()).resolves.toContain("Cellar cannot show the cells of this file");
    expect(await axe(page)).toEqual([]);
    const saved = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download" }).click();
    expect(readFileSync((await (await saved).path()) as string, "latin1")).toBe(LEGACY_SHEET);

    // No such file: said so.
    await page.goto(`${server.url}/files/file_aaaaaaaaaaaaaaaaaaaaaaaa`);
    await page.getByRole("heading", { name: "No such file" }).waitFor();
  });

  it("opens a shared file's link for another user, and keeps a private one from them", async () => {
    const owner = await newSession("bo");
    const { budget: shared, book: private_ } = await seedTheUsualFiles(owner);
    // A browser without service workers: downloads are saved from memory instead.
    const { page: ada } = await signedInPage("ada", { context: { serviceWorkers: "block" } });
    await ada.goto(`${server.url}/files/${shared.id}`);
    await ada.getByRole("heading", { name: "Budget 2026" }).waitFor();
    await ada.locator("#cell-2-2").filter({ hasText: "2" }).waitFor();
    expect(await axe(ada)).toEqual([]);
    const saved = ada.waitForEvent("download");
    await ada.getByRole("button", { name: "Download" }).click();
    const download = await saved;
    expect(download.url()).toMatch(/^blob:/);
    expect(download.suggestedFilename()).toBe("Budget 2026.csv");
    expect(readFileSync((await download.path()) as string, "utf8")).toBe(BUDGET_ROWS);
    await ada.goto(`${server.url}/files/${private_.id}`);
    await ada.getByRole("heading", { name: "No such file" }).waitFor();
    expect(await ada.textContent("main")).not.toContain("book.xlsx");
    expect(await axe(ada)).toEqual([]);
    await screenshot("no-such-file", ada);
  });

  it("jumps to row 999,999 of a 1,000,000-row sheet and shows its cells with a screenful of rows in the page", async () => {
    const { page, session } = await signedInPage("bo");
    const context = page.context();
    let csv = "n,parity\n";
    for (let n = 1; n < 1_000_000; n++) csv += `${n},${n % 2 === 0 ? "even" : "odd"}\n`;
    const stored = await seed(session, "million.csv", csv);
    expect((await api(`/files/${stored.id}/sheets`, session.jwt)).status).toBe(200);

    await page.goto(`${server.url}/files/${stored.id}`);
    const grid = page.getByRole("grid", { name: "Cells of Sheet1" });
    await grid.waitFor();
    expect(await grid.getAttribute("aria-rowcount")).toBe("1000001");
    await page.getByLabel("Go to cell").fill("A999999");
    const started = Date.now();
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.locator("#cell-999999-1").filter({ hasText: "999998" }).waitFor();
    const shownAfter = Date.now() - started;
    await expect.poll(() => page.locator("#cell-999999-2").textContent(), UNTIL).toBe("even");
    const rowsInPage = await page.getByRole("row").count();
    expect(rowsInPage).toBeLessThanOrEqual(200);
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-999999-1");
    await screenshot("preview-deep", page);
    // The scroll bar stays in step: scrolled near its end, under the browsers' height cap.
    const scrolled = (await page.evaluate(
      "(() => { const g = document.querySelector('[role=grid]'); return [g.scrollTop, g.scrollHeight, g.clientHeight]; })()",
    )) as number[];
    expect(scrolled[1]).toBeLessThanOrEqual(2 ** 24 + 100);
    expect((scrolled[0] ?? 0) / ((scrolled[1] ?? 1) - (scrolled[2] ?? 0))).toBeGreaterThan(0.99);
    // The wheel moves on from there, to the last row.
    await grid.hover();
    await page.mouse.wheel(0, 5_000);
    await page.locator("#cell-1000000-1").filter({ hasText: "999999" }).waitFor();
    // Offline, a jump says what it could not load; back online, Try again loads it.
    await context.setOffline(true);
    try {
      await page.getByLabel("Go to cell").fill("B500000");
      await page.getByRole("button", { name: "Go", exact: true }).click();
      await page.getByText("Some cells could not be loaded").waitFor();
    } finally {
      await context.setOffline(false);
    }
    await page.getByRole("button", { name: "Try again" }).click();
    await page.locator("#cell-500000-2").filter({ hasText: "odd" }).waitFor();
    await expect.poll(() => page.getByText("Some cells could not be loaded").count(), UNTIL).toBe(0);
    console.log(`web preview: row 999,999 shown ${shownAfter} ms after the jump, ${rowsInPage} rows in the page`);
  });

  it("shows the right cell across block edges: past column Y and row 200, at the last row and column", async () => {
    const { page, session } = await signedInPage("bo");
    const lines: string[] = [];
    for (let row = 1; row <= 450; row++) {
      lines.push(Array.from({ length: 30 }, (_, column) => `r${row}c${column + 1}`).join(","));
    }
    const stored = await seed(session, "wide.csv", `${lines.join("\n")}\n`);
    await page.goto(`${server.url}/files/${stored.id}`);
    await page.getByRole("grid", { name: "Cells of Sheet1" }).waitFor();
    for (const [reference, row, column] of [
      ["Z1", 1, 26],
      ["Y200", 200, 25],
      ["Z201", 201, 26],
      ["AD450", 450, 30],
      ["A401", 401, 1],
    ] as const) {
      await page.getByLabel("Go to cell").fill(reference);
      await page.getByRole("button", { name: "Go", exact: true }).click();
      await page
        .locator(`#cell-${row}-${column}`)
        .filter({ hasText: `r${row}c${column}` })
        .waitFor();
    }
    // Nothing past the sheet: Go to refuses it and says the sheet's extent.
    await page.getByLabel("Go to cell").fill("AE1");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByText("AE1 is not a cell of this sheet (A1 to AD450).").waitFor();
  });

  it("selects several files to trash and restore at once; the trash shows when each goes for good", async () => {
    const { page, session } = await signedInPage("bo");
    const { budget } = await seedTheUsualFiles(session, "id,amount\n1,2\n");
    const jwt = session.jwt;
    await page.reload();
    // Trashed behind the list's back: Download says why it cannot, and the page stays.
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
    expect((await api(`/files/${budget.id}`, jwt, { method: "DELETE" })).status).toBe(200);
    await page.getByRole("button", { name: "Download Budget 2026" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent(), UNTIL).toMatch(/in the trash/i);
    expect(new URL(page.url()).pathname).toBe("/files");
    expect((await api(`/files/${budget.id}/restore`, jwt, { method: "POST" })).status).toBe(200);
    await page.reload();
    await page.getByRole("checkbox", { name: "Select book.xlsx" }).check();
    await page.getByRole("checkbox", { name: "Select legacy.sheet" }).check();
    await page.getByText("2 selected").waitFor();
    await page.getByRole("button", { name: "Move selected to the trash" }).click();
    await page.getByText("Moved to the trash.").waitFor();
    // Said before the list reloads: then gone from it.
    await page.getByRole("link", { name: "book.xlsx", exact: true }).waitFor({ state: "detached" });

    await page.getByRole("link", { name: "Trash" }).click();
    await page.getByRole("cell", { name: "legacy.sheet", exact: true }).waitFor();
    expect(await page.getByRole("columnheader", { name: "Deleted for good after" }).count()).toBe(1);
    const purge = await page
      .getByRole("row", { name: /legacy\.sheet/ })
      .getByRole("cell")
      .nth(3)
      .textContent();
    expect(purge).toMatch(/\d/);
    expect(await axe(page)).toEqual([]);
    await screenshot("trash", page);
    await page.getByRole("checkbox", { name: "Select every file on this page" }).check();
    await page.getByText("2 selected").waitFor();
    await page.getByRole("button", { name: "Restore selected" }).click();
    await page.getByText("The trash is empty").waitFor();

    // One at a time too.
    await page.getByRole("link", { name: "Files" }).click();
    await page.getByRole("button", { name: "Move to trash Budget 2026" }).click();
    await page.getByText("Budget 2026 is in the trash.").waitFor();
    await page.getByRole("link", { name: "Trash" }).click();
    await page.getByRole("button", { name: "Restore Budget 2026" }).click();
    await page.getByText("The trash is empty").waitFor();
    await page.getByRole("link", { name: "Files" }).click();
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
  });

  it("shows your address and changes your name", async () => {
    const { page, session } = await signedInPage("bo");
    await page.getByRole("link", { name: "Account" }).click();
    await page.getByText(session.email).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.getByLabel("Your name").fill("Bo Diddley");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByText("You are now Bo Diddley.").waitFor();
    await screenshot("account", page);
    expect(await (await api("/users/me", session.jwt)).json()).toMatchObject({
      email: session.email,
      name: "Bo Diddley",
    });
  });

  it("fits a phone's width and reads in dark mode, with no accessibility violations", async () => {
    const { page, session } = await signedInPage("bo", {
      context: { viewport: { width: 390, height: 844 }, colorScheme: "dark" },
    });
    await seedTheUsualFiles(session, "id,amount\n1,2\n");
    for (const [path, ready, name] of [
      ["/files", "Your files", "phone-dark-files"],
      ["/trash", "Trash", "phone-dark-trash"],
      ["/account", "Account", "phone-dark-account"],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole("heading", { name: ready }).waitFor();
      await page.waitForLoadState("networkidle");
      expect(await axe(page), path).toEqual([]);
      // Nothing wider than the screen: no sideways scrolling of the page.
      expect(await page.evaluate("document.documentElement.scrollWidth"), path).toBeLessThanOrEqual(390);
      await screenshot(name, page);
    }
    await page.getByRole("link", { name: "Files" }).click();
    await page.getByRole("link", { name: "book.xlsx", exact: true }).click();
    await page.getByRole("grid", { name: "Cells of Budget" }).waitFor();
    await page.locator("#cell-1-1").filter({ hasText: /\S/ }).waitFor();
    expect(await axe(page)).toEqual([]);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot("phone-dark-preview", page);
  });

  it("gives another site nothing to act with: its requests reach the API without the session", async () => {
    const { page, session } = await signedInPage("bo");
    const target = await seed(session, "book.xlsx", readFileSync(WORKBOOK));
    // A page on another origin that tries to trash the file, as a cross-site attack would.
    const attacker = createServer((_, response) => {
      response.setHeader("content-type", "text/html");
      response.end(`<!doctype html><form method="post" action="${server.url}/v1/files/${target.id}/restore"></form>
        <script>
          fetch(${JSON.stringify(`${server.url}/v1/files/${target.id}`)}, { method: "DELETE", credentials: "include", mode: "no-cors" })
            .finally(() => { document.title = "sent"; });
        </script>`);
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", resolve));
    try {
      // In the signed-in user's browser, beside the app.
      const other = await page.context().newPage();
      await other.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
      await other.waitForFunction("document.title === 'sent'");
      await other.close();
    } finally {
      await new Promise((resolve) => attacker.close(resolve));
    }
    const after = (await (await api(`/files/${target.id}`, session.jwt)).json()) as FileJson;
    expect(after.trashed_at).toBeNull();
  });

  it("asked nothing of any other origin through the whole journey: no fonts, CDNs or trackers", async () => {
    // Every test's pages are watched (see afterEach); this one goes through every screen.
    const page = await newPage();
    const email = newEmail("di");
    const link = await requestLink(email, page);
    await page.goto(link.href);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    const session: Session = { email, jwt: await tokenOf(page), at: server };
    const { budget, book, legacy } = await seedTheUsualFiles(session, "id,amount\n1,2\n");
    await page.reload();
    await page.getByRole("link", { name: "Budget 2026", exact: true }).click();
    await page.locator("#cell-2-2").filter({ hasText: "2" }).waitFor();
    await page.goto(`${server.url}/files/${book.id}`);
    await page.getByRole("grid", { name: "Cells of Budget" }).waitFor();
    await page.locator("#cell-1-1").filter({ hasText: /\S/ }).waitFor();
    await page.goto(`${server.url}/files/${legacy.id}`);
    await page.getByText("Cellar cannot show the cells of this file").waitFor();
    expect((await api(`/files/${budget.id}`, session.jwt, { method: "DELETE" })).status).toBe(200);
    for (const [path, ready] of [
      ["/trash", "Trash"],
      ["/account", "Account"],
      ["/files", "Your files"],
    ] as const) {
      await page.goto(`${server.url}${path}`);
      await page.getByRole("heading", { name: ready }).waitFor();
      await page.waitForLoadState("networkidle");
    }
    expect(elsewhere).toEqual([]);
  });

  it("runs no script the page did not come with: an injected inline script is refused by the CSP", async () => {
    const { page } = await signedInPage("bo");
    // Run in the page (as text: this project's types know no DOM). An inline script that
    // is allowed runs as it is added; a refused one is reported by an event, waited for
    // (or, should none come, given up on after a minute).
    const outcome = await page.evaluate(`new Promise((resolve) => {
      let ran = false;
      document.addEventListener("securitypolicyviolation", (event) => resolve({ ran, violated: event.violatedDirective }), { once: true });
      const injected = document.createElement("script");
      injected.textContent = "window.__injected = true;";
      document.body.append(injected);
      ran = "__injected" in window;
      if (ran) resolve({ ran, violated: null });
      setTimeout(() => resolve({ ran, violated: null }), ${STEP_MS});
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
