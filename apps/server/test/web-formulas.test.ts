import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { budgetWorkbook } from "./support/budget-workbook.js";
import {
  type FileJson,
  NOTE_EDIT_BODIES,
  NOTE_FLASHES,
  type Session,
  TEST_MS,
  UNTIL,
  useWebApp,
} from "./support/web-app.js";

/** Three columns under a header: the note column empty. */
const FRUIT = "name,amount,note\nApples,3,\nPears,5,\nPlums,7,\n";

/**
 * A workbook's formulas in the web app's grid, in a real Chromium: what is typed is read
 * as a spreadsheet program reads it, the formula bar, totals that move for everyone on
 * the file, errors, the sheet growing, and undo that keeps formulas.
 */
describe("the web app, computing", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, namedSession, shareFile, newPage, seed, valuesOf } = web;

  /**
   * The file's preview, wide enough to show the totals column, its cells shown; the edits
   * it sends noted (`window.editBodies`), and every cell id that showed the flash class
   * (`window.flashed`), with a mark a reload would wipe out (`window.stayed`).
   */
  async function openPreview(session: Session, file: FileJson, sheet = "Budget 2026") {
    const page = await newPage({ session, context: { viewport: { width: 1800, height: 900 } } });
    await page.addInitScript(NOTE_EDIT_BODIES);
    await page.goto(`${web.server.url}/files/${file.id}`);
    await page.getByRole("grid", { name: `Cells of ${sheet}` }).waitFor();
    await page.locator("#cell-2-1").filter({ hasText: /\S/ }).waitFor();
    await page.evaluate(NOTE_FLASHES);
    return page;
  }

  const cell = (page: Page, row: number, column: number) => page.locator(`#cell-${row}-${column}`);
  /** Waits until a cell shows exactly `text`. */
  const shows = (page: Page, row: number, column: number, text: string) =>
    expect.poll(() => cell(page, row, column).textContent(), UNTIL).toBe(text);
  const formulaBar = (page: Page) => page.getByRole("textbox", { name: /^Contents of [A-Z]+\d+$/ });
  const editStatus = (page: Page, text: string) => page.getByRole("status").filter({ hasText: text }).waitFor();
  const editsSent = async (page: Page) => ((await page.evaluate("window.editBodies")) as unknown[]).length;
  const lastEdit = async (page: Page) => ((await page.evaluate("window.editBodies")) as unknown[]).at(-1);
  const flashed = (page: Page) => page.evaluate("window.flashed") as Promise<string[]>;
  /** Types into the active cell and presses Enter, waiting until it is saved. */
  async function typeInto(page: Page, row: number, column: number, reference: string, text: string) {
    await cell(page, row, column).click();
    await page.keyboard.type(text);
    await page.keyboard.press("Enter");
    await editStatus(page, `Saved ${reference}.`);
  }

  it("a formula and a number typed into the grid move the totals, for another person on the file too, without reloading", async () => {
    const ada = await namedSession("ada", "Ada Lovelace");
    const ben = await namedSession("ben", "Ben Ortiz");
    const file = await seed(ada, "budget-2026.xlsx", await budgetWorkbook());
    await shareFile(ada, file, ben, "viewer");
    const a = await openPreview(ada, file);
    const b = await openPreview(ben, file);
    await shows(a, 3, 15, "$30,000.00");
    await shows(b, 3, 15, "$30,000.00");

    // The year's total is a formula: the formula bar shows it, the cell its result.
    await cell(a, 3, 15).click();
    await expect.poll(() => formulaBar(a).inputValue(), UNTIL).toBe("=SUM(C3:N3)");

    // February's rent, typed as a formula on January's: written as one, computed, the total moving.
    await cell(a, 3, 4).click();
    await a.keyboard.type("=C3+100");
    // The formula bar follows what is typed in the cell.
    expect(await formulaBar(a).inputValue()).toBe("=C3+100");
    await a.keyboard.press("Enter");
    await editStatus(a, "Saved D3.");
    expect(await lastEdit(a)).toEqual({
      range: "'Budget 2026'!D3",
      values: [["=C3+100"]],
      expect: [[2500]],
      input: "user",
    });
    await shows(a, 3, 4, "$2,600.00");
    await shows(a, 3, 15, "$30,100.00");
    expect(await valuesOf(ada, file, "D3", "formula")).toEqual([["=C3+100"]]);

    // January's rent, typed as a number: stored as one, and both the formula and the total read it.
    await typeInto(a, 3, 3, "C3", "3000");
    expect(await valuesOf(ada, file, "C3:D3")).toEqual([[3000, 3100]]);
    await shows(a, 3, 3, "$3,000.00");
    await shows(a, 3, 4, "$3,100.00");
    await shows(a, 3, 15, "$31,100.00");
    // The total row, under the items, too.
    expect(await valuesOf(ada, file, "O48")).toEqual([[64_772]]);
    // Ada's own grid flashes the cells her edit computed again, not the one she wrote.
    await expect.poll(() => flashed(a), UNTIL).toContain("cell-3-15");
    expect(await flashed(a)).toContain("cell-3-4");
    expect(await flashed(a)).not.toContain("cell-3-3");

    // Ben, a viewer, sees the cells move without reloading, each that changed flashing.
    await shows(b, 3, 3, "$3,000.00");
    await shows(b, 3, 4, "$3,100.00");
    await shows(b, 3, 15, "$31,100.00");
    await expect.poll(() => flashed(b), UNTIL).toContain("cell-3-15");
    expect(await flashed(b)).toEqual(expect.arrayContaining(["cell-3-3", "cell-3-4", "cell-3-15"]));
    expect(await b.evaluate("window.stayed === true")).toBe(true);
    // He reads the formula in the bar, and cannot change it.
    await cell(b, 3, 4).click();
    await expect.poll(() => formulaBar(b).inputValue(), UNTIL).toBe("=C3+100");
    expect(await formulaBar(b).getAttribute("readonly")).not.toBeNull();
    expect(await axe(b)).toEqual([]);

    // The README's figure: the formula in the bar, its result and the total it moved.
    await cell(a, 3, 4).click();
    await expect.poll(() => formulaBar(a).inputValue(), UNTIL).toBe("=C3+100");
    expect(await axe(a)).toEqual([]);
    await a.locator(".cell.flash").first().waitFor({ state: "detached" });
    await screenshot("formula-bar", a, { fullPage: false });
  });

  it("writes what is typed into the formula bar on Enter, cancels it on Escape, and grows the sheet from the row and column past its last", async () => {
    const ada = await namedSession("ada", "Ada Lovelace");
    const file = await seed(ada, "budget-2026.xlsx", await budgetWorkbook());
    const page = await openPreview(ada, file);
    const grid = page.getByRole("grid", { name: "Cells of Budget 2026" });
    await shows(page, 3, 15, "$30,000.00");

    // The formula bar: Enter writes it and goes down a cell, as in a spreadsheet program.
    await cell(page, 3, 15).click();
    const bar = page.getByRole("textbox", { name: "Contents of O3" });
    await expect.poll(() => bar.inputValue(), UNTIL).toBe("=SUM(C3:N3)");
    await bar.fill("=SUM(C3:D3)");
    await bar.press("Enter");
    await editStatus(page, "Saved O3.");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-4-15");
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')"), UNTIL).toBe("grid");
    await shows(page, 3, 15, "$5,000.00");
    expect(await valuesOf(ada, file, "O3", "formula")).toEqual([["=SUM(C3:D3)"]]);
    expect(await lastEdit(page)).toMatchObject({ values: [["=SUM(C3:D3)"]], expect: [[30_000]], input: "user" });

    // Escape puts back what the cell holds and sends nothing.
    const sent = await editsSent(page);
    const barO4 = page.getByRole("textbox", { name: "Contents of O4" });
    await expect.poll(() => barO4.inputValue(), UNTIL).toBe("=SUM(C4:N4)");
    await barO4.fill("=1+");
    await barO4.press("Escape");
    expect(await barO4.inputValue()).toBe("=SUM(C4:N4)");
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('role')"), UNTIL).toBe("grid");
    expect(await editsSent(page)).toBe(sent);

    // Stepping through cells reads what the formula bar shows a block at a time, not a request a cell.
    const formulaReads: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).searchParams.get("render") === "formula") formulaReads.push(request.url());
    });
    await cell(page, 5, 3).click();
    for (let column = 4; column <= 11; column++) {
      await page.keyboard.press("ArrowRight");
      await page.getByRole("textbox", { name: `Contents of ${String.fromCharCode(64 + column)}5` }).waitFor();
      await expect.poll(() => formulaBar(page).inputValue(), UNTIL).toBe("57");
    }
    expect(formulaReads.length).toBeLessThanOrEqual(1);

    // Typed as a person types: a percentage, an amount.
    await typeInto(page, 4, 4, "D4", "12.5%");
    await typeInto(page, 4, 5, "E4", "$1,200");
    expect(await valuesOf(ada, file, "D4:E4")).toEqual([[0.125, 1200]]);

    // The row past the last (48): typing there adds row 49.
    expect(await grid.getAttribute("aria-rowcount")).toBe("50");
    await page.getByLabel("Go to cell").fill("A49");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-49-1");
    await page
      .getByRole("status")
      .filter({ hasText: "Row 49 of 48 (past the last: typing adds it), column A" })
      .waitFor();
    await page.keyboard.type("Check");
    await page.keyboard.press("Tab");
    await editStatus(page, "Saved A49.");
    await page.keyboard.type("=O48");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved B49.");
    await expect.poll(() => grid.getAttribute("aria-rowcount"), UNTIL).toBe("51");
    // The grand total: O3 now January and February's rent, O4 with 12.5% and $1,200 for two of its twenty-dollar months.
    const grand = 63_672 - 30_000 + 5_000 - 40 + 1_200.125;
    expect(await valuesOf(ada, file, "A49:B49")).toEqual([["Check", grand]]);
    await shows(page, 49, 2, String(grand));

    // The column past the last (S): typing there adds column T.
    expect(await grid.getAttribute("aria-colcount")).toBe("21");
    await page.getByLabel("Go to cell").fill("T3");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-20");
    await page.keyboard.type("=O3*2");
    await page.keyboard.press("Enter");
    await editStatus(page, "Saved T3.");
    await expect.poll(() => grid.getAttribute("aria-colcount"), UNTIL).toBe("22");
    await shows(page, 3, 20, "10000");
    const sheets = (await (await api(`/files/${file.id}/sheets`, ada.jwt)).json()) as {
      row_count: number;
      column_count: number;
    }[];
    expect(sheets[0]).toMatchObject({ row_count: 49, column_count: 20 });
    expect(await axe(page)).toEqual([]);
  });

  it("shows a formula's error as a spreadsheet program does, and says why a formula was refused; a CSV's text is text", async () => {
    const ada = await namedSession("ada", "Ada Lovelace");
    const book = await seed(ada, "budget-2026.xlsx", await budgetWorkbook());
    const page = await openPreview(ada, book);

    await typeInto(page, 3, 4, "D3", "=C3/0");
    await shows(page, 3, 4, "#DIV/0!");
    // Centred, in the error colour, as spreadsheet programs show errors.
    expect(await cell(page, 3, 4).getAttribute("class")).toMatch(/\balign-center\b/);
    expect(await cell(page, 3, 4).getAttribute("class")).toMatch(/\berror\b/);
    expect(await axe(page)).toEqual([]);

    // A formula that does not parse, or refers to itself, is not written: the reason is said.
    await cell(page, 3, 5).click();
    await page.keyboard.type("=SUM(C3");
    await page.keyboard.press("Enter");
    await page.getByText(/^Your change to E3 was not saved: ./).waitFor();
    await editStatus(page, "Not saved: E3.");
    await cell(page, 3, 3).click();
    await page.keyboard.type("=O3");
    await page.keyboard.press("Enter");
    await page.getByText(/^Your change to C3 was not saved: ./).waitFor();
    expect(await valuesOf(ada, book, "C3:E3")).toEqual([[2500, "#DIV/0!", 2500]]);
    await shows(page, 3, 3, "$2,500.00");

    // A CSV holds no formulas: one typed is refused, saying so; an error's text is only text.
    const csv = await seed(ada, "fruit.csv", FRUIT);
    const sheet = await openPreview(ada, csv, "Sheet1");
    await cell(sheet, 2, 2).click();
    await sheet.keyboard.type("=B3+1");
    await sheet.keyboard.press("Enter");
    await sheet.getByText(/^Your change to B2 was not saved: .*a CSV holds no formulas/).waitFor();
    expect(await valuesOf(ada, csv, "B2")).toEqual([["3"]]);
    await typeInto(sheet, 2, 3, "C2", "#DIV/0!");
    expect(await valuesOf(ada, csv, "C2")).toEqual([["#DIV/0!"]]);
    await shows(sheet, 2, 3, "#DIV/0!");
    expect(await cell(sheet, 2, 3).getAttribute("class")).toContain("align-start");
    expect(await cell(sheet, 2, 3).getAttribute("class")).not.toMatch(/\berror\b/);
  });

  it("undoes a change to formula cells by writing their formulas back, and text back as text", async () => {
    const ada = await namedSession("ada", "Ada Lovelace");
    const file = await seed(ada, "budget-2026.xlsx", await budgetWorkbook());
    // A note that looks like a number, written as text through the API.
    const written = await api(`/files/${file.id}/values`, ada.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ range: "'Budget 2026'!R4", values: [["0042"]] }),
    });
    expect(written.status, await written.clone().text()).toBe(200);
    const page = await openPreview(ada, file);
    await shows(page, 3, 15, "$30,000.00");

    // A number typed over the year's total replaces its formula; Ctrl+Z brings the formula back.
    await typeInto(page, 3, 15, "O3", "5");
    await shows(page, 3, 15, "$5.00");
    expect(await valuesOf(ada, file, "O3", "formula")).toEqual([[5]]);
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to O3.");
    expect(await lastEdit(page)).toEqual({
      range: "'Budget 2026'!O3",
      values: [["=SUM(C3:N3)"]],
      expect: [[5]],
      input: "user",
    });
    expect(await valuesOf(ada, file, "O3", "formula")).toEqual([["=SUM(C3:N3)"]]);
    await shows(page, 3, 15, "$30,000.00");

    // A block pasted over totals, shares and notes, undone: formulas as formulas, text as text.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.evaluate(`navigator.clipboard.writeText("1\\t2\\t3\\t4\\t5\\n6\\t7\\t8\\t9\\t10\\n")`);
    await cell(page, 3, 15).click();
    await page.keyboard.press("ControlOrMeta+v");
    await editStatus(page, "Saved O3:S4.");
    expect(await valuesOf(ada, file, "O3:P4", "formula")).toEqual([
      [1, 2],
      [6, 7],
    ]);
    await page.keyboard.press("ControlOrMeta+z");
    await editStatus(page, "Undid the change to O3:S4.");
    expect(await valuesOf(ada, file, "O3:P4", "formula")).toEqual([
      ["=SUM(C3:N3)", "=O3/$O$48"],
      ["=SUM(C4:N4)", "=O4/$O$48"],
    ]);
    expect(await valuesOf(ada, file, "R3:R4")).toEqual([["Standing order, last working day of the month"], ["0042"]]);
    expect(await valuesOf(ada, file, "S3:S4")).toEqual([[true], [false]]);
    await shows(page, 3, 15, "$30,000.00");
  });
});
