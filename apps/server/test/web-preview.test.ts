import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { budgetCsv, budgetWorkbook } from "./support/budget-workbook.js";
import { LEGACY_SHEET, SCREENSHOTS, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** LibreOffice's workbook of number formats, custom widths, a hidden column and a merged title. */
const FORMATS = fileURLToPath(
  new URL("../../../packages/adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url),
);

/** Excel's pixels for a stored width, with the widest digit of the grid's font (as measured in the page). */
async function expectedPixels(page: Page, width: number): Promise<number> {
  const digit = (await page.evaluate(`(() => {
    const style = getComputedStyle(document.querySelector("[role=grid]"));
    const context = document.createElement("canvas").getContext("2d");
    context.font = [style.fontStyle, style.fontWeight, style.fontSize, style.fontFamily].join(" ");
    return Math.max(..."0123456789".split("").map((digit) => context.measureText(digit).width));
  })()`)) as number;
  return Math.trunc(((256 * width + Math.trunc(128 / digit)) / 256) * digit);
}

async function boxOf(locator: Locator) {
  const box = await locator.boundingBox();
  if (box === null) throw new Error("not shown");
  return box;
}

/** The README's example files. */
const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));

/** A file's cells in the web app's grid, in a real Chromium. */
describe("the web app's preview", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, newSession, signedInPage, seed, seedTheUsualFiles } = web;

  it("has the README's example files as budgetWorkbook and budgetCsv write them: the same cells, formulas and totals", async () => {
    // Written again on request (examples/README.md says how).
    if (process.env.CELLAR_WRITE_EXAMPLES === "1") {
      writeFileSync(join(EXAMPLES, "budget-2026.csv"), budgetCsv());
      writeFileSync(join(EXAMPLES, "budget-2026.xlsx"), await budgetWorkbook());
    }
    expect(readFileSync(join(EXAMPLES, "budget-2026.csv"), "utf8")).toBe(budgetCsv());
    const session = await newSession("bo");
    const example = await seed(session, "budget-2026.xlsx", readFileSync(join(EXAMPLES, "budget-2026.xlsx")));
    const written = await seed(session, "written.xlsx", await budgetWorkbook());
    const cells = async (id: string, render: string) =>
      (await (await api(`/files/${id}/values?range=A1:S48&render=${render}`, session.jwt)).json()) as unknown;
    for (const render of ["raw", "formatted", "formula"]) {
      expect(await cells(example.id, render)).toEqual(await cells(written.id, render));
    }
    const totals = (await (
      await api(`/files/${example.id}/values?range=O48:P48&render=formula`, session.jwt)
    ).json()) as {
      values: unknown[][];
    };
    expect(totals.values).toEqual([["=SUM(O3:O47)", "=SUM(P3:P47)"]]);
  });

  it("previews a CSV in a grid: letters, row numbers, a frozen header row, keyboard moves", async () => {
    const { page, session } = await signedInPage("bo");
    await seedTheUsualFiles(session);
    await page.reload();
    await page.getByRole("link", { name: "Budget 2026", exact: true }).click();
    await page.getByRole("heading", { name: "Budget 2026" }).waitFor();
    const grid = page.getByRole("grid", { name: "Cells of Sheet1" });
    await grid.waitFor();
    // The letters' row, then 400,001, then the empty row its owner types into to add one.
    expect(await grid.getAttribute("aria-rowcount")).toBe("400003");
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

  it("brings row 1 and the rows under it back with Ctrl+Home, after Ctrl+End and after Go to the last row", async () => {
    const { page, session } = await signedInPage("bo");
    const { budget } = await seedTheUsualFiles(session);
    await page.goto(`${web.server.url}/files/${budget.id}`);
    const grid = page.getByRole("grid", { name: "Cells of Sheet1" });
    await page.locator("#cell-2-1").filter({ hasText: "1" }).waitFor();
    const rowTwo = await boxOf(page.locator("#cell-2-1"));
    await grid.focus();
    await page.keyboard.press("Control+End");
    await page.locator("#cell-400001-2").filter({ hasText: "2" }).waitFor();
    await expect.poll(() => page.locator("#cell-2-1").count(), UNTIL).toBe(0);
    await page.keyboard.press("Control+Home");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-1-1");
    await page.locator("#cell-2-1").filter({ hasText: "1" }).waitFor();
    expect(await boxOf(page.locator("#cell-2-1"))).toEqual(rowTwo);
    expect(await grid.evaluate((element) => [element.scrollTop, element.scrollLeft])).toEqual([0, 0]);

    await page.getByLabel("Go to cell").fill("B400001");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.locator("#cell-400001-2").filter({ hasText: "2" }).waitFor();
    await expect.poll(() => page.locator("#cell-2-1").count(), UNTIL).toBe(0);
    await page.keyboard.press("Control+Home");
    await page.locator("#cell-2-1").filter({ hasText: "1" }).waitFor();
    expect(await boxOf(page.locator("#cell-2-1"))).toEqual(rowTwo);
    await expect.poll(() => page.getByRole("status").last().textContent(), UNTIL).toBe("Row 1 of 400,001, column A");
  });

  it("previews a workbook's sheets as tabs, dates as their format writes them; an unreadable file says so and still downloads", async () => {
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
    const shown = (await (
      await api(`/files/${book.id}/values?range=Budget!A1:H40&types=true&render=formatted`, session.jwt)
    ).json()) as {
      values: (string | null)[][];
      types: (string | null)[][];
    };
    // Each number and date cell shows what the workbook's format writes, lined up right.
    const formatted = shown.types.flatMap((row, r) =>
      row.flatMap((type, c) => (type === "date" || type === "number" ? [[r, c]] : [])),
    );
    expect(formatted.length).toBeGreaterThan(0);
    for (const [r = 0, c = 0] of formatted) {
      const cell = page.locator(`#cell-${r + 1}-${c + 1}`);
      await cell.filter({ hasText: /\S/ }).waitFor();
      expect(await cell.textContent()).toBe(shown.values[r]?.[c]);
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
    // Said for a few seconds: looked for before the download is read.
    await page.getByRole("status").filter({ hasText: "Download started: legacy.sheet" }).waitFor();
    expect(readFileSync((await (await saved).path()) as string, "latin1")).toBe(LEGACY_SHEET);

    // No such file: said so.
    await page.goto(`${web.server.url}/files/file_aaaaaaaaaaaaaaaaaaaaaaaa`);
    await page.getByRole("heading", { name: "No such file" }).waitFor();
  });

  it("jumps to row 999,999 of a 1,000,000-row sheet and shows its cells with a screenful of rows in the page", async () => {
    const { page, session } = await signedInPage("bo");
    const context = page.context();
    let csv = "n,parity\n";
    for (let n = 1; n < 1_000_000; n++) csv += `${n},${n % 2 === 0 ? "even" : "odd"}\n`;
    const stored = await seed(session, "million.csv", csv);
    expect((await api(`/files/${stored.id}/sheets`, session.jwt)).status).toBe(200);

    await page.goto(`${web.server.url}/files/${stored.id}`);
    const grid = page.getByRole("grid", { name: "Cells of Sheet1" });
    await grid.waitFor();
    expect(await grid.getAttribute("aria-rowcount")).toBe("1000002");
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
    // The wheel moves on, to the last row: from 100 rows above it, out of view.
    await page.getByLabel("Go to cell").fill("A999900");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.locator("#cell-999900-1").filter({ hasText: "999899" }).waitFor();
    expect(await page.locator("#cell-1000000-1").count()).toBe(0);
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
    await page.goto(`${web.server.url}/files/${stored.id}`);
    await page.getByRole("grid", { name: "Cells of Sheet1" }).waitFor();
    for (const [reference, row, column] of [
      ["Z1", 1, 26],
      ["Y200", 200, 25],
      ["A401", 401, 1],
      ["Z201", 201, 26], // each out of view of the one before
      ["AD450", 450, 30],
    ] as const) {
      await page.getByLabel("Go to cell").fill(reference);
      await page.getByRole("button", { name: "Go", exact: true }).click();
      await page
        .locator(`#cell-${row}-${column}`)
        .filter({ hasText: `r${row}c${column}` })
        .waitFor();
    }
    // Nothing past the sheet, but for the column after it its owner types into: Go to refuses it and says the sheet's extent.
    await page.getByLabel("Go to cell").fill("AF1");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.getByText("AF1 is not a cell of this sheet (A1 to AD450).").waitFor();
  });
  it("shows a LibreOffice workbook as its author laid it out: formatted numbers, its column widths, a merged title, a hidden column", async () => {
    const { page, session } = await signedInPage("bo");
    const stored = await seed(session, "formats.xlsx", readFileSync(FORMATS));
    const [sheet] = (await (await api(`/files/${stored.id}/sheets`, session.jwt)).json()) as {
      column_widths: (number | null)[];
      merged: string[];
    }[];
    expect(sheet?.merged).toEqual(["A1:C1"]);
    await page.goto(`${web.server.url}/files/${stored.id}`);
    await page.getByRole("grid", { name: "Cells of Formats" }).waitFor();
    // Numbers, percents and dates as the workbook's formats write them, lined up right.
    await page.locator("#cell-3-2").filter({ hasText: "$1,234.50" }).waitFor();
    expect(await page.locator("#cell-3-3").textContent()).toBe("-$1,234.50");
    expect(await page.locator("#cell-4-2").textContent()).toBe("12.34%");
    expect(await page.locator("#cell-9-2").textContent()).toBe("31-Jan-26");
    expect(await page.locator("#cell-3-2").getAttribute("class")).toContain("align-end");
    // Each column as wide as the workbook says, in Excel's pixels for the grid's font.
    const letter = (name: string) => page.getByRole("columnheader", { name, exact: true });
    for (const [index, name] of ["A", "B", "C"].entries()) {
      const width = sheet?.column_widths[index] as number;
      expect((await boxOf(letter(name))).width, `column ${name}`).toBeCloseTo(await expectedPixels(page, width), 0);
    }
    expect((await boxOf(letter("A"))).width).toBeGreaterThan((await boxOf(letter("B"))).width);
    // The hidden column takes no room; its neighbour starts where it would have.
    expect((await boxOf(letter("D"))).width).toBe(0);
    expect((await boxOf(letter("E"))).x).toBeCloseTo((await boxOf(letter("D"))).x, 0);
    // The merged title is one cell over A to C.
    const title = page.locator("#cell-1-1");
    await title.filter({ hasText: "Number formats as the author sees them" }).waitFor();
    const spanned =
      (await boxOf(letter("A"))).width + (await boxOf(letter("B"))).width + (await boxOf(letter("C"))).width;
    expect((await boxOf(title)).width).toBeCloseTo(spanned, 0);
    expect(await title.getAttribute("aria-colspan")).toBe("3");
    expect(await page.locator("#cell-1-2").count()).toBe(0);
    // The arrows pass over the hidden column.
    const grid = page.getByRole("grid", { name: "Cells of Formats" });
    await page.getByLabel("Go to cell").fill("C3");
    await page.getByRole("button", { name: "Go", exact: true }).click();
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-5");
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-3-3");
    expect(await axe(page)).toEqual([]);
    await screenshot("preview-formats", page);
  });

  it("keeps a workbook's frozen rows and column in place, runs text over empty cells, and spans merged cells", async () => {
    const { page, session } = await signedInPage("bo");
    const workbook = await budgetWorkbook();
    // Kept beside the screenshots, for comparing with a spreadsheet program's rendering.
    writeFileSync(join(SCREENSHOTS, "budget-2026.xlsx"), workbook);
    const stored = await seed(session, "budget-2026.xlsx", workbook);
    await page.goto(`${web.server.url}/files/${stored.id}`);
    const grid = page.getByRole("grid", { name: "Cells of Budget 2026" });
    await grid.waitFor();
    await page.locator("#cell-3-3").filter({ hasText: "$2,500.00" }).waitFor();
    expect(await page.locator("#cell-3-16").count()).toBe(0); // off to the right for now
    await screenshot("preview-budget", page, { fullPage: false });
    // The grid's top left, for docs/api.md to set beside a spreadsheet program's rendering.
    const shown = await boxOf(grid);
    await page.screenshot({
      path: join(SCREENSHOTS, "workbook-cellar.png"),
      clip: { x: shown.x, y: shown.y, width: Math.min(shown.width, 900), height: shown.height },
    });

    // A remark in B runs on over the empty months, all of it shown; a note is cut at the next value.
    const remark = page.locator("#cell-12-2");
    await remark.filter({ hasText: "Moved to the savings account" }).waitFor();
    const remarkBox = await boxOf(remark);
    expect(remarkBox.width).toBeGreaterThan(
      (await boxOf(page.getByRole("columnheader", { name: "B", exact: true }))).width,
    );
    expect(await remark.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
    expect(await remark.getAttribute("title")).toBeNull();
    // The title's box spans A to F: the frozen column and the five after it.
    const title = page.locator("#cell-1-1");
    await title.filter({ hasText: "Household budget for 2026" }).waitFor();
    const letterA = await boxOf(page.getByRole("columnheader", { name: "A", exact: true }));
    const letterF = await boxOf(page.getByRole("columnheader", { name: "F", exact: true }));
    expect((await boxOf(title)).x).toBeCloseTo(letterA.x, 0);
    expect((await boxOf(title)).width).toBeCloseTo(letterF.x + letterF.width - letterA.x, 0);

    // Scrolled down and to the right, the two frozen rows and the frozen column stay.
    const corner = await boxOf(page.locator("#cell-2-1"));
    const january = await boxOf(page.locator("#cell-2-3"));
    const rowTwenty = await boxOf(page.locator("#cell-20-1"));
    await grid.evaluate((element) => element.scrollBy({ top: 300 }));
    await expect.poll(() => page.locator("#cell-3-1").count(), UNTIL).toBe(0);
    expect(await boxOf(page.locator("#cell-2-1"))).toEqual(corner);
    expect(await boxOf(page.locator("#cell-2-3"))).toEqual(january);
    expect((await boxOf(page.locator("#cell-20-1"))).y).toBeLessThan(rowTwenty.y);
    await grid.evaluate((element) => element.scrollBy({ left: 2000 }));
    await expect.poll(() => page.locator("#cell-2-3").count(), UNTIL).toBe(0);
    expect(await boxOf(page.locator("#cell-2-1"))).toEqual(corner);
    expect((await boxOf(page.locator("#cell-20-1"))).x).toBe(rowTwenty.x);
    await page.locator("#cell-20-16").filter({ hasText: "%" }).waitFor();
    // A merged area whose top row has scrolled away is still one box, down to its last row.
    const tall = page.locator("#cell-13-18");
    await tall.filter({ hasText: "Paid from the joint account" }).waitFor();
    expect(await tall.getAttribute("aria-rowspan")).toBe("18");
    const tallBox = await boxOf(tall);
    expect(tallBox.y).toBeLessThanOrEqual(corner.y + corner.height); // its top is under the frozen rows
    expect(tallBox.y + tallBox.height).toBeCloseTo((await boxOf(page.locator("#cell-31-18"))).y, 0);
    expect(await page.locator("#cell-20-18").count()).toBe(0);
    await screenshot("preview-budget-scrolled", page, { fullPage: false });

    // Ctrl+End goes to the last cell, Ctrl+Home back to A1 with the sheet at its top left.
    await grid.focus();
    await page.keyboard.press("Control+End");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-48-19");
    await page.keyboard.press("Control+Home");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-1-1");
    await page.locator("#cell-3-3").filter({ hasText: "$2,500.00" }).waitFor();
    expect(await boxOf(page.locator("#cell-2-3"))).toEqual(january);
    // The merged title is one stop for the arrows: right of it is G1, under it A2.
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-1-7");
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-1-1");
    await expect
      .poll(() => page.getByRole("status").last().textContent(), UNTIL)
      .toBe("Row 1 of 48, column A, merged A1:F1");
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => grid.getAttribute("aria-activedescendant"), UNTIL).toBe("cell-2-1");
    expect(await axe(page)).toEqual([]);

    // Dark, and on a phone: still readable, still clean for axe.
    await page.emulateMedia({ colorScheme: "dark" });
    await page.locator("#cell-3-3").filter({ hasText: "$2,500.00" }).waitFor();
    expect(await axe(page)).toEqual([]);
    await screenshot("preview-budget-dark", page, { fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    // Laid out again for the phone's width (its resize observer redraws the grid).
    await expect
      .poll(
        () =>
          page.evaluate(
            "(() => { const g = document.querySelector('[role=grid]'); return g.firstElementChild.style.width === g.clientWidth + 'px'; })()",
          ),
        UNTIL,
      )
      .toBe(true);
    await page.locator("#cell-3-1").filter({ hasText: "Rent" }).waitFor();
    expect(await axe(page)).toEqual([]);
    await screenshot("preview-budget-phone", page, { fullPage: false });
  });
});
