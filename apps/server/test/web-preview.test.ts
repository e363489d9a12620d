import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LEGACY_SHEET, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** A file's cells in the web app's grid, in a real Chromium. */
describe("the web app's preview", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, api, signedInPage, seed, seedTheUsualFiles } = web;

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
    await page.goto(`${web.server.url}/files/${stored.id}`);
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
});
