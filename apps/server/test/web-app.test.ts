import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Route } from "playwright-core";
import { describe, expect, it } from "vitest";
import { startServer } from "../src/server.js";
import {
  BUDGET_ROWS,
  type FileJson,
  type Session,
  SMALL_UPLOAD_LIMIT,
  STEP_MS,
  TEST_MS,
  UNTIL,
  useWebApp,
  WORKBOOK,
} from "./support/web-app.js";

/** The web app in a real Chromium: signing in, files, uploads, the trash, the account, security. */
describe("the web app", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const {
    axe,
    screenshot,
    tokenOf,
    api,
    newEmail,
    newPage,
    newSession,
    signedInPage,
    seed,
    seedTheUsualFiles,
    requestLink,
    elsewhere,
  } = web;

  /** Runs one of a file's actions from its menu, as a pointer would. */
  async function fromMenu(page: Page, fileName: string, action: string) {
    await page.getByRole("button", { name: `Actions for ${fileName}`, exact: true }).click();
    await page.getByRole("menuitem", { name: action, exact: true }).click();
  }

  it("serves the app at its routes, never cached, with a strict CSP; its hashed files for a year; the API's 404s stay JSON", async () => {
    for (const route of ["/", "/files", "/files/file_x", "/shared", "/trash", "/account", "/sign-in?token=abc"]) {
      const response = await fetch(`${web.server.url}${route}`);
      expect(response.status, route).toBe(200);
      expect(response.headers.get("content-type"), route).toBe("text/html; charset=utf-8");
      expect(response.headers.get("cache-control"), route).toBe("no-store");
      expect(response.headers.get("content-security-policy"), route).toContain("script-src 'self'");
    }
    const html = await (await fetch(web.server.url)).text();
    // No inline script or style: everything the page runs comes from a file of its own.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style="/);
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? "";
    const asset = await fetch(`${web.server.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const worker = await fetch(`${web.server.url}/download-worker.js`);
    expect(worker.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(worker.headers.get("cache-control")).toBe("no-cache");
    for (const path of ["/v1/nothing-here", "/nothing-here", "/assets/missing.js"]) {
      const missing = await fetch(`${web.server.url}${path}`);
      expect(missing.status, path).toBe(404);
      expect(await missing.json(), path).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("signs in through the mailed link with one press, keeps it through a reload, and signs out for good", async () => {
    const page = await newPage();
    const email = newEmail("ada");
    await page.goto(web.server.url);
    await page.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    expect(await axe(page)).toEqual([]);
    await screenshot("sign-in", page);
    const link = await requestLink(email, page);
    expect(await page.textContent("main")).toContain(email);
    expect(await axe(page)).toEqual([]);
    await screenshot("check-your-mail", page);
    expect(link.origin).toBe(web.server.url);

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
    // The sign-in page says why it is back.
    await page.getByRole("status").filter({ hasText: "You are signed out." }).waitFor();
    expect(await axe(page)).toEqual([]);
    await screenshot("signed-out", page);
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
    await page.route(`${web.server.url}/v1/files`, (route) => {
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
    await page.unroute(`${web.server.url}/v1/files`);
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

    // Rename from the file's menu: the field takes focus with the name selected; Escape
    // leaves it, and focus goes back to the menu's button.
    const renameField = "document.activeElement?.getAttribute('aria-label') === 'New name for budget.csv'";
    await fromMenu(page, "budget.csv", "Rename");
    await page.waitForFunction(renameField);
    await page.keyboard.press("Escape");
    await page.getByLabel("New name for budget.csv").waitFor({ state: "detached" });
    await page.waitForFunction("document.activeElement?.getAttribute('aria-label') === 'Actions for budget.csv'");
    await fromMenu(page, "budget.csv", "Rename");
    await page.waitForFunction(renameField);
    await page.keyboard.type("Budget 2026");
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
    // Shared by its link: the dialog's switch turns the link on, and gives it.
    await fromMenu(page, "Budget 2026", "Share");
    const dialog = page.getByRole("dialog", { name: "Share Budget 2026" });
    await dialog.getByRole("switch").check();
    await dialog.getByRole("status").filter({ hasText: "can now open it" }).waitFor();
    expect(await dialog.getByRole("textbox", { name: "Link to Budget 2026" }).inputValue()).toMatch(
      new RegExp(`^${web.server.url}/files/file_[a-z2-7]+$`),
    );
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByText("Shared", { exact: true }).waitFor();
    await screenshot("files", page);

    // A download says it has started.
    const saved = page.waitForEvent("download");
    await fromMenu(page, "Budget 2026", "Download");
    await page.getByRole("status").filter({ hasText: "Download started: Budget 2026" }).waitFor();
    const download = await saved;
    expect(download.suggestedFilename()).toBe("Budget 2026.csv");
    expect(readFileSync((await download.path()) as string, "utf8")).toBe(BUDGET_ROWS);
    // Saved by the download worker, straight to disk, not from a copy in the page's memory;
    // the page stayed where it was.
    expect(download.url()).toMatch(new RegExp(`^${web.server.url}/download-worker/[0-9a-f-]{36}$`));
    expect(new URL(page.url()).pathname).toBe("/files");
    // Its address works once: opened again, it has expired.
    const again = await context.newPage();
    const reopened = await again.goto(download.url());
    expect(reopened?.status()).toBe(410);
    await again.close();
  });

  it("refuses a file over the server's upload limit with the server's reason, and stores nothing", async () => {
    const { page, session } = await signedInPage("cy", { at: web.smallServer });
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
    const names = ((await (await api("/files", session.jwt, {}, web.smallServer)).json()) as FileJson[]).map(
      (f) => f.name,
    );
    expect(names).toEqual(["small.csv"]);
  });

  it("opens a shared file's link for another user, and keeps a private one from them", async () => {
    const owner = await newSession("bo");
    const { budget: shared, book: private_ } = await seedTheUsualFiles(owner);
    // A browser without service workers: downloads are saved from memory instead.
    const { page: ada } = await signedInPage("ada", { context: { serviceWorkers: "block" } });
    await ada.goto(`${web.server.url}/files/${shared.id}`);
    await ada.getByRole("heading", { name: "Budget 2026" }).waitFor();
    await ada.locator("#cell-2-2").filter({ hasText: "2" }).waitFor();
    expect(await axe(ada)).toEqual([]);
    const saved = ada.waitForEvent("download");
    await ada.getByRole("button", { name: "Download" }).click();
    const download = await saved;
    expect(download.url()).toMatch(/^blob:/);
    expect(download.suggestedFilename()).toBe("Budget 2026.csv");
    expect(readFileSync((await download.path()) as string, "utf8")).toBe(BUDGET_ROWS);
    await ada.goto(`${web.server.url}/files/${private_.id}`);
    await ada.getByRole("heading", { name: "No such file" }).waitFor();
    expect(await ada.textContent("main")).not.toContain("book.xlsx");
    expect(await axe(ada)).toEqual([]);
    await screenshot("no-such-file", ada);
  });

  it("selects several files to trash and restore at once; the trash shows when each goes for good", async () => {
    const { page, session } = await signedInPage("bo");
    const { budget } = await seedTheUsualFiles(session, "id,amount\n1,2\n");
    const jwt = session.jwt;
    await page.reload();
    // Trashed and restored elsewhere: the list follows both from the account's stream, without a reload.
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
    await page.evaluate("window.stayed = true");
    expect((await api(`/files/${budget.id}`, jwt, { method: "DELETE" })).status).toBe(200);
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor({ state: "detached" });
    expect((await api(`/files/${budget.id}/restore`, jwt, { method: "POST" })).status).toBe(200);
    await page.getByRole("link", { name: "Budget 2026", exact: true }).waitFor();
    expect(await page.evaluate("window.stayed")).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/files");
    await page.getByRole("checkbox", { name: "Select book.xlsx" }).check();
    await page.getByRole("checkbox", { name: "Select legacy.sheet" }).check();
    await page.getByText("2 selected").waitFor();
    await page.getByRole("button", { name: "Move selected to the trash" }).click();
    await page.getByText("Moved to the trash.").waitFor();
    // Said before the list reloads: then gone from it.
    await page.getByRole("link", { name: "book.xlsx", exact: true }).waitFor({ state: "detached" });

    await page.getByRole("link", { name: "Trash" }).click();
    await page.getByRole("row", { name: /legacy\.sheet/ }).waitFor();
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
    await fromMenu(page, "Budget 2026", "Move to trash");
    await page.getByText("Budget 2026 is in the trash.").waitFor();
    await page.getByRole("link", { name: "Trash" }).click();
    await fromMenu(page, "Budget 2026", "Restore");
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

  it("opens a file's menu from the keyboard: Enter, Space and the arrows open it, arrows move, Escape closes it and gives focus back", async () => {
    const { page, session } = await signedInPage("fay");
    await seed(session, "budget.csv", "a\n1\n");
    await page.reload();
    const button = page.getByRole("button", { name: "Actions for budget.csv", exact: true });
    const menu = page.getByRole("menu", { name: "Actions for budget.csv" });
    // The focused menu item's text, or the focused element's own name.
    const focused = () =>
      page.evaluate(
        "document.activeElement?.getAttribute('role') === 'menuitem' ? document.activeElement.textContent : document.activeElement?.getAttribute('aria-label')",
      );
    expect(await button.getAttribute("aria-haspopup")).toBe("menu");
    expect(await button.getAttribute("aria-expanded")).toBe("false");

    await button.focus();
    await page.keyboard.press("Enter");
    await menu.waitFor();
    expect(await button.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(focused, UNTIL).toBe("Open");
    const items = await menu.getByRole("menuitem").allTextContents();
    expect(items).toEqual(["Open", "Download", "Rename", "Share", "Activity", "Move to trash"]);
    for (const [key, lands] of [
      ["ArrowDown", "Download"],
      ["End", "Move to trash"],
      ["ArrowDown", "Open"], // round from the last to the first
      ["ArrowUp", "Move to trash"],
      ["Home", "Open"],
    ] as const) {
      await page.keyboard.press(key);
      await expect.poll(focused, UNTIL).toBe(lands);
    }
    expect(await axe(page)).toEqual([]);
    await screenshot("menu", page, { fullPage: false });
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    expect(await focused()).toBe("Actions for budget.csv");
    expect(await button.getAttribute("aria-expanded")).toBe("false");

    // Space opens it on its first item, Up on its last.
    await page.keyboard.press("Space");
    await expect.poll(focused, UNTIL).toBe("Open");
    await page.keyboard.press("Escape");
    await page.keyboard.press("ArrowUp");
    await expect.poll(focused, UNTIL).toBe("Move to trash");
    // Tab closes it and goes on from the button.
    await page.keyboard.press("Tab");
    await menu.waitFor({ state: "detached" });
    expect(await focused()).not.toBe("Actions for budget.csv");

    // Down opens it; Enter runs an item: Rename, whose field takes focus.
    await button.focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused, UNTIL).toBe("Open");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect.poll(focused, UNTIL).toBe("Rename");
    await page.keyboard.press("Enter");
    await expect.poll(focused, UNTIL).toBe("New name for budget.csv");
    await page.keyboard.press("Escape");
    await expect.poll(focused, UNTIL).toBe("Actions for budget.csv");

    // A click elsewhere closes it.
    await button.click();
    await menu.waitFor();
    // The menu listens for clicks outside from the frame after it opens.
    await page.evaluate("new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)))");
    await page.getByRole("heading", { name: "Your files" }).click();
    await menu.waitFor({ state: "detached" });
  });

  it("searches and sorts on the server, and keeps both in the address: through a reload, Back and Forward, and in the trash", async () => {
    const { page, session } = await signedInPage("eve");
    // Sizes that order the two budgets one way by name and the other way by size.
    const csvOf = (bytes: number) => `a\n${"1\n".repeat((bytes - 2) / 2)}`;
    const seeded = new Map<string, FileJson>();
    for (const [name, bytes] of [
      ["budget-2026.csv", 300],
      ["Budget old.csv", 20],
      ["notes.csv", 10],
      ["zeta.csv", 100],
    ] as const) {
      seeded.set(name, await seed(session, name, csvOf(bytes)));
    }
    const listed: URL[] = [];
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.pathname === "/v1/files" && request.method() === "GET") listed.push(url);
    });
    const names = () => page.locator("tbody .file-name").allTextContents();
    const address = () => new URL(page.url()).search;
    const lastAsked = () => Object.fromEntries(listed.at(-1)?.searchParams ?? []);
    await page.reload();
    await expect
      .poll(async () => (await names()).sort(), UNTIL)
      .toEqual(["Budget old.csv", "budget-2026.csv", "notes.csv", "zeta.csv"]);

    // Typed: the list is asked for once typing pauses; the address says what was asked. (How
    // many requests typing makes depends on how long the page stalls between keystrokes.)
    listed.length = 0;
    const search = page.getByRole("searchbox", { name: "Search your files" });
    await search.pressSequentially("bud");
    await expect.poll(address, UNTIL).toBe("?q=bud");
    await expect.poll(async () => (await names()).sort(), UNTIL).toEqual(["Budget old.csv", "budget-2026.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ q: "bud" });

    await page.getByLabel("Sort by").selectOption({ label: "Name, A to Z" });
    await expect.poll(address, UNTIL).toBe("?q=bud&sort=name");
    await expect.poll(names, UNTIL).toEqual(["Budget old.csv", "budget-2026.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ q: "bud", sort: "name" });
    expect(await page.getByRole("columnheader", { name: "Name" }).getAttribute("aria-sort")).toBe("ascending");

    // A reload asks for the same again.
    listed.length = 0;
    await page.reload();
    await expect.poll(names, UNTIL).toEqual(["Budget old.csv", "budget-2026.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ q: "bud", sort: "name" });
    expect(await search.inputValue()).toBe("bud");
    expect(await page.getByLabel("Sort by").inputValue()).toBe("name");

    // A column's header sorts by it, the biggest first, then the other way.
    const sizeHeader = page.getByRole("columnheader", { name: "Size" });
    await sizeHeader.getByRole("button").click();
    await expect.poll(address, UNTIL).toBe("?q=bud&sort=-size");
    await expect.poll(names, UNTIL).toEqual(["budget-2026.csv", "Budget old.csv"]);
    expect(await sizeHeader.getAttribute("aria-sort")).toBe("descending");
    expect(await page.getByRole("columnheader", { name: "Name" }).getAttribute("aria-sort")).toBeNull();
    await sizeHeader.getByRole("button").click();
    await expect.poll(address, UNTIL).toBe("?q=bud&sort=size");
    await expect.poll(names, UNTIL).toEqual(["Budget old.csv", "budget-2026.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ q: "bud", sort: "size" });

    // Back goes through each, to the whole list; Forward comes back to the search.
    await page.goBack();
    await expect.poll(address, UNTIL).toBe("?q=bud&sort=-size");
    await expect.poll(names, UNTIL).toEqual(["budget-2026.csv", "Budget old.csv"]);
    await page.goBack();
    await expect.poll(address, UNTIL).toBe("?q=bud&sort=name");
    await page.goBack();
    await expect.poll(address, UNTIL).toBe("?q=bud");
    await page.goBack();
    await expect.poll(address, UNTIL).toBe("");
    await expect.poll(() => search.inputValue(), UNTIL).toBe("");
    await expect.poll(async () => (await names()).length, UNTIL).toBe(4);
    await page.goForward();
    await expect.poll(() => search.inputValue(), UNTIL).toBe("bud");
    await expect.poll(async () => (await names()).length, UNTIL).toBe(2);

    // Nothing found says so, and offers the whole list back.
    await search.fill("nothing like it");
    await page.getByText("No file has “nothing like it” in its name.").waitFor();
    await page.getByRole("button", { name: "Clear the search" }).click();
    await expect.poll(async () => (await names()).length, UNTIL).toBe(4);

    // The trash searches and sorts the same way.
    for (const name of ["notes.csv", "zeta.csv"]) {
      expect((await api(`/files/${seeded.get(name)?.id}`, session.jwt, { method: "DELETE" })).status).toBe(200);
    }
    await page.goto(`${web.server.url}/trash?q=ZE`);
    await expect.poll(names, UNTIL).toEqual(["zeta.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ trashed: "true", q: "ZE" });
    await page.getByRole("searchbox", { name: "Search the trash" }).fill("");
    await page.getByLabel("Sort by").selectOption("-name");
    await expect.poll(address, UNTIL).toBe("?sort=-name");
    await expect.poll(names, UNTIL).toEqual(["zeta.csv", "notes.csv"]);
    await expect.poll(lastAsked, UNTIL).toMatchObject({ trashed: "true", sort: "-name" });
  });

  it("keeps the list's shape: the same column widths loading, listed, renaming, renamed and in the trash; sizes and dates on one line", async () => {
    const { page, session } = await signedInPage("gus");
    await seed(session, "short.csv", "a\n1\n");
    await seed(session, "book.xlsx", readFileSync(WORKBOOK));
    await seed(session, "rows.csv", "1,2\n".repeat(5_000));
    const columnWidths = () =>
      page.evaluate(
        `[...document.querySelectorAll("table.files thead th")].map((th) => th.getBoundingClientRect().width)`,
      ) as Promise<number[]>;
    // How many lines each size and date takes: the distinct tops of its text's boxes.
    const linesOfSizesAndDates = () =>
      page.evaluate(`[...document.querySelectorAll("table.files td.size, table.files td.date")].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return new Set([...range.getClientRects()].map((box) => Math.round(box.top))).size;
      })`) as Promise<number[]>;

    // Loading: the list's request is held until the widths are measured.
    const listing = (url: URL) => url.pathname === "/v1/files";
    const held: Route[] = [];
    await page.route(listing, (route) => {
      held.push(route);
    });
    await page.reload();
    await page.getByText("Loading…").waitFor();
    const loading = await columnWidths();
    expect(loading).toHaveLength(5);
    // The name takes the room the fixed columns leave; the menu's column is just its button.
    expect(Math.max(...loading)).toBe(loading[1]);
    expect(loading[4]).toBeLessThan(80);
    for (const route of held.splice(0)) await route.continue();
    await page.unroute(listing);
    await page.getByRole("link", { name: "short.csv" }).waitFor();
    expect(await columnWidths()).toEqual(loading);
    expect(await linesOfSizesAndDates()).toEqual([1, 1, 1, 1, 1, 1]);
    // Whatever the hour, a date is shown whole: the widest of each month, at two-digit hours, fits its column.
    const cutDates = `(() => {
      const cell = document.querySelector("table.files td.date");
      const time = cell.querySelector("time .time");
      const cut = [];
      for (let month = 0; month < 12; month++) {
        for (const hour of [10, 12, 22]) {
          const at = new Date(2026, month, 28, hour, 58);
          time.previousSibling.textContent = at.toLocaleDateString(undefined, { dateStyle: "medium" });
          time.textContent = ", " + at.toLocaleTimeString(undefined, { timeStyle: "short" });
          if (cell.scrollWidth > cell.clientWidth) cut.push(cell.textContent);
        }
      }
      return cut;
    })()`;
    expect(await page.evaluate(cutDates)).toEqual([]);

    await fromMenu(page, "short.csv", "Rename");
    await page.getByLabel("New name for short.csv").waitFor();
    expect(await columnWidths()).toEqual(loading);
    const long = `A name long enough to fill the column many times over ${"and more ".repeat(15)}`.trim();
    await page.getByLabel("New name for short.csv").fill(long);
    await page.keyboard.press("Enter");
    const renamed = page.getByRole("link", { name: long });
    await renamed.waitFor();
    expect(await columnWidths()).toEqual(loading);
    // The long name is cut short on its one line, not wrapped.
    const cut = `(() => {
      const link = [...document.querySelectorAll("a.file-name")].find((a) => a.textContent === ${JSON.stringify(long)});
      return [link.getClientRects().length, link.scrollWidth > link.clientWidth];
    })()`;
    expect(await page.evaluate(cut)).toEqual([1, true]);
    expect(await linesOfSizesAndDates()).toEqual([1, 1, 1, 1, 1, 1]);
    await screenshot("files-shape", page, { fullPage: false });

    await page.getByRole("checkbox", { name: "Select every file on this page" }).check();
    await page.getByRole("button", { name: "Move selected to the trash" }).click();
    await page.getByText("No files yet").waitFor();
    expect(await columnWidths()).toEqual(loading);
    await page.getByRole("link", { name: "Trash" }).click();
    await page.getByRole("link", { name: "Trash" }).and(page.locator("[aria-current=page]")).waitFor();
    await page.getByRole("row", { name: /rows\.csv/ }).waitFor();
    expect(await columnWidths()).toEqual(loading);
    expect(await linesOfSizesAndDates()).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("shows each file as a card about 72 px tall at phone width, so that about ten fit a screen, and nothing wider than the screen", async () => {
    const { page, session } = await signedInPage("hal", {
      context: { viewport: { width: 390, height: 844 } },
    });
    for (let n = 1; n <= 12; n++) await seed(session, `quarterly report ${n} with a long name.csv`, "a\n1\n");
    await page.reload();
    await page.locator("table.files tbody tr").nth(11).waitFor();
    const rows = (await page.evaluate(`[...document.querySelectorAll("table.files tbody tr")].map((row) => {
      const box = row.getBoundingClientRect();
      const top = (selector) => Math.round(row.querySelector(selector).getBoundingClientRect().top);
      const menu = row.querySelector("[aria-haspopup=menu]").getBoundingClientRect();
      return { height: box.height, sizeAndDateOnOneLine: top("td.size") === top("td.date"), nameAboveMeta: top("td.name") < top("td.size"), menuRight: menu.right };
    })`)) as { height: number; sizeAndDateOnOneLine: boolean; nameAboveMeta: boolean; menuRight: number }[];
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(row.height).toBeGreaterThan(56);
      expect(row.height).toBeLessThanOrEqual(80);
      expect(row).toMatchObject({ sizeAndDateOnOneLine: true, nameAboveMeta: true });
      expect(row.menuRight).toBeLessThanOrEqual(390);
    }
    expect(844 / Math.max(...rows.map((row) => row.height))).toBeGreaterThanOrEqual(10);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    // A menu opens within the screen.
    await page.getByRole("button", { name: "Actions for quarterly report 1 with a long name.csv" }).click();
    const menu = await page.getByRole("menu").boundingBox();
    expect(menu?.x).toBeGreaterThanOrEqual(0);
    expect((menu?.x ?? 0) + (menu?.width ?? Number.POSITIVE_INFINITY)).toBeLessThanOrEqual(390);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  });

  it("copies a shared file's link with one press and says so; where the clipboard is out of reach, selects the link to copy", async () => {
    const { page, session } = await signedInPage("ivy", {
      context: { permissions: ["clipboard-read", "clipboard-write"] },
    });
    const file = await seed(session, "budget.csv", "a\n1\n");
    const link = `${web.server.url}/files/${file.id}`;
    const clipboard = () => page.evaluate("navigator.clipboard.readText()");
    await page.reload();
    await fromMenu(page, "budget.csv", "Share");
    const dialog = page.getByRole("dialog", { name: "Share budget.csv" });
    await dialog.waitFor();
    expect(await dialog.getByRole("textbox", { name: "Link to budget.csv" }).inputValue()).toBe(link);
    expect(await axe(page)).toEqual([]);
    await dialog.getByRole("switch", { name: /has the link can open/ }).check();
    await dialog.getByRole("status").filter({ hasText: "can now open it" }).waitFor();
    await dialog.getByRole("button", { name: "Copy link" }).click();
    await dialog.getByRole("status").filter({ hasText: "Link copied" }).waitFor();
    expect(await clipboard()).toBe(link);
    await screenshot("share-dialog", page, { fullPage: false });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await (await api(`/files/${file.id}`, session.jwt)).json()).toMatchObject({ visibility: "public" });

    // A shared file's menu copies its link straight away.
    await page.evaluate("navigator.clipboard.writeText('')");
    await fromMenu(page, "budget.csv", "Copy link");
    await page.getByRole("status").filter({ hasText: "Link copied" }).waitFor();
    expect(await clipboard()).toBe(link);

    // No clipboard for the page (plain HTTP, an old browser): the link is selected, and the page says how to copy it.
    const bare = await newPage({ session });
    await bare.addInitScript("Object.defineProperty(Navigator.prototype, 'clipboard', { get: () => undefined })");
    await bare.goto(`${web.server.url}/files`);
    await fromMenu(bare, "budget.csv", "Copy link");
    const fallback = bare.getByRole("dialog", { name: "Share budget.csv" });
    await fallback.getByText("Press Ctrl+C").waitFor();
    expect(
      await bare.evaluate(
        "[document.activeElement.value, document.activeElement.selectionStart, document.activeElement.selectionEnd]",
      ),
    ).toEqual([link, 0, link.length]);
    await fallback.getByRole("switch").uncheck();
    await fallback.getByRole("status").filter({ hasText: "The link is off." }).waitFor();
    expect(await (await api(`/files/${file.id}`, session.jwt)).json()).toMatchObject({ visibility: "private" });
  });

  it("reads in light and dark, at desktop and phone widths, with no accessibility violations and nothing wider than the screen", async () => {
    const session = await newSession("bo");
    const { book } = await seedTheUsualFiles(session, "id,amount\n1,2\n");
    const old = await seed(session, "old notes.csv", "a\n1\n");
    expect((await api(`/files/${old.id}`, session.jwt, { method: "DELETE" })).status).toBe(200);
    for (const colorScheme of ["light", "dark"] as const) {
      for (const [width, height, screen] of [
        [1280, 800, "desktop"],
        [390, 844, "phone"],
      ] as const) {
        const named = (what: string) => `${screen}-${colorScheme}-${what}`;
        const context = { viewport: { width, height }, colorScheme };
        const signedOut = await newPage({ context });
        await signedOut.goto(web.server.url);
        await signedOut.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
        expect(await axe(signedOut), named("sign-in")).toEqual([]);
        await screenshot(named("sign-in"), signedOut, { fullPage: false });

        const page = await newPage({ session, context });
        for (const [path, ready, shown] of [
          ["/files", "Your files", "Budget 2026"],
          ["/trash", "Trash", "old notes.csv"],
          ["/account", "Account", session.email],
        ] as const) {
          await page.goto(`${web.server.url}${path}`);
          await page.getByRole("heading", { name: ready }).waitFor();
          await page.getByText(shown, { exact: true }).waitFor();
          const what = named(path.slice(1));
          expect(await axe(page), what).toEqual([]);
          expect(await page.evaluate("document.documentElement.scrollWidth"), what).toBeLessThanOrEqual(width);
          await screenshot(what, page, { fullPage: false });
        }
        await page.goto(`${web.server.url}/files`);
        await page.getByRole("button", { name: "Actions for Budget 2026" }).click();
        await page.getByRole("menu").waitFor();
        expect(await axe(page), named("menu")).toEqual([]);
        await screenshot(named("menu"), page, { fullPage: false });
        await page.keyboard.press("Escape");
        await page.getByRole("link", { name: "book.xlsx", exact: true }).click();
        await page.getByRole("grid", { name: "Cells of Budget" }).waitFor();
        await page.locator("#cell-1-1").filter({ hasText: /\S/ }).waitFor();
        expect(await axe(page), named("preview")).toEqual([]);
        expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(width);
        await screenshot(named("preview"), page, { fullPage: false });
        expect(new URL(page.url()).pathname).toBe(`/files/${book.id}`);
      }
    }
  });

  it("gives another site nothing to act with: its requests reach the API without the session", async () => {
    const { page, session } = await signedInPage("bo");
    const target = await seed(session, "book.xlsx", readFileSync(WORKBOOK));
    // A page on another origin that tries to trash the file, as a cross-site attack would.
    const attacker = createServer((_, response) => {
      response.setHeader("content-type", "text/html");
      response.end(`<!doctype html><form method="post" action="${web.server.url}/v1/files/${target.id}/restore"></form>
        <script>
          fetch(${JSON.stringify(`${web.server.url}/v1/files/${target.id}`)}, { method: "DELETE", credentials: "include", mode: "no-cors" })
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
    const session: Session = { email, jwt: await tokenOf(page), at: web.server };
    const { budget, book, legacy } = await seedTheUsualFiles(session, "id,amount\n1,2\n");
    await page.reload();
    await page.getByRole("link", { name: "Budget 2026", exact: true }).click();
    await page.locator("#cell-2-2").filter({ hasText: "2" }).waitFor();
    await page.goto(`${web.server.url}/files/${book.id}`);
    await page.getByRole("grid", { name: "Cells of Budget" }).waitFor();
    await page.locator("#cell-1-1").filter({ hasText: /\S/ }).waitFor();
    await page.goto(`${web.server.url}/files/${legacy.id}`);
    await page.getByText("Cellar cannot show the cells of this file").waitFor();
    expect((await api(`/files/${budget.id}`, session.jwt, { method: "DELETE" })).status).toBe(200);
    for (const [path, ready] of [
      ["/trash", "Trash"],
      ["/account", "Account"],
      ["/files", "Your files"],
    ] as const) {
      await page.goto(`${web.server.url}${path}`);
      await page.getByRole("heading", { name: ready }).waitFor();
      // Not "networkidle": a list page holds the account's event stream open for as long as it shows.
      await page.waitForLoadState("load");
      if (path !== "/account")
        await page
          .getByRole("table")
          .or(page.getByText(/empty|no files/i))
          .first()
          .waitFor();
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
