import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_MS, UNTIL, useWebApp } from "./support/web-app.js";

/** A request the receiver got: its headers and its body's bytes as text. */
interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Whether `header` (`t=<seconds>,v1=<hex>`) is the HMAC-SHA256 of "<t>.<body>" with `secret`, as a receiver checks it. */
function signatureHolds(header: string | undefined, body: string, secret: string): boolean {
  const parts = new Map((header ?? "").split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = parts.get("t");
  const v1 = parts.get("v1");
  if (t === undefined || v1 === undefined) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(v1, "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The account page's webhooks: added from the page, told of a change with a signed POST, turned on again, deleted. */
describe("the web app's webhooks", { timeout: TEST_MS }, () => {
  // The receiver is on 127.0.0.1: a server delivers there only when it allows private addresses.
  const web = useWebApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  const { axe, screenshot, api, seed, signedInPage } = web;
  const received: Received[] = [];
  let receiver: Server;
  let hookUrl: string;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
        response.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/cellar`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("adds a webhook, shows its secret once, delivers a signed change, lists the attempt, turns it on again and deletes it", async () => {
    const { page, session } = await signedInPage("hook", {
      context: { permissions: ["clipboard-read", "clipboard-write"] },
    });
    const file = await seed(session, "budget.csv", "id,amount\n1,2\n");
    await page.getByRole("link", { name: "Account" }).click();
    const hooks = page.getByRole("region", { name: "Webhooks" });
    await hooks.getByText("No webhooks yet.").waitFor();
    await hooks.getByText("fail for 24 hours is turned off, and you are mailed").waitFor();

    // Every kind is chosen at first; All clears them, and a kind chosen alone half-checks All.
    const all = hooks.getByRole("checkbox", { name: "All", exact: true });
    expect(await all.isChecked()).toBe(true);
    for (const kind of ["Files", "Content", "Sharing", "Comments"]) {
      expect(await hooks.getByRole("checkbox", { name: kind, exact: true }).isChecked(), kind).toBe(true);
    }

    // A URL the server refuses whatever it allows (a cloud metadata address): said in the API's words.
    const url = hooks.getByLabel("URL", { exact: true });
    await url.fill("http://169.254.169.254/latest");
    await hooks.getByRole("button", { name: "Add webhook" }).click();
    const refusal = (await (
      await api("/webhooks", session.jwt, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: "http://169.254.169.254/latest", events: ["*"] }),
      })
    ).json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("validation_error");
    expect(refusal.error.message).toMatch(/^url: /);
    await hooks.getByRole("alert").filter({ hasText: refusal.error.message }).waitFor();

    // The receiver's URL, for files and content only.
    await all.uncheck();
    await hooks.getByRole("checkbox", { name: "Files", exact: true }).check();
    await hooks.getByRole("checkbox", { name: "Content", exact: true }).check();
    expect(await all.evaluate((box) => (box as unknown as { indeterminate: boolean }).indeterminate)).toBe(true);
    await url.fill(hookUrl);
    await hooks.getByRole("button", { name: "Add webhook" }).click();
    const made = hooks.getByRole("region", { name: "Webhook made" });
    await made.getByText("it will not be shown again").waitFor();
    const field = made.getByRole("textbox", { name: "The webhook's secret" });
    const secret = await field.inputValue();
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    expect(await field.getAttribute("readonly")).not.toBeNull();
    await expect.poll(() => page.evaluate("document.activeElement?.id"), UNTIL).toBe("new-webhook-value");
    await made.getByText("Cellar-Signature", { exact: true }).waitFor();
    await made.getByRole("button", { name: "Copy", exact: true }).click();
    await made.getByRole("status").filter({ hasText: "Secret copied" }).waitFor();
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(secret);
    expect(await hooks.getByRole("alert").count()).toBe(0);

    // The list: its URL, its kinds, On; never its secret.
    const rows = hooks.getByRole("list", { name: "Your webhooks" }).getByRole("listitem");
    await expect.poll(() => rows.count(), UNTIL).toBe(1);
    const row = rows.first();
    expect(await row.textContent()).toMatch(new RegExp(`${hookUrl}On.*Files, Content · Every file · Added `));
    expect(await row.textContent()).not.toContain(secret);
    const [hook] = (await (await api("/webhooks", session.jwt)).json()) as { id: string; events: string[] }[];
    expect(hook?.events).toEqual(["file", "content"]);

    // A rename through the API: the receiver is told, signed with the secret shown.
    const renamed = await api(`/files/${file.id}`, session.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Budget 2027" }),
    });
    expect(renamed.status, await renamed.clone().text()).toBe(200);
    await expect.poll(() => received.length, UNTIL).toBeGreaterThan(0);
    const [delivery] = received;
    expect(JSON.parse(delivery?.body ?? "{}")).toMatchObject({
      type: "file",
      file_id: file.id,
      data: { name: "Budget 2027" },
    });
    expect(delivery?.headers["user-agent"]).toBe("Cellar-Webhooks/1");
    expect(signatureHolds(delivery?.headers["cellar-signature"] as string, delivery?.body ?? "", secret)).toBe(true);
    expect(signatureHolds(delivery?.headers["cellar-signature"] as string, delivery?.body ?? "", `${secret}x`)).toBe(
      false,
    );
    const eventId = delivery?.headers["cellar-webhook-id"] as string;
    expect(eventId).toMatch(/^evt_/);

    // Last deliveries: the attempt, answered 200 (Refresh until the server has noted it).
    await row.getByText("Last deliveries").click();
    const attempts = row.getByRole("table", { name: /latest deliveries/ }).getByRole("row");
    await expect
      .poll(async () => {
        if ((await attempts.count()) > 1) return attempts.count();
        await row.getByRole("button", { name: "Refresh" }).click();
        return 0;
      }, UNTIL)
      .toBe(2);
    const cells = attempts.nth(1).getByRole("cell");
    expect(await cells.nth(1).textContent()).toBe(`${eventId.slice(0, 12)}…`);
    expect(await cells.nth(2).textContent()).toBe("1");
    expect(await cells.nth(3).textContent()).toBe("200");
    expect(await cells.nth(4).textContent()).toMatch(/^\d[\d,]* ms$/);
    expect(await cells.nth(5).textContent()).toBe("—");
    expect(await axe(page)).toEqual([]);
    await screenshot("account-webhooks", page);
    // Done forgets the secret; the form is where the next webhook is added.
    await made.getByRole("button", { name: "Done" }).click();
    await made.waitFor({ state: "detached" });
    await expect.poll(() => page.evaluate("document.activeElement?.id"), UNTIL).toBe("webhook-url");

    // Turned off (as 24 hours of failures would): Off, and Turn on turns it on again.
    const off = await api(`/webhooks/${hook?.id}`, session.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ active: false }),
    });
    expect(off.status).toBe(200);
    await page.reload();
    await row.getByText("Off", { exact: true }).waitFor();
    expect(await axe(page)).toEqual([]);
    await row.getByRole("button", { name: `Turn on ${hookUrl}` }).click();
    await page.getByRole("status").filter({ hasText: "is on again" }).waitFor();
    await row.getByText("On", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: /^Turn on/ }).count()).toBe(0);
    await expect.poll(() => page.evaluate("document.activeElement?.id"), UNTIL).toBe("webhooks-title");
    expect(((await (await api(`/webhooks/${hook?.id}`, session.jwt)).json()) as { active: boolean }).active).toBe(true);

    // Deleting it, after a confirmation: Cancel keeps it, Delete webhook ends it.
    await row.getByRole("button", { name: `Delete ${hookUrl}` }).click();
    const confirm = page.getByRole("dialog", { name: `Delete the webhook to ${hookUrl}?` });
    await confirm.getByText("Nothing more is sent there").waitFor();
    expect(await axe(page)).toEqual([]);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect((await api(`/webhooks/${hook?.id}`, session.jwt)).status).toBe(200);
    await row.getByRole("button", { name: `Delete ${hookUrl}` }).click();
    await confirm.getByRole("button", { name: "Delete webhook" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Deleted the webhook to ${hookUrl}` })
      .waitFor();
    await hooks.getByText("No webhooks yet.").waitFor();
    expect((await api(`/webhooks/${hook?.id}`, session.jwt)).status).toBe(404);
    expect(await axe(page)).toEqual([]);
  });

  it("says the API's refusal in its words (20 webhooks at most), and reads in dark at a phone's width", async () => {
    const { page, session } = await signedInPage("many", {
      context: { viewport: { width: 390, height: 844 }, colorScheme: "dark" },
    });
    for (let n = 1; n <= 20; n++) {
      const response = await api("/webhooks", session.jwt, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${hookUrl}/${n}`, events: n % 2 === 0 ? ["*"] : ["comment"] }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
    }
    await page.getByRole("link", { name: "Account" }).click();
    const hooks = page.getByRole("region", { name: "Webhooks" });
    const rows = hooks.getByRole("list", { name: "Your webhooks" }).getByRole("listitem");
    await expect.poll(() => rows.count(), UNTIL).toBe(20);
    await hooks.getByLabel("URL", { exact: true }).fill(`${hookUrl}/21`);
    await hooks.getByRole("button", { name: "Add webhook" }).click();
    const refusal = (await (
      await api("/webhooks", session.jwt, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: hookUrl, events: ["*"] }),
      })
    ).json()) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe("limit_reached");
    await hooks.getByRole("alert").filter({ hasText: refusal.error.message }).waitFor();
    expect(await rows.count()).toBe(20);
    // Nothing was sent to any of them: their last deliveries say so.
    const first = rows.first();
    await first.getByText("Last deliveries").click();
    await first.getByText("Nothing sent yet").waitFor();
    expect(await rows.filter({ hasText: "Comments · Every file" }).count()).toBe(10);
    expect(await axe(page)).toEqual([]);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(390);
  });
});
