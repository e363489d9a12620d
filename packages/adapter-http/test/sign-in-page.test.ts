import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildTestApp } from "./support/test-app.js";

describe("GET /sign-in", () => {
  it("serves a self-contained HTML page with a Sign in button", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/sign-in?token=abc" });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(response.body).toContain("<button");
    expect(response.body).toContain("Sign in");
    expect(response.body).toContain('"/v1/sessions/verify"');
    expect(response.body).not.toMatch(/(src|href)=["']?(https?:)?\/\//);
  });

  it("sends no-store, no-referrer, nosniff and a strict Content-Security-Policy", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/sign-in?token=abc" });
    expect(response.headers).toMatchObject({
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-content-type-options": "nosniff",
    });
    const csp = String(response.headers["content-security-policy"]);
    for (const directive of [
      "default-src 'none'",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(directive);
    }
    expect(csp).not.toContain("unsafe-inline");
  });

  it("allows exactly the page's own inline script by its hash", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/sign-in?token=abc" });
    const script = /<script>([\s\S]*)<\/script>/.exec(response.body)?.[1] ?? "";
    const hash = createHash("sha256").update(script).digest("base64");
    expect(String(response.headers["content-security-policy"])).toContain(`script-src 'sha256-${hash}'`);
  });

  it("does not spend the token: it still signs in after the page was opened twice", async () => {
    const t = await buildTestApp();
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const token = t.lastMailedToken();
    await t.inject({ method: "GET", url: `/sign-in?token=${token}` });
    await t.inject({ method: "GET", url: `/sign-in?token=${token}` });
    const verified = await t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token } });
    expect(verified.statusCode).toBe(200);
  });

  it("never writes the token into the page, so markup in it cannot run", async () => {
    const t = await buildTestApp();
    const token = "<script>alert(1)</script>";
    const response = await t.inject({ method: "GET", url: `/sign-in?token=${encodeURIComponent(token)}` });
    expect(response.statusCode).toBe(200);
    expect(response.body).not.toContain(token);
    expect(response.body).not.toContain("alert(1)");
  });
});
