import { createHash } from "node:crypto";
import type { FastifyPluginAsync } from "fastify";

export interface CellarSignInPageOptions {
  /**
   * Where the page POSTs the token: a path on this server (the page's CSP allows no
   * other origin). Default `/v1/sessions/verify`.
   */
  readonly verifyPath?: string;
}

const STYLE = `
:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0; display: grid; place-items: center; min-height: 100vh; }
main { max-width: 32rem; padding: 2rem; }
button { font: inherit; padding: 0.5rem 1.25rem; cursor: pointer; }
button:disabled { cursor: default; }
textarea { width: 100%; box-sizing: border-box; font-family: ui-monospace, monospace; font-size: 0.85rem; }
[hidden] { display: none !important; }
`;

/** The page's script: reads the token from the address bar and POSTs it only when asked. */
function pageScript(verifyPath: string): string {
  // JSON is valid JavaScript; escaping "<" keeps "</script>" out of the element.
  const path = JSON.stringify(verifyPath).replace(/</g, "\\u003c");
  return `
"use strict";
(() => {
  const verifyPath = ${path};
  const token = new URLSearchParams(window.location.search).get("token");
  const button = document.getElementById("sign-in");
  const status = document.getElementById("status");
  const result = document.getElementById("result");
  const jwt = document.getElementById("jwt");
  const copy = document.getElementById("copy");
  if (!token) {
    button.disabled = true;
    status.textContent = "This link has no sign-in token. Ask for a new link.";
    return;
  }
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Signing in…";
    try {
      const response = await fetch(verifyPath, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ token }),
        credentials: "omit",
        cache: "no-store",
      });
      const body = await response.json().catch(() => null);
      if (response.ok && body && typeof body.jwt === "string") {
        window.history.replaceState(null, "", window.location.pathname);
        status.textContent = "Signed in as " + body.user.email + ".";
        jwt.value = body.jwt;
        result.hidden = false;
        button.hidden = true;
        return;
      }
      const message = body && body.error && typeof body.error.message === "string" ? body.error.message : "";
      status.textContent = message || "Signing in failed (HTTP " + response.status + ").";
      // A used or expired link stays used; a busy server may answer next time.
      button.disabled = response.status === 401;
    } catch {
      status.textContent = "The server could not be reached. Try again.";
      button.disabled = false;
    }
  });
  copy.addEventListener("click", async () => {
    jwt.select();
    try {
      await navigator.clipboard.writeText(jwt.value);
      copy.textContent = "Copied";
    } catch {
      copy.textContent = "Select and copy it";
    }
  });
})();
`;
}

function pageHtml(script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>Sign in to Cellar</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>Sign in to Cellar</h1>
<p>Press the button to finish signing in. The link works once.</p>
<p><button id="sign-in" type="button">Sign in</button></p>
<p id="status" role="status" aria-live="polite"></p>
<div id="result" hidden>
<p><label for="jwt">Your access token: send it as <code>Authorization: Bearer &lt;token&gt;</code>.</label></p>
<textarea id="jwt" rows="6" readonly></textarea>
<p><button id="copy" type="button">Copy</button></p>
</div>
</main>
<script>${script}</script>
</body>
</html>
`;
}

function sha256Source(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

/**
 * `GET /sign-in?token=…`: the page a sign-in link opens. Opening it changes nothing
 * (mail scanners open links); the token is spent only when the person presses "Sign
 * in", which POSTs it to the verify endpoint. The token is read by the page's script
 * from the address bar and never written into the HTML.
 */
export const cellarSignInPage: FastifyPluginAsync<CellarSignInPageOptions> = async (app, options) => {
  const verifyPath = options.verifyPath ?? "/v1/sessions/verify";
  if (!verifyPath.startsWith("/") || verifyPath.startsWith("//")) {
    throw new TypeError(`verifyPath must be a path on this server, like /v1/sessions/verify, not ${verifyPath}`);
  }
  const script = pageScript(verifyPath);
  const html = pageHtml(script);
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src ${sha256Source(script)}`,
    `style-src ${sha256Source(STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

  app.get("/sign-in", { schema: { hide: true } }, async (_request, reply) => {
    reply.headers({
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "content-security-policy": contentSecurityPolicy,
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    });
    return html;
  });
};
