import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import type {} from "@cellar/test-engines";
import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, afterEach, beforeAll, expect, inject } from "vitest";
import { type RunningServer, startServer } from "../../src/server.js";
import { signInLinkIn } from "./mail-text.js";
import { startSmtpSink } from "./smtp-sink.js";

/** Screenshots of each screen, for people to look at: ignored by git, kept after the run. */
export const SCREENSHOTS = fileURLToPath(new URL("../../../../test-artifacts/web/", import.meta.url));
export const WORKBOOK = fileURLToPath(
  new URL("../../../../packages/adapter-sheets/test/fixtures/libreoffice-book.xlsx", import.meta.url),
);

/** Where the web app keeps its session token (apps/web/src/app/session.ts). */
export const SESSION_KEY = "cellar.session";
/**
 * The upload limit of a second server, small so that a file over it is small too: sending
 * many MiB through the browser is slow on a busy machine, and proves nothing more.
 */
export const SMALL_UPLOAD_LIMIT = 64 * 1024;
/**
 * How long one step (a click, a wait for text) may take. Generous: a step that cannot
 * happen still fails naming what it waited for, and a slow, busy machine is not a failure.
 */
export const STEP_MS = 60_000;
/** How long one test may take: many steps, each well within STEP_MS. */
export const TEST_MS = 300_000;
/** For `expect.poll`: what the page shows is polled for as long as a step may take. */
export const UNTIL = { timeout: STEP_MS };

/** The CSV the uploads, previews and shares are made of: 400,000 rows under a header. */
export const BUDGET_ROWS = `id,amount\n${"1,2\n".repeat(400_000)}`;
/** A `.sheet` file that is not one Cellar can read. */
export const LEGACY_SHEET = "\u0000\u0001raw";

/** A file as the API returns it (the fields these tests look at). */
export interface FileJson {
  readonly id: string;
  readonly name: string;
  readonly trashed_at?: string | null;
}

/** A signed-in user of one server: the address and the session's token. */
export interface Session {
  readonly email: string;
  readonly jwt: string;
  readonly at: RunningServer;
}

/**
 * The web app as `pnpm start` serves it, in a real Chromium: built by Vite as
 * `scripts/pnpm build` builds it, served by the standalone server on its embedded
 * default, with sign-in mail going through a real SMTP server.
 *
 * Each test stands on its own, in a browser context of its own, as a user of its own
 * whose files it uploads through the API: none relies on what another test left.
 *
 * Call it at the top of a `describe`: it adds the hooks that start and stop all of it.
 * `options.env`: more settings for the main server (e.g. `WEBHOOK_ALLOW_PRIVATE`).
 */
export function useWebApp(options: { env?: Record<string, string> } = {}) {
  const work = mkdtempSync(join(tmpdir(), "cellar-web-"));
  const appFolder = join(work, "app");
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  let server: RunningServer;
  /** The same app, refusing files over SMALL_UPLOAD_LIMIT. */
  let smallServer: RunningServer;
  let browser: Browser;
  let serve: (name: string, env?: Record<string, string>) => Promise<RunningServer>;
  /** The contexts this test opened, closed after it. */
  const contexts: BrowserContext[] = [];
  /** Requests the app's pages made to anywhere but their server: there should be none. */
  const elsewhere: string[] = [];
  let users = 0;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await build({
      configFile: fileURLToPath(new URL("../../../web/vite.config.ts", import.meta.url)),
      build: { outDir: appFolder, emptyOutDir: true },
      logLevel: "warn",
    });
    smtp = await startSmtpSink();
    serve = (name: string, env: Record<string, string> = {}) =>
      startServer({
        env: {
          HOST: "127.0.0.1",
          PORT: "0",
          DATA_DIR: join(work, name),
          SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
          ...env,
        },
        logger: false,
        webAppFolder: appFolder,
      });
    server = await serve("data", options.env);
    smallServer = await serve("small-data", { MAX_UPLOAD_BYTES: String(SMALL_UPLOAD_LIMIT) });
    browser = await launchChromium();
  }, TEST_MS);

  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
    expect(elsewhere.splice(0), "requests to other origins").toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close(1000);
    await smallServer?.close(1000);
    await smtp?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** The WCAG 2.1 A and AA violations axe finds on the page. */
  const axe = async (on: Page): Promise<unknown[]> =>
    (await new AxeBuilder({ page: on }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]).analyze()).violations;
  /** The whole page by default; `{ fullPage: false }` for what one screen shows. */
  const screenshot = (name: string, on: Page, options: { fullPage?: boolean } = {}) =>
    on.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: options.fullPage ?? true });
  const tokenOf = async (on: Page) => (await on.evaluate(`localStorage.getItem('${SESSION_KEY}')`)) as string;
  const api = (path: string, jwt: string, init: RequestInit = {}, at: RunningServer = server) =>
    fetch(`${at.url}/v1${path}`, { ...init, headers: { authorization: `Bearer ${jwt}`, ...init.headers } });
  const postJson = (at: RunningServer, path: string, body: unknown) =>
    fetch(`${at.url}/v1${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  /** An address no other test (nor an earlier step of this one) has used. */
  const newEmail = (who: string) => `${who}-${++users}@example.com`;

  /**
   * A page in a browser context of its own (closed after the test), its requests to
   * other origins noted; with `session`, signed in before its first script runs: the
   * token is where the app keeps it.
   */
  async function newPage(
    options: { at?: RunningServer; session?: Session; context?: BrowserContextOptions } = {},
  ): Promise<Page> {
    const at = options.at ?? options.session?.at ?? server;
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      // No transitions: axe's contrast check must not land mid-way through a colour change.
      reducedMotion: "reduce",
      ...options.context,
      ...(options.session === undefined
        ? {}
        : {
            storageState: {
              cookies: [],
              origins: [{ origin: at.url, localStorage: [{ name: SESSION_KEY, value: options.session.jwt }] }],
            },
          }),
    });
    contexts.push(context);
    context.setDefaultTimeout(STEP_MS);
    context.setDefaultNavigationTimeout(STEP_MS);
    const page = await context.newPage();
    page.on("request", (request) => {
      const origin = new URL(request.url()).origin;
      if (origin !== at.url && !request.url().startsWith("blob:")) elsewhere.push(request.url());
    });
    return page;
  }

  /**
   * Signs a new user in through the API, as fast as it goes: the link is asked for and
   * its mail read from the SMTP server as in the app, and its token exchanged directly.
   */
  async function newSession(who: string, at: RunningServer = server): Promise<Session> {
    const email = newEmail(who);
    const since = smtp.mails.length;
    expect((await postJson(at, "/sessions", { email })).status).toBe(202);
    const token = (await signInLinkIn((await smtp.nextMailTo(email, since)).raw)).searchParams.get("token");
    const verified = await postJson(at, "/sessions/verify", { token });
    expect(verified.status).toBe(200);
    return { email, jwt: ((await verified.json()) as { jwt: string }).jwt, at };
  }

  /** A new user with a name of their own (as the conflict dialog, presence and comments name them). */
  async function namedSession(who: string, name: string): Promise<Session> {
    const session = await newSession(who);
    const response = await api("/users/me", session.jwt, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    return session;
  }

  /** Gives `to` a role on the owner's file, without a mail. */
  async function shareFile(owner: Session, file: FileJson, to: Session, role: string): Promise<void> {
    const response = await api(`/files/${file.id}/permissions`, owner.jwt, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: to.email, role, notify: false }),
    });
    expect(response.status, await response.clone().text()).toBe(201);
  }

  /** A range's cells as the API reads them now: raw, or with each formula cell's formula. */
  async function valuesOf(session: Session, file: FileJson, range: string, render = "raw"): Promise<unknown[][]> {
    const response = await api(
      `/files/${file.id}/values?range=${encodeURIComponent(range)}&render=${render}`,
      session.jwt,
    );
    expect(response.status, await response.clone().text()).toBe(200);
    return ((await response.json()) as { values: unknown[][] }).values;
  }

  /** A new user's page, signed in and showing their files. */
  async function signedInPage(
    who: string,
    options: { at?: RunningServer; context?: BrowserContextOptions } = {},
  ): Promise<{ page: Page; session: Session }> {
    const session = await newSession(who, options.at);
    const page = await newPage({ session, ...(options.context === undefined ? {} : { context: options.context }) });
    await page.goto(`${session.at.url}/files`);
    await page.getByRole("heading", { name: "Your files" }).waitFor();
    return { page, session };
  }

  /** Uploads a file through the API, as `fileName`, with the form's `name` and `visibility` if given. */
  async function seed(
    session: Session,
    fileName: string,
    content: string | Uint8Array,
    fields: { name?: string; visibility?: "public" | "private" } = {},
  ): Promise<FileJson> {
    const form = new FormData();
    form.append("file", new Blob([content]), fileName);
    for (const [field, value] of Object.entries(fields)) form.append(field, value);
    const response = await api("/files", session.jwt, { method: "POST", body: form }, session.at);
    expect(response.status, `upload of ${fileName}: ${response.status === 201 ? "" : await response.text()}`).toBe(201);
    return (await response.json()) as FileJson;
  }

  /** The three files the upload test leaves: a large CSV renamed and shared, a workbook, a file Cellar cannot read. */
  async function seedTheUsualFiles(session: Session, budget: string = BUDGET_ROWS) {
    return {
      budget: await seed(session, "budget.csv", budget, { name: "Budget 2026", visibility: "public" }),
      book: await seed(session, "book.xlsx", readFileSync(WORKBOOK)),
      legacy: await seed(session, "legacy.sheet", Buffer.from(LEGACY_SHEET, "latin1")),
    };
  }

  /**
   * Stops the server (ending its event streams, as a shutdown ends them) and starts it
   * again on the same port and data folder, as a restart or a deploy does: sessions and
   * files stay, and the pages' streams connect again by themselves.
   */
  async function restartServer(): Promise<void> {
    const { port } = new URL(server.url);
    await server.close(1000);
    server = await serve("data", { ...options.env, PORT: port });
  }

  /** Asks for a link through the app's own form and returns the link the SMTP server received. */
  async function requestLink(email: string, on: Page): Promise<URL> {
    const since = smtp.mails.length;
    await on.goto(server.url);
    await on.getByLabel("Email address").fill(email);
    await on.getByRole("button", { name: "Send me a link" }).click();
    await on.getByRole("heading", { name: "Check your mail" }).waitFor();
    return await signInLinkIn((await smtp.nextMailTo(email, since)).raw);
  }

  return {
    /** The server on its embedded default, with the app. */
    get server() {
      return server;
    },
    /** The same app, refusing files over SMALL_UPLOAD_LIMIT. */
    get smallServer() {
      return smallServer;
    },
    get smtp() {
      return smtp;
    },
    elsewhere,
    axe,
    screenshot,
    tokenOf,
    api,
    postJson,
    newEmail,
    newPage,
    newSession,
    namedSession,
    shareFile,
    valuesOf,
    signedInPage,
    seed,
    seedTheUsualFiles,
    requestLink,
    restartServer,
  };
}

/**
 * Chromium from `@sparticuz/chromium`, started once more if it dies while starting: on a
 * loaded machine it has been seen to crash (SIGSEGV) before its first page, a failure of
 * the browser's start, not of anything the tests check.
 */
async function launchChromium(): Promise<Browser> {
  const { executablePath, args } = inject("chromium");
  const launch = () => chromium.launch({ executablePath, args: [...args], headless: true });
  try {
    return await launch();
  } catch {
    return launch();
  }
}

/**
 * A page's init script that notes the body of each cell edit it sends, in
 * `window.editBodies` (a body sent by fetch from a Request is not in Playwright's `request`).
 */
export const NOTE_EDIT_BODIES = `(() => {
  const fetch = window.fetch;
  window.editBodies = [];
  window.fetch = async (input, init) => {
    if (input instanceof Request && input.method === "PATCH" && new URL(input.url).pathname.endsWith("/values")) {
      window.editBodies.push(JSON.parse(await input.clone().text()));
    }
    return fetch(input, init);
  };
})()`;

/**
 * A script for a page's `evaluate` that notes every cell that shows the flash class, in
 * `window.flashed`, with a mark a reload would wipe out (`window.stayed`).
 */
export const NOTE_FLASHES = `(() => {
  window.stayed = true;
  window.flashed = [];
  const note = () => {
    for (const cell of document.querySelectorAll(".cell.flash")) if (!window.flashed.includes(cell.id)) window.flashed.push(cell.id);
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
})()`;
