import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { type Session, TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** The account page: where you are signed in and signing a session out; access tokens made, used and deleted. */
describe("the web app's account page", { timeout: TEST_MS }, () => {
  const web = useWebApp();
  const { axe, screenshot, tokenOf, api, newEmail, newPage, requestLink, seed } = web;

  /** A new "device" (a browser context of its own) signed in as `email` through the mailed link, as a person does. */
  async function signInOnNewDevice(email: string, context = {}): Promise<Page> {
    const page = await newPage({ context });
    await page.goto((await requestLink(email, page)).href);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    return page;
  }

  /** The bearer `token`'s answer to `path` on the server: what a script would get. */
  const withToken = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${web.server.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...init.headers } });

  it("lists where you are signed in, signs another device out, and makes, uses and deletes a read token", async () => {
    const email = newEmail("ada");
    const laptop = await signInOnNewDevice(email, { permissions: ["clipboard-read", "clipboard-write"] });
    const phone = await signInOnNewDevice(email);

    // The account page, from the header.
    await laptop.getByRole("link", { name: "Account" }).click();
    await laptop.getByRole("heading", { name: "Account", exact: true }).waitFor();
    const sessions = laptop.getByRole("list", { name: "Sessions" });
    const sessionRows = sessions.getByRole("listitem");
    await expect.poll(() => sessionRows.count(), UNTIL).toBe(2);
    const thisDevice = sessionRows.filter({ hasText: "This device" });
    expect(await thisDevice.count()).toBe(1);
    // The browser and system in words, not the raw User-Agent; when it signed in and was last used.
    expect(await thisDevice.textContent()).toMatch(/Chrome.* on Linux.*Signed in .*Last used /);
    await laptop.getByText(email, { exact: true }).waitFor();
    expect(await axe(laptop)).toEqual([]);

    // Signing the other device out: the list follows, and the other device is refused from its next request.
    const other = sessionRows.filter({ hasNotText: "This device" });
    await other.getByRole("button", { name: /^Sign out Chrome/ }).click();
    await laptop.getByRole("status").filter({ hasText: "Signed out Chrome" }).waitFor();
    await expect.poll(() => sessionRows.count(), UNTIL).toBe(1);
    expect(await sessionRows.first().textContent()).toContain("This device");
    // Focus is not lost with the row: it goes to the section's heading.
    expect(await laptop.evaluate("document.activeElement?.id")).toBe("sessions-title");
    const phoneJwt = await tokenOf(phone);
    expect((await api("/users/me", phoneJwt)).status).toBe(401);
    await phone.reload();
    await phone.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    await phone.getByRole("status").filter({ hasText: "Your session has ended" }).waitFor();
    expect(await tokenOf(phone)).toBeNull();
    // The laptop's session still holds.
    const laptopJwt = await tokenOf(laptop);
    expect((await api("/users/me", laptopJwt)).status).toBe(200);
    const me: Session = { email, jwt: laptopJwt, at: web.server };
    const file = await seed(me, "budget.csv", "id,amount\n1,2\n");

    // Making a read token, from the keyboard: its value shows once, focused, with how to use it.
    const tokens = laptop.getByRole("region", { name: "Access tokens" });
    await tokens.getByText("No tokens yet.").waitFor();
    await tokens.getByLabel("Name").fill("Nightly import");
    expect(await tokens.getByLabel("Scope").inputValue()).toBe("read");
    await tokens.getByLabel(/Expires after/).fill("30");
    await tokens.getByLabel("Name").press("Enter");
    const made = tokens.getByRole("region", { name: "Token Nightly import made" });
    await made.getByText("it will not be shown again").waitFor();
    const field = made.getByRole("textbox", { name: "The token Nightly import" });
    const token = await field.inputValue();
    expect(token.length).toBeGreaterThan(20);
    expect(await field.getAttribute("readonly")).not.toBeNull();
    expect(await laptop.evaluate("document.activeElement?.id")).toBe("new-token-value");
    await made.getByText(`CELLAR_TOKEN=${token} cellar ls`).waitFor();
    await made.getByText(`Authorization: Bearer ${token}`).waitFor();
    await made.getByRole("button", { name: "Copy", exact: true }).click();
    await made.getByRole("status").filter({ hasText: "Token copied" }).waitFor();
    expect(await laptop.evaluate("navigator.clipboard.readText()")).toBe(token);
    // The list: its name, scope, when it was made and expires, never used; never its value.
    const tokenRows = tokens.getByRole("list", { name: "Your tokens" }).getByRole("listitem");
    await expect.poll(() => tokenRows.count(), UNTIL).toBe(1);
    const row = tokenRows.first();
    expect(await row.textContent()).toMatch(/Nightly import.*Read.*Made .*Expires .*Last used never/);
    expect(await row.textContent()).not.toContain(token);
    expect(await axe(laptop)).toEqual([]);
    await screenshot("account-tokens", laptop);

    // The token acts as its account, for reading only.
    const listed = await withToken(token, "/files");
    expect(listed.status).toBe(200);
    expect(await listed.json()).toMatchObject([{ id: file.id, name: "budget.csv" }]);
    const renamed = await withToken(token, `/files/${file.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "mine.csv" }),
    });
    expect(renamed.status).toBe(403);
    expect(await renamed.json()).toMatchObject({ error: { code: "insufficient_scope" } });

    // Deleting it, after a confirmation: Cancel keeps it, Delete token ends it.
    await row.getByRole("button", { name: "Delete Nightly import" }).click();
    const confirm = laptop.getByRole("dialog", { name: "Delete the token Nightly import?" });
    await confirm.getByText("refused from now on").waitFor();
    expect(await axe(laptop)).toEqual([]);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await withToken(token, "/files")).status).toBe(200);
    await row.getByRole("button", { name: "Delete Nightly import" }).click();
    await confirm.getByRole("button", { name: "Delete token" }).click();
    await laptop.getByRole("status").filter({ hasText: "Deleted the token Nightly import" }).waitFor();
    await tokens.getByText("No tokens yet.").waitFor();
    // The value shown once goes with the token it was.
    expect(await made.count()).toBe(0);
    expect((await withToken(token, "/files")).status).toBe(401);
  });

  it("says the API's refusal in its words (50 tokens at most), and reads in dark at a phone's width", async () => {
    const email = newEmail("bea");
    const page = await signInOnNewDevice(email, { viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    const jwt = await tokenOf(page);
    for (let n = 1; n <= 50; n++) {
      const response = await api("/tokens", jwt, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: `Script ${n}`, scope: n % 2 === 0 ? "write" : "read" }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
    }
    await page.getByRole("link", { name: "Account" }).click();
    const tokens = page.getByRole("region", { name: "Access tokens" });
    const rows = tokens.getByRole("list", { name: "Your tokens" }).getByRole("listitem");
    await expect.poll(() => rows.count(), UNTIL).toBe(50);
    await tokens.getByLabel("Name").fill("One too many");
    await tokens.getByLabel("Scope").selectOption("write");
    await tokens.getByRole("button", { name: "Make token" }).click();
    const refusal = (await (
      await api("/tokens", jwt, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "x", scope: "read" }),
      })
    ).json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("limit_reached");
    await tokens.getByRole("alert").filter({ hasText: refusal.error.message }).waitFor();
    expect(await rows.count()).toBe(50);
    await page.getByRole("list", { name: "Sessions" }).getByText("This device").waitFor();
    expect(await axe(page)).toEqual([]);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
    await screenshot("account-phone-dark", page, { fullPage: false });

    // Signing this device out from the list goes to the sign-in page.
    await page.getByRole("button", { name: "Sign out this device" }).click();
    await page.getByRole("heading", { name: "Sign in to Cellar" }).waitFor();
    await page.getByRole("status").filter({ hasText: "You are signed out." }).waitFor();
    expect((await api("/users/me", jwt)).status).toBe(401);
  });
});
