import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ExcelJS from "exceljs";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { budgetWorkbook } from "./support/budget-workbook.js";
import { type FileJson, NOTE_EDIT_BODIES, type Session, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** Three columns under a header: the note column empty. */
const FRUIT = "name,amount,note\nApples,3,\nPears,5,\nPlums,7,\n";

/** A table as LibreOffice Calc 7.4 puts it on the clipboard (text/html), committed beside the web app's tests. */
const LIBREOFFICE_HTML = fileURLToPath(new URL("../../web/test/fixtures/libreoffice-clipboard.html", import.meta.url));

/** A workbook of its sheets, each given as rows of values (`{ formula }` for a formula), as exceljs writes it. */
async function workbookOf(sheets: Record<string, unknown[][]>): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) {
    const sheet = book.addWorksheet(name);
    for (const row of rows) sheet.addRow(row);
  }
  return Buffer.from(await book.xlsx.writeBuffer());
}

async function boxOf(locator: Locator) {
  const box = await locator.boundingBox();
  if (box === null) throw new Error("not shown");
  return box;
}

/**
 * The grid as people work in it, in a real Chromium: selecting with the mouse and the
 * keyboard, copying and pasting (a LibreOffice table too), undo and redo with conflicts
 * named, fill, the rows and columns menu watched from a second browser, Find across
 * sheets, the status bar's figures, and the sheet tabs.
 */
describe("the web app, working in the grid", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, newSession, namedSession, shareFile, newPage, seed, valuesOf } = web;

  /** The file's preview on `page` (a new one by default), its cells shown; the edits it sends noted. */
  async function openPreview(
    session: Session,
    file: FileJson,
    options: { sheet?: string; page?: Page; clipboard?: boolean; wide?: boolean } = {},
  ) {
    const page =
      options.page ??
      (await newPage({
        session,
        context: {
          ...(options.clipboard ? { permissions: ["clipboard-read", "clipboard-write"] } : {}),
          ...(options.wide ? { viewport: { width: 1800, height: 1000 } } : {}),
        },
      }));
    if (options.page === undefined) await page.addInitScript(NOTE_EDIT_BODIES);
    await page.goto(`${web.server.url}/files/${file.id}`);
    const grid = page.getByRole("grid", { name: `Cells of ${options.sheet ?? "Sheet1"}` });
    await grid.waitFor();
    await page.locator("#cell-1-1").filter({ hasText: /\S/ }).waitFor();
    await page.evaluate("window.stayed = true");
    return { page, grid };
  }

  const cell = (page: Page, row: number, column: number) => page.locator(`#cell-${row}-${column}`);
  const shows = (page: Page, row: number, column: number, text: string) =>
    expect.poll(() => cell(page, row, column).textContent(), UNTIL).toBe(text);
  const editStatus = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).first().waitFor();
  const selectionName = (page: Page) => page.locator(".grid-status .selection-name");
  const figures = (page: Page) => page.locator(".grid-status .selection-stats");
  const editsSent = async (page: Page) => ((await page.evaluate("window.editBodies")) as unknown[]).length;
  const lastEdit = async (page: Page) => ((await page.evaluate("window.editBodies")) as unknown[]).at(-1);
  const rowHeader = (page: Page, row: number) => page.locator(`[data-header-row="${row}"]`);
  /** The clipboard as the page reads it: its text, and its HTML. */
  const clipboardText = (page: Page) => page.evaluate("navigator.clipboard.readText()") as Promise<string>;
  const clipboardHtml = (page: Page) =>
    page.evaluate(`(async () => {
      const [item] = await navigator.clipboard.read();
      return item.types.includes("text/html") ? await (await item.getType("text/html")).text() : "";
    })()`) as Promise<string>;

  /** Drags the pointer from one element's middle to another's, in steps, as a person does. */
  async function drag(page: Page, from: Locator, to: Locator) {
    const start = await boxOf(from);
    const end = await boxOf(to);
    await page.mouse.move(start.x + start.width / 2, start.y + start.height / 2);
    await page.mouse.down();
    await page.mouse.move(end.x + end.width / 2, end.y + end.height / 2, { steps: 8 });
    await page.mouse.up();
  }

  it("selects by dragging and with Shift+arrows, copies as text and HTML, pastes elsewhere and into a second file", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const other = await seed(owner, "other.csv", "a,b\n1,2\n");
    const { page, grid } = await openPreview(owner, file, { clipboard: true });

    // A drag from A2 to B3 selects the block; the active cell stays where it began.
    await drag(page, cell(page, 2, 1), cell(page, 3, 2));
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("A2:B3");
    expect(await grid.getAttribute("aria-activedescendant")).toBe("cell-2-1");
    expect(await cell(page, 3, 2).getAttribute("aria-selected")).toBe("true");
    expect(await cell(page, 3, 2).getAttribute("class")).toContain("selected");
    expect(await cell(page, 4, 2).getAttribute("aria-selected")).toBe("false");
    await page.locator(".selection-box").waitFor();

    // Shift+arrows make the same block from the keyboard.
    await cell(page, 2, 1).click();
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("A2");
    await page.keyboard.press("Shift+ArrowDown");
    await page.keyboard.press("Shift+ArrowRight");
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("A2:B3");

    // Ctrl+C: the cells as shown, tab-separated, and as an HTML table.
    await page.keyboard.press("ControlOrMeta+c");
    await page.locator(".grid-status").getByText("Copied A2:B3.").waitFor();
    expect(await clipboardText(page)).toBe("Apples\t3\r\nPears\t5\r\n");
    const html = await clipboardHtml(page);
    expect(html).toContain("<td>Apples</td><td>3</td>");
    expect(html).toContain("<td>Pears</td><td>5</td>");

    // Pasted into the empty column past the last: one edit, the sheet grows.
    const before = await editsSent(page);
    await cell(page, 2, 4).click();
    await page.keyboard.press("ControlOrMeta+v");
    await editStatus(page, "Saved D2:E3.");
    expect(await editsSent(page)).toBe(before + 1);
    // The grid knows the sheet grew (two columns, and the empty one after them).
    await expect.poll(() => grid.getAttribute("aria-colcount"), UNTIL).toBe("7");
    expect(await lastEdit(page)).toMatchObject({ range: "'Sheet1'!D2", input: "user" });
    expect(await valuesOf(owner, file, "D2:E3")).toEqual([
      ["Apples", "3"],
      ["Pears", "5"],
    ]);
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("D2:E3");

    // Ctrl+A, then Ctrl+X: the data (A1 to E4) cut as it shows, the cells emptied in one edit.
    await cell(page, 1, 1).click();
    await page.keyboard.press("ControlOrMeta+a");
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("A1:E4");
    await page.keyboard.press("ControlOrMeta+x");
    await page.locator(".grid-status").getByText("Cut A1:E4.").waitFor();
    await editStatus(page, "Saved A1:E4.");
    expect((await valuesOf(owner, file, "A1:E4")).flat().every((value) => value === null)).toBe(true);
    expect((await clipboardText(page)).split("\r\n")[1]).toBe("Apples\t3\t\tApples\t3");

    // Into a second file, onto a selection of several cells: from its top-left cell.
    await openPreview(owner, other, { page });
    await drag(page, cell(page, 2, 2), cell(page, 3, 3));
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("B2:C3");
    await page.keyboard.press("ControlOrMeta+v");
    await editStatus(page, "Saved B2:F5.");
    expect(await valuesOf(owner, other, "A1:F3")).toEqual([
      ["a", "b", null, null, null, null],
      ["1", "name", "amount", "note", null, null],
      [null, "Apples", "3", null, "Apples", "3"],
    ]);
  });

  it("pastes a table copied from LibreOffice as HTML: each cell as typed, one request", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "pasted.xlsx", await workbookOf({ Sheet1: [["Before"]] }));
    const { page } = await openPreview(owner, file);
    await cell(page, 1, 1).click();
    const html = readFileSync(LIBREOFFICE_HTML, "utf8");
    // As a paste of LibreOffice's copy arrives: its HTML beside text the grid must not prefer.
    await page.evaluate(`(() => {
      const data = new DataTransfer();
      data.setData("text/html", ${JSON.stringify(html)});
      data.setData("text/plain", "not\\tthis");
      const event = new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true });
      document.querySelector("[role=grid]").dispatchEvent(event);
    })()`);
    await editStatus(page, "Saved A1:E6.");
    expect(await editsSent(page)).toBe(1);
    expect(await lastEdit(page)).toMatchObject({ range: "'Sheet1'!A1", input: "user" });
    expect(await valuesOf(owner, file, "A1:E6")).toEqual([
      ["Item", "Amount", "Date", "Share", "Note"],
      ["Apples & pears", 1234.5, "2026-01-31", 0.125, null],
      ["00123", 2469, "31.01.2026", 3.2, '<b> "quoted"'],
      ["Merged", null, true, "line one\nline two", "a b"],
      ["Tall", -1234.5, "APPLES & PEARS", 0.33, 1234567.891],
      [null, "Ünïcödé ✓", null, "indented", "=not a formula"],
    ]);
    await shows(page, 2, 1, "Apples & pears");
    await shows(page, 6, 5, "=not a formula");
  });

  it("undoes and redoes with Ctrl+Z, Ctrl+Y and Ctrl+Shift+Z; an undo after someone else changed the cell is refused, naming them", async () => {
    const owner = await namedSession("olga", "Olga Owner");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const edith = await namedSession("edith", "Edith Editor");
    await shareFile(owner, file, edith, "editor");
    const { page } = await openPreview(owner, file);

    await cell(page, 2, 2).click();
    await page.keyboard.type("42");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved B2.");
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to B2.");
    expect(await valuesOf(owner, file, "B2")).toEqual([["3"]]);
    await page.keyboard.press("ControlOrMeta+y");
    await editStatus(page, "Redid the change to B2.");
    expect(await valuesOf(owner, file, "B2")).toEqual([["42"]]);
    await shows(page, 2, 2, "42");
    expect(await lastEdit(page)).toEqual({ range: "'Sheet1'!B2", values: [["42"]], expect: [["3"]], input: "user" });
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to B2.");
    await page.keyboard.press("ControlOrMeta+Shift+z");
    await editStatus(page, "Redid the change to B2.");
    expect(await valuesOf(owner, file, "B2")).toEqual([["42"]]);
    // Nothing more to redo: nothing is sent.
    const sent = await editsSent(page);
    await page.keyboard.press("ControlOrMeta+y");
    await editStatus(page, "Nothing to redo.");
    expect(await editsSent(page)).toBe(sent);

    // Edith, in her own browser, changes B2; Olga's grid shows it without a reload.
    const { page: other } = await openPreview(edith, file);
    await cell(other, 2, 2).click();
    await other.keyboard.type("77");
    await other.keyboard.press("Enter");
    await editStatus(other, "Saved B2.");
    await shows(page, 2, 2, "77");

    // Olga's undo would write over Edith's 77: refused, naming Edith; nothing is written.
    await page.keyboard.press("ControlOrMeta+z");
    const dialog = page.getByRole("dialog", { name: "B2 was changed by someone else" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("Edith Editor");
    expect(await dialog.textContent()).toContain(edith.email);
    await editStatus(page, "Not undone: Edith Editor changed B2.");
    expect(await valuesOf(owner, file, "B2")).toEqual([["77"]]);
    expect(await axe(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Discard mine" }).click();
    await dialog.waitFor({ state: "detached" });
    await editStatus(page, "Not undone: their change was kept.");
    expect(await valuesOf(owner, file, "B2")).toEqual([["77"]]);
    expect(await page.evaluate("window.stayed")).toBe(true);
  });

  it("fills a formula down with Ctrl+D and by dragging the fill handle, its references moved", async () => {
    const owner = await newSession("olga");
    const book = await workbookOf({
      Sheet1: [
        [1, { formula: "A1*2" }, { formula: "SUM($A$1:A1)" }],
        [2, null, null],
        [3, null, null],
        [4, null, null],
      ],
    });
    const file = await seed(owner, "fill.xlsx", book);
    const { page } = await openPreview(owner, file);

    // B1:B4 selected (a click, a Shift+click): Ctrl+D copies B1's formula down, one edit.
    await cell(page, 1, 2).click();
    await cell(page, 4, 2).click({ modifiers: ["Shift"] });
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("B1:B4");
    await page.keyboard.press("ControlOrMeta+d");
    await editStatus(page, "Saved B2:B4.");
    expect(await lastEdit(page)).toMatchObject({
      range: "'Sheet1'!B2",
      values: [["=A2*2"], ["=A3*2"], ["=A4*2"]],
      input: "user",
    });
    expect(await valuesOf(owner, file, "B1:B4", "formula")).toEqual([["=A1*2"], ["=A2*2"], ["=A3*2"], ["=A4*2"]]);
    expect(await valuesOf(owner, file, "B1:B4")).toEqual([[2], [4], [6], [8]]);
    await shows(page, 4, 2, "8");

    // C1's fill handle, dragged to C4: the running total's anchored start stays, its end moves.
    await cell(page, 1, 3).click();
    const handle = page.locator(".fill-handle");
    await handle.waitFor();
    await drag(page, handle, cell(page, 4, 3));
    await editStatus(page, "Saved C2:C4.");
    expect(await valuesOf(owner, file, "C1:C4", "formula")).toEqual([
      ["=SUM($A$1:A1)"],
      ["=SUM($A$1:A2)"],
      ["=SUM($A$1:A3)"],
      ["=SUM($A$1:A4)"],
    ]);
    expect(await valuesOf(owner, file, "C1:C4")).toEqual([[1], [3], [6], [10]]);
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("C1:C4");
    await shows(page, 4, 3, "10");
  });

  it("inserts and deletes rows from the rows menu while a second browser watches the cells move", async () => {
    const ana = await namedSession("ana", "Ana Lopez");
    const ben = await namedSession("ben", "Ben Ortiz");
    const file = await seed(ana, "fruit.csv", FRUIT);
    await shareFile(ana, file, ben, "viewer");
    const { page: a } = await openPreview(ana, file);
    const { page: b } = await openPreview(ben, file);
    await shows(b, 3, 1, "Pears");

    // A right-click on row 3's number: its menu, as a menu of items.
    await rowHeader(a, 3).click({ button: "right" });
    const menu = a.getByRole("menu", { name: "Row 3" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual([
      "Insert row above",
      "Insert row below",
      "Delete row 3",
    ]);
    expect(await a.evaluate("document.activeElement?.textContent")).toBe("Insert row above");
    expect(await axe(a)).toEqual([]);
    await menu.getByRole("menuitem", { name: "Insert row above" }).click();
    await editStatus(a, "Inserted a row at row 3.");
    expect(await valuesOf(ana, file, "A1:A5")).toEqual([["name"], ["Apples"], [null], ["Pears"], ["Plums"]]);
    // Ben's grid follows without a reload.
    await shows(b, 4, 1, "Pears");
    await shows(b, 3, 1, "");
    await shows(a, 4, 1, "Pears");

    // From the keyboard: rows 3 and 4 (Shift+Space, Shift+Down), Shift+F10, the arrows, Enter.
    await cell(a, 3, 1).click();
    await a.keyboard.press("Shift+Space");
    await a.keyboard.press("Shift+ArrowDown");
    await expect.poll(() => selectionName(a).textContent(), UNTIL).toBe("3:4");
    await a.keyboard.press("Shift+F10");
    const rows = a.getByRole("menu", { name: "Rows 3 to 4" });
    await rows.waitFor();
    await a.keyboard.press("ArrowUp");
    expect(await a.evaluate("document.activeElement?.textContent")).toBe("Delete rows 3 to 4");
    await a.keyboard.press("Enter");
    await editStatus(a, "Deleted rows 3 to 4.");
    expect(await valuesOf(ana, file, "A1:A3")).toEqual([["name"], ["Apples"], ["Plums"]]);
    await shows(b, 3, 1, "Plums");
    // Focus is back on the grid; the menu is gone.
    expect(await a.evaluate("document.activeElement?.getAttribute('role')")).toBe("grid");
    expect(await a.getByRole("menu").count()).toBe(0);
    expect(await b.evaluate("window.stayed")).toBe(true);
    // Ben, a viewer, has no such menu.
    await rowHeader(b, 2).click({ button: "right" });
    expect(await b.getByRole("menu").count()).toBe(0);
  });

  it("undoes a row inserted from the rows menu with Ctrl+Z, the total's range with it, and redoes it with Ctrl+Y", async () => {
    const owner = await newSession("uma");
    const book = await workbookOf({
      Budget: [
        ["Item", "Cost"],
        ["Rent", 500],
        ["Food", 200],
        ["Total", { formula: "SUM(B2:B3)" }],
      ],
    });
    const file = await seed(owner, "budget.xlsx", book);
    const { page } = await openPreview(owner, file, { sheet: "Budget" });
    await shows(page, 3, 1, "Food");
    // A cell edited first: Ctrl+Z goes back through the row, then the edit.
    await cell(page, 2, 1).click();
    await page.keyboard.type("Rent!");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved A2.");

    await rowHeader(page, 3).click({ button: "right" });
    const menu = page.getByRole("menu", { name: "Row 3" });
    await menu.waitFor();
    await menu.getByRole("menuitem", { name: "Insert row above" }).click();
    await editStatus(page, "Inserted a row at row 3.");
    expect(await valuesOf(owner, file, "B5", "formula")).toEqual([["=SUM(B2:B4)"]]);
    await shows(page, 4, 1, "Food");

    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid: inserted a row at row 3.");
    expect(await valuesOf(owner, file, "A1:A4")).toEqual([["Item"], ["Rent!"], ["Food"], ["Total"]]);
    expect(await valuesOf(owner, file, "B4", "formula")).toEqual([["=SUM(B2:B3)"]]);
    await shows(page, 3, 1, "Food");

    await page.keyboard.press("ControlOrMeta+y");
    await editStatus(page, "Redid: inserted a row at row 3.");
    expect(await valuesOf(owner, file, "A3:A5")).toEqual([[null], ["Food"], ["Total"]]);
    expect(await valuesOf(owner, file, "B5", "formula")).toEqual([["=SUM(B2:B4)"]]);
    await shows(page, 4, 1, "Food");

    // Twice back: the row, then the cell edit before it, in the places it had.
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid: inserted a row at row 3.");
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to A2.");
    expect(await valuesOf(owner, file, "A1:A4")).toEqual([["Item"], ["Rent"], ["Food"], ["Total"]]);
    expect(await valuesOf(owner, file, "B4", "formula")).toEqual([["=SUM(B2:B3)"]]);
  });

  it("finds text across a workbook's sheets: the count, next and previous, the sheet switched; Escape gives the grid focus", async () => {
    const owner = await newSession("olga");
    const book = await workbookOf({
      North: [
        ["Fruit", "Count"],
        ["apple", 3],
        ["pear", 5],
        ["crab apple", 1],
      ],
      South: [
        ["Fruit", "Count"],
        ["plum", 2],
        ["Apple pie", 9],
      ],
    });
    const file = await seed(owner, "orchards.xlsx", book);
    const { page, grid } = await openPreview(owner, file, { sheet: "North" });
    await cell(page, 1, 1).click();
    await page.keyboard.press("ControlOrMeta+f");
    const panel = page.getByRole("search", { name: "Find in this file" });
    const input = panel.getByRole("textbox", { name: "Find" });
    await input.waitFor();
    await expect.poll(() => page.evaluate("document.activeElement?.id"), UNTIL).toBe("find-text");
    await input.fill("apple");
    const count = panel.locator(".find-count");
    await expect.poll(() => count.textContent(), UNTIL).toBe("3 matches");
    await page.keyboard.press("Enter");
    await expect.poll(() => count.textContent(), UNTIL).toBe("1 of 3");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-2-1");
    await page.keyboard.press("Enter");
    await expect.poll(() => count.textContent(), UNTIL).toBe("2 of 3");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-4-1");
    expect(await axe(page)).toEqual([]);

    // The third is on the other sheet: its tab is chosen, its cell selected.
    await panel.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => count.textContent(), UNTIL).toBe("3 of 3");
    const south = page.getByRole("grid", { name: "Cells of South" });
    await south.waitFor();
    await expect.poll(() => south.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-1");
    expect(await page.getByRole("tab", { name: "South" }).getAttribute("aria-selected")).toBe("true");
    // Round the end, and back with Shift+Enter.
    await input.press("Enter");
    await expect.poll(() => count.textContent(), UNTIL).toBe("1 of 3");
    await page.getByRole("grid", { name: "Cells of North" }).waitFor();
    await input.press("Shift+Enter");
    await expect.poll(() => count.textContent(), UNTIL).toBe("3 of 3");
    await south.waitFor();
    await input.fill("no such thing");
    await expect.poll(() => count.textContent(), UNTIL).toBe("No matches");

    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    await expect
      .poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')"), UNTIL)
      .toBe("Cells of South");
  });

  it("adds up a selection in the status bar; adds, renames, moves and deletes sheets from the tabs", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget-2026.xlsx", await budgetWorkbook());
    const { page } = await openPreview(owner, file, { sheet: "Budget 2026", wide: true });
    await shows(page, 3, 3, "$2,500.00");

    // C3:N5: three items' twelve months, added up from their raw values.
    await drag(page, cell(page, 3, 3), cell(page, 5, 14));
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("C3:N5");
    await expect.poll(() => figures(page).textContent(), UNTIL).toBe("Sum 30,924 · Average 859 · Count 36");
    expect(await figures(page).getAttribute("aria-live")).toBe("polite");
    expect(await axe(page)).toEqual([]);
    await screenshot("grid-selection-sum", page, { fullPage: false });
    // Text counts, and does not add up; one cell shows no figures.
    await drag(page, cell(page, 3, 1), cell(page, 4, 3));
    await expect.poll(() => figures(page).textContent(), UNTIL).toBe("Sum 2,520 · Average 1,260 · Count 6");
    await cell(page, 3, 3).click();
    await expect.poll(() => figures(page).textContent(), UNTIL).toBe("");

    const tabs = page.getByRole("tablist", { name: "Sheets" }).getByRole("tab");
    const sheetNames = async () =>
      ((await (await api(`/files/${file.id}/sheets`, owner.jwt)).json()) as { name: string }[]).map(
        (sheet) => sheet.name,
      );

    // +: a new sheet, shown at once, its grid ready to type into.
    await page.getByRole("button", { name: "Add a sheet" }).click();
    await expect.poll(() => tabs.allTextContents(), UNTIL).toEqual(["Budget 2026", "Sheet2"]);
    await page.getByRole("grid", { name: "Cells of Sheet2" }).waitFor();
    expect(await sheetNames()).toEqual(["Budget 2026", "Sheet2"]);

    // A double-click renames it in place; Enter saves.
    await tabs.nth(1).dblclick();
    const rename = page.getByRole("textbox", { name: "New name for the sheet Sheet2" });
    await rename.fill("Notes");
    await rename.press("Enter");
    await expect.poll(() => tabs.allTextContents(), UNTIL).toEqual(["Budget 2026", "Notes"]);
    expect(await sheetNames()).toEqual(["Budget 2026", "Notes"]);

    // Moved left from its menu, opened from the keyboard.
    await tabs.nth(1).focus();
    await page.keyboard.press("Shift+F10");
    const menu = page.getByRole("menu", { name: "Sheet Notes" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual(["Rename", "Move left", "Delete"]);
    await menu.getByRole("menuitem", { name: "Move left" }).click();
    await expect.poll(() => tabs.allTextContents(), UNTIL).toEqual(["Notes", "Budget 2026"]);
    expect(await sheetNames()).toEqual(["Notes", "Budget 2026"]);

    // Dragged back after the other.
    await tabs.first().dragTo(tabs.nth(1));
    await expect.poll(() => tabs.allTextContents(), UNTIL).toEqual(["Budget 2026", "Notes"]);
    expect(await sheetNames()).toEqual(["Budget 2026", "Notes"]);

    // Deleted after a confirmation; Cancel keeps it.
    const notes = page.getByRole("tab", { name: "Notes" });
    await notes.click({ button: "right" });
    await page.getByRole("menu", { name: "Sheet Notes" }).getByRole("menuitem", { name: "Delete" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete the sheet Notes?" });
    await confirm.waitFor();
    expect(await axe(page)).toEqual([]);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await sheetNames()).toEqual(["Budget 2026", "Notes"]);
    await notes.click({ button: "right" });
    await page.getByRole("menu", { name: "Sheet Notes" }).getByRole("menuitem", { name: "Delete" }).click();
    await confirm.getByRole("button", { name: "Delete sheet" }).click();
    await expect.poll(() => tabs.allTextContents(), UNTIL).toEqual(["Budget 2026"]);
    expect(await sheetNames()).toEqual(["Budget 2026"]);
    await page.getByRole("grid", { name: "Cells of Budget 2026" }).waitFor();
    expect(await page.evaluate("window.stayed")).toBe(true);
  });

  it("has no accessibility violations with a selection, the rows and columns menu open, and Find open", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "fruit.csv", FRUIT);
    const { page } = await openPreview(owner, file);
    await drag(page, cell(page, 2, 1), cell(page, 4, 2));
    await expect.poll(() => selectionName(page).textContent(), UNTIL).toBe("A2:B4");
    await expect.poll(() => figures(page).textContent(), UNTIL).toBe("Sum 15 · Average 5 · Count 6");
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press("Shift+F10");
    const menu = page.getByRole("menu", { name: "Rows and columns of A2:B4" });
    await menu.waitFor();
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual([
      "Insert 3 rows above",
      "Insert 3 rows below",
      "Insert 2 columns left",
      "Insert 2 columns right",
      "Delete rows 2 to 4",
      "Delete columns A to B",
    ]);
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => page.evaluate("document.activeElement?.textContent"), UNTIL).toBe("Insert 3 rows below");
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')"), UNTIL).toBe("grid");
    await page.keyboard.press("ControlOrMeta+f");
    await page.getByRole("search", { name: "Find in this file" }).waitFor();
    expect(await axe(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await axe(page)).toEqual([]);
  });
});
