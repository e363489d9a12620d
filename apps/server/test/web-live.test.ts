import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type FileJson, NOTE_FLASHES, type Session, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** Three columns under a header: the note column empty. */
const FRUIT = "name,amount,note\nApples,3,\nPears,5,\nPlums,7,\n";

/**
 * Collaboration, live, in two real Chromium contexts signed in as two people: each sees
 * the other's edits, comments, presence and renames without reloading, and a dropped
 * connection resumes by itself.
 */
describe("the web app, live", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, namedSession, shareFile, newPage, seed } = web;

  /**
   * The file's preview, its cells shown, with a mark that a reload would wipe out
   * (`window.stayed`), and every cell id that showed the flash class noted (`window.flashed`).
   */
  async function openPreview(session: Session, file: FileJson, page?: Page) {
    const on = page ?? (await newPage({ session }));
    await on.goto(`${web.server.url}/files/${file.id}`);
    await on.getByRole("grid", { name: "Cells of Sheet1" }).waitFor();
    await on.locator("#cell-2-1").filter({ hasText: /\S/ }).waitFor();
    await on.evaluate(NOTE_FLASHES);
    return on;
  }

  const cell = (page: Page, row: number, column: number) => page.locator(`#cell-${row}-${column}`);
  const flashed = (page: Page) => page.evaluate("window.flashed") as Promise<string[]>;
  const stayed = (page: Page) => page.evaluate("window.stayed === true");
  const viewers = (page: Page) => page.getByRole("list", { name: "Viewing now" }).getByRole("listitem");

  it("two people on one file see each other's edits, comments, presence and renames without reloading", async () => {
    const ana = await namedSession("ana", "Ana Lopez");
    const ben = await namedSession("ben", "Ben Ortiz");
    const file = await seed(ana, "fruit.csv", FRUIT);
    await shareFile(ana, file, ben, "editor");
    const a = await openPreview(ana, file);
    const b = await openPreview(ben, file);

    // Each sees both, by initials, the full name as the badge's name; themself marked.
    await viewers(a)
      .filter({ has: a.getByText("BO") })
      .waitFor();
    await viewers(b)
      .filter({ has: b.getByText("AL") })
      .waitFor();
    expect(await viewers(a).evaluateAll((items) => items.map((item) => item.getAttribute("aria-label")))).toEqual([
      "Ana Lopez (you)",
      "Ben Ortiz",
    ]);
    expect(await viewers(b).evaluateAll((items) => items.map((item) => item.getAttribute("title")))).toEqual([
      "Ana Lopez",
      "Ben Ortiz (you)",
    ]);

    // Ana has an edit in progress on C3 when Ben changes B2 and C3: her editor stays, with her text.
    await cell(a, 3, 3).dblclick();
    const editor = a.getByRole("textbox", { name: "Edit C3" });
    await editor.fill("ripe");
    await cell(b, 2, 2).click();
    await b.keyboard.type("99");
    await b.keyboard.press("Enter");
    await b.getByRole("status").filter({ hasText: "Saved B2." }).waitFor();
    await cell(b, 3, 3).click();
    await b.keyboard.type("soft");
    await b.keyboard.press("Enter");
    await b.getByRole("status").filter({ hasText: "Saved C3." }).waitFor();

    // Ana's grid shows Ben's value without a reload, the cell flashing; her editor is untouched.
    await cell(a, 2, 2).filter({ hasText: /^99$/ }).waitFor();
    await expect.poll(() => flashed(a), UNTIL).toContain("cell-2-2");
    expect(await stayed(a)).toBe(true);
    expect(await editor.inputValue()).toBe("ripe");
    // Ben's own edits did not flash in his grid.
    expect(await flashed(b)).toEqual([]);

    // Saving hers over the cell Ben changed meanwhile is a conflict, not a silent overwrite.
    await editor.press("Enter");
    const conflict = a.getByRole("dialog");
    await conflict.getByText("soft").first().waitFor();
    await conflict.getByRole("button", { name: "Discard mine" }).click();
    await conflict.waitFor({ state: "detached" });

    // Ana comments on A3: Ben's grid marks the cell, and pressing it opens the thread.
    await cell(a, 3, 1).click();
    await a.getByRole("button", { name: /^Comments/ }).click();
    const panelA = a.getByRole("complementary", { name: "Comments" });
    await panelA.getByLabel("About cell A3").waitFor();
    expect(await panelA.getByLabel("About cell A3").isChecked()).toBe(true);
    await panelA.getByLabel("New comment").fill("Are these pears right?");
    await panelA.getByRole("button", { name: "Comment", exact: true }).click();
    await panelA.getByRole("article", { name: "On A3" }).getByText("Are these pears right?").waitFor();

    await expect.poll(() => cell(b, 3, 1).getAttribute("class"), UNTIL).toContain("commented");
    expect(await cell(b, 3, 1).getAttribute("aria-description")).toBe("Has comments");
    await cell(b, 3, 1).click();
    const panelB = b.getByRole("complementary", { name: "Comments" });
    const threadB = panelB.getByRole("article", { name: "On A3" });
    await threadB.getByText("Are these pears right?").waitFor();
    await threadB.getByText("Ana Lopez").waitFor();
    await expect.poll(() => b.evaluate("document.activeElement?.id"), UNTIL).toMatch(/^thread-cmt_/);

    // Ben replies; Ana's panel shows it, and Ana resolves the thread: the mark goes in both.
    await threadB.getByRole("textbox", { name: "Reply on A3" }).fill("Yes, counted twice.");
    await threadB.getByRole("button", { name: "Reply" }).click();
    const threadA = panelA.getByRole("article", { name: "On A3" });
    await threadA.getByText("Yes, counted twice.").waitFor();
    expect(await stayed(a)).toBe(true);
    expect(await axe(a)).toEqual([]);
    expect(await axe(b)).toEqual([]);
    await screenshot("live-grid-presence-comments", a, { fullPage: false });
    await a.emulateMedia({ colorScheme: "dark" });
    expect(await axe(a)).toEqual([]);
    await screenshot("live-grid-presence-comments-dark", a, { fullPage: false });
    await a.emulateMedia({ colorScheme: "light" });
    // Ana edits her comment and, as the owner, deletes Ben's reply: Ben's panel follows both.
    const rootA = threadA.getByRole("listitem").first();
    await rootA.getByRole("button", { name: "Edit" }).click();
    await rootA.getByLabel("Edit your comment").fill("Are these pears right? Row 3.");
    await rootA.getByRole("button", { name: "Save" }).click();
    await threadB.getByText("Are these pears right? Row 3.").waitFor();
    const replyA = threadA.getByRole("listitem").filter({ hasText: "Yes, counted twice." });
    await replyA.getByRole("button", { name: "Delete" }).click();
    await threadB.getByText("Yes, counted twice.").waitFor({ state: "detached" });
    // Ben, an editor, may resolve Ana's thread, but neither edit nor delete her comment.
    expect(await threadB.getByRole("button", { name: "Edit" }).count()).toBe(0);
    expect(await threadB.getByRole("button", { name: "Delete" }).count()).toBe(0);
    await threadB.getByRole("button", { name: "Resolve" }).click();
    await threadA.getByText("Resolved").waitFor();
    await expect.poll(() => cell(a, 3, 1).getAttribute("class"), UNTIL).not.toContain("commented");

    // Ana's list of files, open in another tab, follows Ben's rename; so does her preview's title.
    const list = await a.context().newPage();
    await list.goto(`${web.server.url}/files`);
    await list.getByRole("link", { name: "fruit.csv", exact: true }).waitFor();
    await list.evaluate("window.stayed = true");
    const renamed = await api(`/files/${file.id}`, ben.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Fruit, counted" }),
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    await list.getByRole("link", { name: "Fruit, counted", exact: true }).waitFor();
    await a.getByRole("heading", { name: "Fruit, counted", level: 1 }).waitFor();
    expect(await stayed(list)).toBe(true);
    expect(await stayed(a)).toBe(true);

    // A viewer reads the comments but writes none.
    const vic = await namedSession("vic", "Vic Ray");
    await shareFile(ana, file, vic, "viewer");
    const v = await openPreview(vic, file);
    await v.getByRole("button", { name: /^Comments/ }).click();
    const panelV = v.getByRole("complementary", { name: "Comments" });
    await panelV.getByText("Are these pears right?").waitFor();
    expect(await panelV.getByRole("textbox").count()).toBe(0);
    expect(await panelV.getByRole("button", { name: /Reply|Resolve|Reopen|Edit|Delete/ }).count()).toBe(0);
    await viewers(a)
      .filter({ has: a.getByText("VR") })
      .waitFor();
  });

  it("resumes after the server restarts, without reloading: the grid, the comments and the list follow what changed meanwhile", async () => {
    const ana = await namedSession("ana", "Ana Lopez");
    const ben = await namedSession("ben", "Ben Ortiz");
    const file = await seed(ana, "fruit.csv", FRUIT);
    await shareFile(ana, file, ben, "editor");
    const a = await openPreview(ana, file);
    await viewers(a).first().waitFor();
    const list = await a.context().newPage();
    await list.goto(`${web.server.url}/files`);
    await list.getByRole("link", { name: "fruit.csv", exact: true }).waitFor();
    await list.evaluate("window.stayed = true");

    await web.restartServer();

    // Ben writes after the restart; Ana's page connects again by itself and shows it.
    const written = await api(`/files/${file.id}/values`, ben.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ range: "Sheet1!B4", values: [["70"]] }),
    });
    expect(written.status, await written.clone().text()).toBe(200);
    const commented = await api(`/files/${file.id}/comments`, ben.jwt, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "Plums went up.", range: "B4" }),
    });
    expect(commented.status, await commented.clone().text()).toBe(201);
    const renamed = await api(`/files/${file.id}`, ana.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Fruit after the restart" }),
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);

    await cell(a, 4, 2).filter({ hasText: /^70$/ }).waitFor();
    await expect.poll(() => cell(a, 4, 2).getAttribute("class"), UNTIL).toContain("commented");
    // Ben inserts a row above: Ana's grid moves the row down, and the comment's mark with it.
    const inserted = await api(`/files/${file.id}/structure`, ben.jwt, {
      method: "POST",
      headers: { "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ operations: [{ insert: "rows", sheet: "Sheet1", before: 4, count: 1 }] }),
    });
    expect(inserted.status, await inserted.clone().text()).toBe(200);
    await cell(a, 5, 2).filter({ hasText: /^70$/ }).waitFor();
    await expect.poll(() => cell(a, 5, 2).getAttribute("class"), UNTIL).toContain("commented");
    await expect.poll(() => cell(a, 4, 2).getAttribute("class"), UNTIL).not.toContain("commented");
    await a.getByRole("heading", { name: "Fruit after the restart", level: 1 }).waitFor();
    await list.getByRole("link", { name: "Fruit after the restart", exact: true }).waitFor();
    expect(await stayed(a)).toBe(true);
    expect(await stayed(list)).toBe(true);
    expect(await a.getByText("Reconnecting…").count()).toBe(0);

    // Taken off the file, Ben's page says his access ended.
    const b = await openPreview(ben, file);
    const permissions = (await (await api(`/files/${file.id}/permissions`, ana.jwt)).json()) as {
      id: string;
      email: string;
    }[];
    const his = permissions.find((each) => each.email === ben.email);
    expect(his).toBeDefined();
    const removed = await api(`/files/${file.id}/permissions/${his?.id}`, ana.jwt, { method: "DELETE" });
    expect(removed.status, await removed.clone().text()).toBe(204);
    await b.getByRole("alert").filter({ hasText: "You can no longer see this file" }).waitFor();
    expect(await axe(b)).toEqual([]);
  });
});
