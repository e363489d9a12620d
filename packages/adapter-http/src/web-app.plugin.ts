import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync } from "fastify";

export interface CellarWebAppOptions {
  /** The built app: `index.html` and `assets/` (`@cellar/web`'s `WEB_APP_FOLDER`). */
  readonly folder: string;
  /**
   * Whether the app also answers the mailed link, `/sign-in?token=…` (in place of
   * `cellarSignInPage`: register one or the other).
   */
  readonly signIn?: boolean;
}

/** Whether `folder` holds a built app. */
export function webAppIsBuilt(folder: string): boolean {
  return existsSync(join(folder, "index.html"));
}

/**
 * The page's Content-Security-Policy: scripts, styles and requests from this origin
 * only, no inline script or style, no frames, no plugins. The app keeps its session token
 * where only this origin's scripts can read it, and this is what makes that hold.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** The app's service worker, at the top of the app's folder (it saves downloads to disk). */
const DOWNLOAD_WORKER = "download-worker.js";

/** The app's own addresses: each answers index.html, and the app shows what it names. */
export const WEB_APP_ROUTES = ["/", "/files", "/files/*", "/shared", "/trash", "/account"] as const;

/**
 * The web app at `/`: its routes answer `index.html` (never cached: a new release is
 * seen at once), its hashed files under `/assets/` are cached for a year. Everything
 * else (the API, unknown addresses) is left to the other plugins, so the API's 404s stay
 * JSON. Without a built app, its routes answer 503 and say how to build it.
 */
export const cellarWebApp: FastifyPluginAsync<CellarWebAppOptions> = async (app, options) => {
  const indexPath = join(options.folder, "index.html");
  const built = webAppIsBuilt(options.folder);
  // Read once: it is small, and it changes only with a new build (a restart).
  const index = built ? await readFile(indexPath) : undefined;

  for (const route of [...WEB_APP_ROUTES, ...(options.signIn ? ["/sign-in"] : [])]) {
    app.get(route, async (_request, reply) => {
      if (index === undefined) {
        reply.code(503).header("retry-after", "60");
        return {
          error: { code: "unavailable", message: "The web app is not built here: run `scripts/pnpm build`." },
        };
      }
      reply
        .type("text/html; charset=utf-8")
        .header("cache-control", "no-store")
        .header("content-security-policy", WEB_APP_CSP)
        .header("referrer-policy", "no-referrer")
        .header("x-content-type-options", "nosniff")
        .header("cross-origin-opener-policy", "same-origin");
      return index;
    });
  }

  // The app's download worker (a service worker): one fixed address, so it is asked for
  // anew each time (`no-cache`), and the browser updates it when a release changes it.
  const workerPath = join(options.folder, DOWNLOAD_WORKER);
  const worker = built && existsSync(workerPath) ? await readFile(workerPath) : undefined;
  if (worker !== undefined) {
    app.get(`/${DOWNLOAD_WORKER}`, async (_request, reply) => {
      reply
        .type("text/javascript; charset=utf-8")
        .header("cache-control", "no-cache")
        .header("content-security-policy", WEB_APP_CSP)
        .header("x-content-type-options", "nosniff");
      return worker;
    });
  }

  if (built) {
    await app.register(fastifyStatic, {
      root: join(options.folder, "assets"),
      prefix: "/assets/",
      // Every file's name carries a hash of its content: a changed file is a new name.
      immutable: true,
      maxAge: "365d",
      cacheControl: true,
      index: false,
      list: false,
      dotfiles: "deny",
      setHeaders: (response) => {
        response.header("x-content-type-options", "nosniff");
      },
    });
  }
};
