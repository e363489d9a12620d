import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { inDatabase } from "../support/cellar-http.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("mail-faults");

/** A port of 127.0.0.1 nothing listens on: taken from the OS, then let go. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("when the SMTP server cannot be reached", () => {
  it("answers POST /v1/sessions 503 mail_unavailable at once, and leaves no usable token behind", async () => {
    const dataDir = scratch.dataDir();
    const server = await scratch.startProcess({
      DATA_DIR: dataDir,
      SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
    });

    for (const email of ["alice@example.com", "bob@example.com", "alice@example.com"]) {
      const startedAt = Date.now();
      const response = await fetch(`${server.url}/v1/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      // A refused connection fails at once: far below the mailer's 5 s connection timeout.
      expect(Date.now() - startedAt).toBeLessThan(2000);
      expect(response.status).toBe(503);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(response.headers.get("x-ratelimit-limit")).toBeTruthy();
      expect(await response.json()).toEqual({
        error: { code: "mail_unavailable", message: "The sign-in mail could not be sent; try again later." },
      });
    }

    // The links that could not be sent were withdrawn: no token is stored, not even
    // its hash, so none of them could ever be verified.
    expect(inDatabase(dataDir, (db) => db.prepare("SELECT count(*) FROM magic_links").pluck().get())).toBe(0);
    expect(inDatabase(dataDir, (db) => db.prepare("SELECT count(*) FROM users").pluck().get())).toBe(0);
    // With SMTP_URL set the mail went nowhere else either: no outbox, no link in the log.
    expect(existsSync(join(dataDir, "outbox"))).toBe(false);
    expect(server.output()).not.toMatch(/token=/);

    // The server itself is fine.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 30_000);
});
