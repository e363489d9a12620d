import { readFileSync } from "node:fs";
import type { Page, Request } from "playwright-core";
import { describe, expect, it } from "vitest";
import {
  type FileJson,
  NOTE_EDIT_BODIES,
  type Session,
  TEST_MS,
  UNTIL,
  useWebApp,
  WORKBOOK,
} from "./support/web-app.js";

/** Three columns under a header: the note column empty, so text and emptiness both show. */
const FRUIT = "name,amount,note\nApples,3,\nPears,5,\nPlums,7,\n";

/** Cells changed in the web app's grid, its history of versions, and what a viewer cannot do, in a real Chromium. */
describe("the web app, changing cells", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, newSession, namedSession, shareFile, newPage, seed } = web;

  /** The cells of a range, raw, as the API reads them now. */
  async function valuesOf(session: Session, file: FileJson, range: string): Promise<unknown[][]> {
    const response = await api(`/files/${file.id}/values?range=${encodeURIComponent(range)}`, session.jwt);
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { values: unknown[][] }).values;
  }

  /** Writes cells through the API, as another person working at the same time would. */
  async function writeThroughApi(session: Session, file: FileJson, range: string, values: unknown[][]) {
    const response = await api(`/files/${file.id}/values`, session.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ range, values }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  }

  /** The file's preview, its cells shown; the cell edits the page sends, counted as they go. */
  async function openPreview(session: Session, file: FileJson, context = {}, sheet = "Sheet1") {
    const page = await newPage({ session, context });
    await page.addInitScript(NOTE_EDIT_BODIES);
    const edits: Request[] = [];
    page.on("request", (request) => {
      if (request.method() === "PATCH" && new URL(request.url()).pathname.endsWith("/values")) edits.push(request);
    });
    await page.goto(`${web.server.url}/files/${file.id}`);
    const grid = page.getByRole("grid", { name: `Cells of ${sheet}` });
    await grid.waitFor();
    await page.locator("#cell-2-1").filter({ hasText: /\S/ }).waitFor();
    /** The body of the `index`th edit sent (from the end, when negative). */
    const body = async (index: number) => ((await page.evaluate("window.editBodies")) as unknown[]).at(index);
    return { page, grid, edits, body };
  }

  /** Makes a change elsewhere, and waits for the page to read the cells again, as the file's stream tells it to. */
  async function changedUnder(page: Page, change: () => Promise<void>) {
    const reread = page.waitForResponse(
      (response) => response.request().method() === "GET" && new URL(response.url()).pathname.endsWith("/values"),
    );
    await change();
    await reread;
  }

  /** Puts text on the clipboard, as a spreadsheet program's Copy does. */
  const copy = (page: Page, text: string) => page.evaluate(`navigator.clipboard.writeText(${JSON.stringify(text)})`);
  const cell = (page: Page, row: number, column: number) => page.locator(`#cell-${row}-${column}`);
  const editor = (page: Page) => page.getByRole("textbox", { name: /^Edit [A-Z]+\d+$/ });
  /** The status of the last edit, beside "Go to cell". */
  const editStatus = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();

  it("edits a cell by typing and Enter, by Tab, by a double-click; Escape cancels, Delete empties, Ctrl+Z undoes", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const { page, grid, edits, body } = await openPreview(owner, file);

    // Typing on the active cell edits it; Enter saves and moves down.
    await cell(page, 2, 2).click();
    await page.keyboard.type("42");
    await editor(page).waitFor();
    expect(await editor(page).inputValue()).toBe("42");
    expect(await axe(page)).toEqual([]);
    await screenshot("edits-typing", page, { fullPage: false });
    await page.keyboard.press("Enter");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-2");
    await editStatus(page, "Saved B2.");
    expect(await cell(page, 2, 2).textContent()).toBe("42");
    expect(await valuesOf(owner, file, "B2")).toEqual([["42"]]);
    expect(edits).toHaveLength(1);
    expect(await body(0)).toEqual({ range: "'Sheet1'!B2", values: [["42"]], expect: [["3"]], input: "user" });

    // Tab saves and moves right.
    await page.keyboard.type("50");
    await page.keyboard.press("Tab");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-3");
    await editStatus(page, "Saved B3.");
    expect(await valuesOf(owner, file, "B3")).toEqual([["50"]]);
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')"), UNTIL).toBe("grid");

    // A double-click edits from the cell's own text.
    await cell(page, 4, 1).dblclick();
    expect(await editor(page).inputValue()).toBe("Plums");
    await page.keyboard.type(" (red)");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved A4.");
    expect(await valuesOf(owner, file, "A4")).toEqual([["Plums (red)"]]);
    await cell(page, 4, 1).filter({ hasText: "Plums (red)" }).waitFor();
    expect(edits).toHaveLength(3);

    // Escape cancels: nothing is sent, the cell shows what it held.
    await cell(page, 2, 1).click();
    await page.keyboard.type("Nope");
    expect(await editor(page).inputValue()).toBe("Nope");
    await page.keyboard.press("Escape");
    await editor(page).waitFor({ state: "detached" });
    expect(await cell(page, 2, 1).textContent()).toBe("Apples");
    expect(await grid.getAttribute("aria-activedescendant")).toBe("cell-2-1");
    // Enter then Escape, unchanged, sends nothing either.
    await page.keyboard.press("Enter");
    expect(await editor(page).inputValue()).toBe("Apples");
    await page.keyboard.press("Escape");
    await editor(page).waitFor({ state: "detached" });
    expect(edits).toHaveLength(3);

    // Delete empties a cell; Ctrl+Z brings back what it held, one change at a time.
    await cell(page, 3, 1).click();
    await page.keyboard.press("Delete");
    await editStatus(page, "Saved A3.");
    expect(await valuesOf(owner, file, "A3")).toEqual([[null]]);
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to A3.");
    expect(await valuesOf(owner, file, "A3")).toEqual([["Pears"]]);
    await cell(page, 3, 1).filter({ hasText: "Pears" }).waitFor();
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to A4.");
    expect(await valuesOf(owner, file, "A4")).toEqual([["Plums"]]);
    expect(await body(-1)).toEqual({
      range: "'Sheet1'!A4",
      values: [["Plums"]],
      expect: [["Plums (red)"]],
      // A CSV's cells go back as the text they were, whatever it looks like.
      input: "raw",
    });
    expect(edits).toHaveLength(6);
    expect(await valuesOf(owner, file, "A1:C4")).toEqual([
      ["name", "amount", "note"],
      ["Apples", "42", null],
      ["Pears", "50", null],
      ["Plums", "7", null],
    ]);
    expect(await axe(page)).toEqual([]);
  });

  it("pastes a block copied from a spreadsheet program as one request, growing the sheet, and Ctrl+Z takes it back", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const { page, grid, edits, body } = await openPreview(owner, file, {
      permissions: ["clipboard-read", "clipboard-write"],
    });

    // Two rows of three cells, as a spreadsheet program copies them: tabs, line ends, a quoted tab.
    await cell(page, 2, 2).click();
    await copy(page, '10\t"a\tb"\tx\r\n20\t\ty\r\n');
    await page.keyboard.press("ControlOrMeta+v");
    await editStatus(page, "Saved B2:D3.");
    expect(edits).toHaveLength(1);
    expect(await body(0)).toEqual({
      range: "'Sheet1'!B2",
      values: [
        ["10", "a\tb", "x"],
        ["20", null, "y"],
      ],
      expect: [
        ["3", null, null],
        ["5", null, null],
      ],
      input: "user",
    });
    expect(await valuesOf(owner, file, "A1:D3")).toEqual([
      ["name", "amount", "note", null],
      ["Apples", "10", "a\tb", "x"],
      ["Pears", "20", null, "y"],
    ]);
    // The sheet grew a column: the grid shows it, and an empty one after it to type into.
    await cell(page, 2, 4).filter({ hasText: "x" }).waitFor();
    await expect.poll(() => grid.getAttribute("aria-colcount"), UNTIL).toBe("6");

    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to B2:D3.");
    expect(edits).toHaveLength(2);
    expect(await valuesOf(owner, file, "B2:C3")).toEqual([
      ["3", null],
      ["5", null],
    ]);
    // Column D empty again (or gone, if the sheet shrank back).
    expect((await valuesOf(owner, file, "D2:D3")).flat().every((value) => value === null)).toBe(true);
    await cell(page, 2, 2).filter({ hasText: "3" }).waitFor();
    // Nothing more to undo: nothing is sent.
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Nothing to undo.");
    expect(edits).toHaveLength(2);
  });

  it("says who changed a cell meanwhile and to what, and applies yours on request; a cell someone else changed nearby is no conflict", async () => {
    const owner = await namedSession("olga", "Olga Owner");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const edith = await namedSession("edith", "Edith Editor");
    await shareFile(owner, file, edith, "editor");
    const { page, edits, body } = await openPreview(owner, file);

    // Olga is typing in B2 when Edith changes it: the grid reads the cell again under
    // Olga's open editor (the file's stream told it), which keeps her text.
    await cell(page, 2, 2).click();
    expect(await cell(page, 2, 2).textContent()).toBe("3");
    await page.keyboard.type("9");
    await changedUnder(page, () => writeThroughApi(edith, file, "B2", [["77"]]));
    expect(await editor(page).inputValue()).toBe("9");

    // The conflict names her and her value, keeps yours, and sends nothing more until asked.
    await page.keyboard.type("9");
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "B2 was changed by someone else" });
    await dialog.waitFor();
    const said = await dialog.textContent();
    expect(said).toContain("Edith Editor");
    expect(said).toContain(edith.email);
    expect(said).toContain("Now “77”; yours “99”");
    expect(edits).toHaveLength(1);
    expect(await valuesOf(owner, file, "B2")).toEqual([["77"]]);
    expect(await axe(page)).toEqual([]);
    await screenshot("edits-conflict", page, { fullPage: false });
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axe(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });

    await dialog.getByRole("button", { name: "Apply mine" }).click();
    await dialog.waitFor({ state: "detached" });
    await editStatus(page, "Saved B2.");
    expect(edits).toHaveLength(2);
    expect(await body(1)).toMatchObject({ values: [["99"]], expect: [["77"]] });
    expect(await valuesOf(owner, file, "B2")).toEqual([["99"]]);
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')"), UNTIL).toBe("grid");

    // Edith changes C4 while Olga types in B4: B4 saves without a conflict, and her change shows.
    await cell(page, 4, 2).click();
    expect(await cell(page, 4, 3).textContent()).toBe("");
    await page.keyboard.type("6");
    await changedUnder(page, () => writeThroughApi(edith, file, "C4", [["ripe"]]));
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved B4.");
    expect(edits).toHaveLength(3);
    expect(await valuesOf(owner, file, "B4:C4")).toEqual([["6", "ripe"]]);
    await cell(page, 4, 3).filter({ hasText: "ripe" }).waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);

    // Discarding keeps hers: the grid shows it, nothing more is sent.
    await cell(page, 4, 1).click();
    await page.keyboard.type("Sloe");
    await changedUnder(page, () => writeThroughApi(edith, file, "A4", [["Damsons"]]));
    await page.keyboard.type("s");
    await page.keyboard.press("Enter");
    const again = page.getByRole("dialog", { name: "A4 was changed by someone else" });
    await again.getByRole("button", { name: "Discard mine" }).click();
    await again.waitFor({ state: "detached" });
    await cell(page, 4, 1).filter({ hasText: "Damsons" }).waitFor();
    expect(edits).toHaveLength(4);
    await editStatus(page, "Your change was discarded.");
    expect(await valuesOf(owner, file, "A4")).toEqual([["Damsons"]]);
  });

  it("lists the versions with their authors, downloads one, and restores one, saying when the file changed meanwhile", async () => {
    const owner = await namedSession("olga", "Olga Owner");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const edith = await namedSession("edith", "Edith Editor");
    await shareFile(owner, file, edith, "editor");
    const { page, body } = await openPreview(owner, file);
    await cell(page, 2, 2).click();
    await page.keyboard.type("4");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved B2.");
    await writeThroughApi(edith, file, "C2", [["crisp"]]);
    const kept = await api(`/files/${file.id}/versions/1`, owner.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ keep: true }),
    });
    expect(kept.status).toBe(200);

    await page.getByRole("button", { name: "History" }).click();
    const dialog = page.getByRole("dialog", { name: "Versions of fruit.csv" });
    const versions = dialog.getByRole("list", { name: "Versions, newest first" }).getByRole("listitem");
    await versions.nth(2).waitFor();
    const listed = await versions.allTextContents();
    expect(listed).toHaveLength(3);
    expect(listed[0]).toMatch(/^Version 3Current/);
    expect(listed[0]).toContain(`Edith Editor (${edith.email})`);
    expect(listed[1]).toContain(`Olga Owner (${owner.email})`);
    expect(listed[2]).toMatch(/^Version 1Kept/);
    // The current version is not restored; the others are.
    expect(await dialog.getByRole("button", { name: "Restore version 3" }).count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    await screenshot("edits-history", page, { fullPage: false });
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axe(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "light" });

    // Version 1's bytes, as uploaded.
    const saved = page.waitForEvent("download");
    await dialog.getByRole("button", { name: "Download version 1" }).click();
    expect(readFileSync((await (await saved).path()) as string, "utf8")).toBe(FRUIT);

    // Edith changes it again while the list is open: restoring says so, and shows the versions now.
    await writeThroughApi(edith, file, "C3", [["soft"]]);
    await dialog.getByRole("button", { name: "Restore version 1" }).click();
    await dialog.getByRole("alert").filter({ hasText: "The file changed since you opened it" }).waitFor();
    await expect.poll(() => versions.count(), UNTIL).toBe(4);
    expect(await (await api(`/files/${file.id}`, owner.jwt)).json()).toMatchObject({ version: 4 });

    await dialog.getByRole("button", { name: "Restore version 1" }).click();
    await dialog.getByRole("status").filter({ hasText: "Restored version 1" }).waitFor();
    await expect.poll(() => versions.count(), UNTIL).toBe(5);
    expect(await versions.first().textContent()).toMatch(/^Version 5Current/);
    expect(await versions.first().textContent()).toContain("Olga Owner");
    const content = await api(`/files/${file.id}/download`, owner.jwt);
    expect(await content.text()).toBe(FRUIT);
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await axe(page)).toEqual([]);
    await screenshot("edits-history-phone", page, { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Closed, the grid shows the restored cells, and edits go on from them.
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    await cell(page, 2, 2).filter({ hasText: "3" }).waitFor();
    expect(await cell(page, 2, 3).textContent()).toBe("");
    await cell(page, 2, 2).click();
    await page.keyboard.type("8");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved B2.");
    expect(await valuesOf(owner, file, "B2:C2")).toEqual([["8", null]]);
    expect(await body(-1)).toMatchObject({ expect: [["3"]] });
  });

  it("gives a viewer no way to change cells: typing, Enter, Delete, a paste, Ctrl+Z and a double-click send nothing", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const viewer = await newSession("vic");
    await shareFile(owner, file, viewer, "viewer");
    const { page, grid, edits } = await openPreview(viewer, file, {
      permissions: ["clipboard-read", "clipboard-write"],
    });
    await page.getByText("View only").waitFor();
    await cell(page, 2, 2).click();
    await page.keyboard.type("42");
    await page.keyboard.press("Enter");
    await page.keyboard.press("Delete");
    await copy(page, "1\t2\n");
    await page.keyboard.press("ControlOrMeta+v");
    await page.keyboard.press("ControlOrMeta+z");
    await cell(page, 2, 1).dblclick();
    expect(await editor(page).count()).toBe(0);
    // Enter did not edit, the arrows still move.
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-1");
    expect(await cell(page, 2, 2).textContent()).toBe("3");
    expect(edits).toHaveLength(0);
    expect(await valuesOf(owner, file, "A2:B2")).toEqual([["Apples", "3"]]);

    // The history, to read and download, not to restore.
    await writeThroughApi(owner, file, "B3", [["6"]]);
    await page.getByRole("button", { name: "History" }).click();
    const dialog = page.getByRole("dialog", { name: "Versions of fruit.csv" });
    await dialog.getByRole("button", { name: "Download version 1" }).waitFor();
    expect(await dialog.getByRole("button", { name: /^Restore/ }).count()).toBe(0);
    expect(await axe(page)).toEqual([]);
  });

  it("edits a workbook's cell from its stored value, writing a number as a number; says why an edit was not saved", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "book.xlsx", readFileSync(WORKBOOK));
    const { page, edits, body } = await openPreview(owner, file, {}, "Budget");
    const [[stored]] = (await valuesOf(owner, file, "Budget!B2")) as [[unknown]];
    expect(typeof stored).toBe("number");
    // The grid shows B2 as its format writes it; the editor, as it is stored.
    await cell(page, 2, 2).dblclick();
    await expect.poll(() => editor(page).inputValue(), UNTIL).toBe(String(stored));
    await page.keyboard.press("Escape");
    await editor(page).waitFor({ state: "detached" });
    expect(edits).toHaveLength(0);

    await page.keyboard.type("1250");
    await page.keyboard.press("Enter");
    await page
      .getByRole("status")
      .filter({ hasText: /^(Saved|Not saved:) B2\.$/ })
      .waitFor();
    expect(edits).toHaveLength(1);
    // Based on the stored value, not the text the grid showed; the text as typed, for the server to read as a number.
    expect(await body(0)).toEqual({ range: "'Budget'!B2", values: [["1250"]], expect: [[stored]], input: "user" });
    if ((await page.getByText("Saved B2.", { exact: true }).count()) === 1) {
      expect(await valuesOf(owner, file, "Budget!B2")).toEqual([[1250]]);
      const shown = await api(`/files/${file.id}/values?range=Budget!B2&render=formatted`, owner.jwt);
      const formatted = ((await shown.json()) as { values: string[][] }).values[0]?.[0] ?? "";
      await cell(page, 2, 2).filter({ hasText: formatted }).waitFor();
    } else {
      // A server that cannot write workbooks yet (422): its reason, at the foot of the screen; the cell as it was.
      await page.getByText(/^Your change to B2 was not saved: ./).waitFor();
      expect(await valuesOf(owner, file, "Budget!B2")).toEqual([[stored]]);
    }
    expect(await axe(page)).toEqual([]);

    // Offline, an edit is not saved: said with the reason, the cell showing what it held.
    const before = await cell(page, 2, 1).textContent();
    await page.context().setOffline(true);
    try {
      await cell(page, 2, 1).click();
      await page.keyboard.type("Rent");
      await page.keyboard.press("Enter");
      await page.getByText("Your change to A2 was not saved: You are offline.", { exact: false }).waitFor();
      await editStatus(page, "Not saved: A2.");
    } finally {
      await page.context().setOffline(false);
    }
    await cell(page, 2, 1)
      .filter({ hasText: before ?? "" })
      .waitFor();
    expect(await page.getByRole("grid").locator(".local").count()).toBe(0);
    expect(await page.getByText("Some cells could not be loaded").count()).toBe(0);
  });
});
