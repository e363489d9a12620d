import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { mailText } from "./support/mail-text.js";
import { type Session, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** The web app with people on files: sharing by role, Shared with me, what a role allows, leaving, activity. */
describe("the web app, with people", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, tokenOf, api, newEmail, newPage, newSession, seed, requestLink } = web;

  /** Runs one of a file's actions from its menu, as a pointer would. */
  async function fromMenu(page: Page, fileName: string, action: string) {
    await page.getByRole("button", { name: `Actions for ${fileName}`, exact: true }).click();
    await page.getByRole("menuitem", { name: action, exact: true }).click();
  }

  /** Gives `email` a role on a file through the API, without a mail. */
  async function share(owner: Session, fileId: string, email: string, role: string, notify = false) {
    const response = await api(`/files/${fileId}/permissions`, owner.jwt, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, role, notify }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  }

  /** A page signed in as `session`, showing what others share with them. */
  async function sharedWithMe(session: Session, context = {}) {
    const page = await newPage({ session, context });
    await page.goto(`${web.server.url}/files`);
    await page.getByRole("link", { name: "Shared with me" }).click();
    await page.getByRole("heading", { name: "Shared with me" }).waitFor();
    return page;
  }

  it("shares a file by address as editor: the invitee is mailed, signs in, finds it under Shared with me, renames it, and leaves; the activity shows it all", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget.csv", "id,amount\n1,2\n");
    const page = await newPage({ session: owner });
    await page.goto(`${web.server.url}/files`);
    await page.getByRole("link", { name: "budget.csv", exact: true }).waitFor();

    // The owner adds a person who has no account yet, as editor, with a note.
    await fromMenu(page, "budget.csv", "Share");
    const dialog = page.getByRole("dialog", { name: "Share budget.csv" });
    await dialog.getByRole("list", { name: "People with access" }).waitFor();
    expect(await dialog.getByRole("switch").isChecked()).toBe(false);
    expect(await axe(page)).toEqual([]);
    const grace = newEmail("grace");
    const since = web.smtp.mails.length;
    await dialog.getByLabel("Email address").fill(grace);
    await dialog.getByLabel("Role", { exact: true }).selectOption("editor");
    await dialog.getByLabel("Message").fill("Here are the figures for Q3.");
    await dialog.getByRole("button", { name: "Share", exact: true }).click();
    await dialog
      .getByRole("status")
      .filter({ hasText: `Invited ${grace} as editor.` })
      .waitFor();
    const people = dialog.getByRole("list", { name: "People with access" });
    const row = people.getByRole("listitem").filter({ hasText: grace });
    await row.getByText("Invited", { exact: true }).waitFor();
    expect(await row.getByRole("combobox", { name: `Role of ${grace}` }).inputValue()).toBe("editor");
    // The owner first, then the people.
    expect(await people.getByRole("listitem").first().textContent()).toContain(owner.email);
    expect(await axe(page)).toEqual([]);
    await screenshot("people-share-dialog", page, { fullPage: false });
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.waitForFunction("document.activeElement?.getAttribute('aria-label') === 'Actions for budget.csv'");

    // The mail: plain text, the file's link, no token.
    const raw = (await web.smtp.nextMailTo(grace, since)).raw;
    expect(raw).toMatch(/content-type: text\/plain/i);
    expect(raw).not.toMatch(/text\/html/i);
    const mail = await mailText(raw);
    expect(mail).toContain(`${web.server.url}/files/${file.id}`);
    expect(mail).toContain("Here are the figures for Q3.");
    expect(mail).not.toMatch(/token/i);

    // The invitee signs in for the first time and finds the file shared with them.
    const invitee = await newPage();
    await invitee.goto((await requestLink(grace, invitee)).href);
    await invitee.getByRole("button", { name: "Sign in" }).click();
    await invitee.getByRole("heading", { name: "Your files" }).waitFor();
    await invitee.getByRole("link", { name: "Shared with me" }).click();
    await invitee.getByRole("heading", { name: "Shared with me" }).waitFor();
    const shared = invitee.getByRole("row").filter({ hasText: "budget.csv" });
    await shared.getByRole("cell", { name: "Editor", exact: true }).waitFor();
    expect(await invitee.getByRole("checkbox").count()).toBe(0);
    expect(await axe(invitee)).toEqual([]);
    await screenshot("people-shared-with-me", invitee, { fullPage: false });

    // An editor may rename; sharing and the trash stay the owner's.
    await invitee.getByRole("button", { name: "Actions for budget.csv", exact: true }).click();
    const menu = invitee.getByRole("menu", { name: "Actions for budget.csv" });
    expect(await menu.getByRole("menuitem").allTextContents()).toEqual([
      "Open",
      "Download",
      "Rename",
      "People",
      "Activity",
      "Leave",
    ]);
    await menu.getByRole("menuitem", { name: "Rename", exact: true }).click();
    await invitee.getByLabel("New name for budget.csv").fill("Budget Q3");
    await invitee.keyboard.press("Enter");
    await invitee.getByRole("link", { name: "Budget Q3", exact: true }).waitFor();

    // The activity, newest first: the rename, then the share, then the upload.
    await fromMenu(invitee, "Budget Q3", "Activity");
    const activity = invitee.getByRole("dialog", { name: "Activity of Budget Q3" });
    const entries = activity.getByRole("listitem");
    await entries.nth(2).waitFor();
    expect(await entries.allTextContents()).toEqual([
      expect.stringContaining("renamed it to Budget Q3"),
      expect.stringContaining(`shared it with ${grace} as an editor`),
      expect.stringContaining("uploaded it as budget.csv"),
    ]);
    expect(await axe(invitee)).toEqual([]);
    await screenshot("people-activity", invitee, { fullPage: false });
    await activity.getByRole("button", { name: "Done" }).click();
    await activity.waitFor({ state: "detached" });

    // Leaving takes the file off the list, and away from them.
    await fromMenu(invitee, "Budget Q3", "Leave");
    await invitee.getByRole("status").filter({ hasText: "You left Budget Q3." }).waitFor();
    await invitee.getByText("No one has shared a file with you yet.").waitFor();
    expect(await axe(invitee)).toEqual([]);
    const jwt = await tokenOf(invitee);
    expect(await (await api("/files?shared=true", jwt)).json()).toEqual([]);
    expect((await api(`/files/${file.id}`, jwt)).status).toBe(404);

    // The owner's activity says they left.
    await page.reload();
    await fromMenu(page, "Budget Q3", "Activity");
    await page.getByRole("dialog", { name: "Activity of Budget Q3" }).getByText("left it").waitFor();
  });

  it("shows a viewer what they may not do and why: no rename, no sharing, no trash", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget.csv", "id,amount\n1,2\n");
    const viewer = await newSession("vic");
    await share(owner, file.id, viewer.email, "viewer");
    const page = await sharedWithMe(viewer);
    const row = page.getByRole("row").filter({ hasText: "budget.csv" });
    await row.getByRole("cell", { name: "Viewer", exact: true }).waitFor();

    await page.getByRole("button", { name: "Actions for budget.csv", exact: true }).focus();
    await page.keyboard.press("Enter");
    const menu = page.getByRole("menu", { name: "Actions for budget.csv" });
    const rename = menu.getByRole("menuitem", { name: "Rename", exact: true });
    expect(await rename.getAttribute("aria-disabled")).toBe("true");
    expect(await rename.getAttribute("aria-describedby")).not.toBeNull();
    await menu.getByText("Only an editor or the owner can rename it.").waitFor();
    for (const owners of ["Share", "Copy link", "Move to trash"]) {
      expect(await menu.getByRole("menuitem", { name: owners }).count(), owners).toBe(0);
    }
    expect(await axe(page)).toEqual([]);
    await screenshot("people-viewer-menu", page, { fullPage: false });
    // A disabled item does nothing, and the menu stays.
    await rename.focus();
    await page.keyboard.press("Enter");
    await menu.waitFor();
    expect(await page.getByLabel("New name for budget.csv").count()).toBe(0);

    // The people, without a way to change them, and why.
    await menu.getByRole("menuitem", { name: "People", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Share budget.csv" });
    await dialog.getByText("Only the owner can add people").waitFor();
    const people = dialog.getByRole("list", { name: "People with access" });
    await people.getByRole("listitem").filter({ hasText: owner.email }).getByText("Owner").waitFor();
    await people.getByRole("listitem").filter({ hasText: viewer.email }).getByText("Viewer").waitFor();
    expect(await dialog.getByRole("textbox", { name: "Email address" }).count()).toBe(0);
    expect(await dialog.getByRole("switch").isDisabled()).toBe(true);
    expect(await dialog.getByRole("combobox").count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    await screenshot("people-viewer-dialog", page, { fullPage: false });
  });

  it("changes a role and removes a person from the dialog; turns the link on and copies it", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget.csv", "id,amount\n1,2\n");
    const vic = await newSession("vic");
    await share(owner, file.id, vic.email, "viewer");
    const page = await newPage({ session: owner, context: { permissions: ["clipboard-read", "clipboard-write"] } });
    await page.goto(`${web.server.url}/files`);
    await fromMenu(page, "budget.csv", "Share");
    const dialog = page.getByRole("dialog", { name: "Share budget.csv" });
    const role = dialog.getByRole("combobox", { name: `Role of ${vic.email}` });
    await role.selectOption("commenter");
    await dialog
      .getByRole("status")
      .filter({ hasText: `${vic.email} is now a commenter.` })
      .waitFor();
    expect(await (await api("/files?shared=true", vic.jwt)).json()).toMatchObject([{ role: "commenter" }]);

    await dialog.getByRole("switch").check();
    await dialog.getByRole("status").filter({ hasText: "can now open it" }).waitFor();
    expect(await (await api(`/files/${file.id}`, owner.jwt)).json()).toMatchObject({ visibility: "public" });
    await dialog.getByRole("button", { name: "Copy link" }).click();
    await dialog.getByRole("status").filter({ hasText: "Link copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(`${web.server.url}/files/${file.id}`);

    await dialog.getByRole("button", { name: `Remove ${vic.email}` }).click();
    await dialog
      .getByRole("status")
      .filter({ hasText: `${vic.email} no longer has access.` })
      .waitFor();
    await expect
      .poll(() => dialog.getByRole("list", { name: "People with access" }).getByRole("listitem").count(), UNTIL)
      .toBe(1);
    // Focus is not lost with the row: it goes to the address field.
    await expect.poll(() => page.evaluate("document.activeElement?.id"), UNTIL).toBe("share-email");
    expect(await (await api("/files?shared=true", vic.jwt)).json()).toEqual([]);
    await dialog.getByRole("button", { name: "Done" }).click();
    await page.getByText("Shared", { exact: true }).waitFor();
    // Each change is in the activity, in words.
    await fromMenu(page, "budget.csv", "Activity");
    const entries = page.getByRole("dialog", { name: "Activity of budget.csv" }).getByRole("listitem");
    await entries.nth(3).waitFor();
    expect((await entries.allTextContents()).slice(0, 4)).toEqual([
      expect.stringContaining(`removed ${vic.email}`),
      expect.stringContaining("turned its link on"),
      expect.stringContaining(`made ${vic.email} a commenter`),
      expect.stringContaining(`shared it with ${vic.email} as a viewer`),
    ]);
  });

  it("says in the dialog why a person cannot be added: too many people, or too many invitations and when to try again", async () => {
    const owner = await newSession("olga");
    const full = await seed(owner, "full.csv", "a\n1\n");
    for (let n = 0; n < 100; n++) await share(owner, full.id, `p${n}-${full.id}@example.com`, "viewer");
    const page = await newPage({ session: owner });
    await page.goto(`${web.server.url}/files`);
    await fromMenu(page, "full.csv", "Share");
    const dialog = page.getByRole("dialog", { name: "Share full.csv" });
    await dialog.getByLabel("Email address").fill(newEmail("late"));
    await dialog.getByRole("button", { name: "Share", exact: true }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent(), UNTIL).toContain("Remove someone");
    expect(await axe(page)).toEqual([]);
    await page.keyboard.press("Escape");

    // INVITE_RATE_MAX (50) mails an hour; the 51st is refused with when to try again.
    const busy = await seed(owner, "busy.csv", "a\n1\n");
    for (let n = 0; n < 50; n++) await share(owner, busy.id, `m${n}-${busy.id}@example.com`, "viewer", true);
    await page.reload();
    await fromMenu(page, "busy.csv", "Share");
    const again = page.getByRole("dialog", { name: "Share busy.csv" });
    await again.getByLabel("Email address").fill(newEmail("late"));
    await again.getByRole("button", { name: "Share", exact: true }).click();
    await expect
      .poll(() => again.getByRole("alert").textContent(), UNTIL)
      .toMatch(/too many invitations.*Try again (in about \d+ minutes|in \d+ seconds)/);
    expect(await axe(page)).toEqual([]);
    await screenshot("people-share-refused", page, { fullPage: false });
  });

  it("pages the activity with Load more, focusing the first entry it brings", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget.csv", "a\n1\n");
    for (let n = 1; n <= 24; n++) {
      const renamed = await api(`/files/${file.id}`, owner.jwt, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `v${n}.csv` }),
      });
      expect(renamed.status).toBe(200);
    }
    const page = await newPage({ session: owner });
    await page.goto(`${web.server.url}/files`);
    await fromMenu(page, "v24.csv", "Activity");
    const dialog = page.getByRole("dialog", { name: "Activity of v24.csv" });
    await dialog.getByText("renamed it to v24.csv").waitFor();
    expect(await dialog.getByRole("listitem").count()).toBe(20);
    await dialog.getByRole("button", { name: "Load more" }).click();
    await dialog.getByText("uploaded it as budget.csv").waitFor();
    expect(await dialog.getByRole("listitem").count()).toBe(25);
    expect(await dialog.getByRole("button", { name: "Load more" }).count()).toBe(0);
    await expect
      .poll(() => page.evaluate("document.activeElement?.textContent"), UNTIL)
      .toContain("renamed it to v4.csv");
  });

  it("reads in light and dark, at desktop and phone widths, with no accessibility violations on the new screens", async () => {
    const owner = await newSession("olga");
    const file = await seed(owner, "budget.csv", "id,amount\n1,2\n");
    const vic = await newSession("vic");
    await share(owner, file.id, vic.email, "editor");
    await share(owner, file.id, newEmail("pending"), "viewer");
    for (const colorScheme of ["light", "dark"] as const) {
      for (const [width, height, screen] of [
        [1280, 800, "desktop"],
        [390, 844, "phone"],
      ] as const) {
        const named = (what: string) => `people-${screen}-${colorScheme}-${what}`;
        const context = { viewport: { width, height }, colorScheme };
        const page = await sharedWithMe(vic, context);
        await page.getByRole("link", { name: "budget.csv", exact: true }).waitFor();
        const check = async (what: string) => {
          await screenshot(named(what), page, { fullPage: false });
          expect(await axe(page), named(what)).toEqual([]);
          expect(await page.evaluate("document.documentElement.scrollWidth"), named(what)).toBeLessThanOrEqual(width);
        };
        await check("shared");
        await page.getByRole("button", { name: "Actions for budget.csv", exact: true }).click();
        await check("menu");
        await page.getByRole("menuitem", { name: "Activity" }).click();
        await page.getByRole("dialog", { name: "Activity of budget.csv" }).getByRole("listitem").first().waitFor();
        await check("activity");
        await page.keyboard.press("Escape");
        await fromMenu(page, "budget.csv", "People");
        await page.getByRole("dialog").getByText("Invited").waitFor();
        await check("people");

        const own = await newPage({ session: owner, context });
        await own.goto(`${web.server.url}/files`);
        await fromMenu(own, "budget.csv", "Share");
        await own.getByRole("dialog").getByText("Invited").waitFor();
        expect(await axe(own), named("share")).toEqual([]);
        await screenshot(named("share"), own, { fullPage: false });
      }
    }
  });
});
