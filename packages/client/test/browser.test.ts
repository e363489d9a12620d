import { fileURLToPath } from "node:url";
import { cellarApi } from "@cellar/adapter-http";
import { createInMemoryCellar } from "@cellar/core";
import type {} from "@cellar/test-engines";
import { build } from "esbuild";
import Fastify from "fastify";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createCellarClient, unwrap } from "../src/index.js";

/**
 * The client in a real browser (Chromium, from @cellar/test-engines): bundled for the
 * browser as an app would bundle it, served from the same origin as the API, and driven
 * through a page.
 */
describe("the client in a browser", () => {
  const publicUrl = "http://127.0.0.1";
  const cellar = createInMemoryCellar({ config: { publicUrl } });
  const app = Fastify({ logger: false });
  let baseUrl = "";
  let browser: Browser;
  let page: Page;
  let token = "";

  beforeAll(async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      target: "chrome120",
    });
    const script = bundle.outputFiles[0]?.text ?? "";
    // The page puts the client's module where the test's scripts find it.
    app.get("/", (_request, reply) =>
      reply
        .type("text/html")
        .send(
          '<!doctype html><title>client</title><script type="module">import * as cellar from "/client.js"; window.cellar = cellar;</script>',
        ),
    );
    app.get("/client.js", (_request, reply) => reply.type("text/javascript").send(script));
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });

    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email: "web@example.com" } }));
    const link = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    token = (await unwrap(anonymous.api.POST("/sessions/verify", { body: { token: link } }))).jwt;

    const { executablePath, args } = inject("chromium");
    browser = await chromium.launch({ executablePath, args: [...args], headless: true });
    page = await browser.newPage();
    await page.goto(baseUrl);
    await page.waitForFunction(() => "cellar" in window);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await app.close();
  });

  it("uploads a Blob with XMLHttpRequest, reporting progress, and reads it back with fetch", async () => {
    const size = 6 * 1024 * 1024;
    const answer = await page.evaluate(
      async ({ baseUrl, token, size }) => {
        const { createCellarClient } = (window as unknown as { cellar: typeof import("../src/index.js") }).cellar;
        const client = createCellarClient({ baseUrl, token });
        const bytes = new Uint8Array(size);
        for (let at = 0; at < size; at++) bytes[at] = (at * 31) % 256;
        const progress: number[] = [];
        const file = await client.upload(
          { fileName: "blob.sheet", content: new Blob([bytes]) },
          { name: "From the browser", onProgress: (sent: number) => progress.push(sent) },
        );
        const download = await client.download(file.id);
        let received = 0;
        let same = true;
        for await (const chunk of download.body) {
          for (let at = 0; at < chunk.length; at++) if (chunk[at] !== ((received + at) * 31) % 256) same = false;
          received += chunk.length;
        }
        const requests = performance
          .getEntriesByType("resource")
          .map((entry) => (entry as PerformanceResourceTiming).initiatorType);
        return { file, progress, received, same, requests, fileName: download.fileName };
      },
      { baseUrl, token, size },
    );
    expect(answer.file).toMatchObject({ name: "From the browser", size });
    expect(answer.fileName).toBe("From the browser.sheet");
    expect(answer.received).toBe(size);
    expect(answer.same).toBe(true);
    // The upload went by XMLHttpRequest (the one that reports progress), the download by fetch.
    expect(answer.requests).toContain("xmlhttprequest");
    expect(answer.requests).toContain("fetch");
    expect(answer.progress.at(-1)).toBe(size);
    expect(answer.progress).toEqual([...answer.progress].sort((a, b) => a - b));
    // And the server holds exactly those bytes.
    const stored = await cellar.files.get({ callerId: answer.file.owner_id, fileId: answer.file.id });
    expect(stored.sha256).toBe(answer.file.sha256);
  });

  it("replaces a file's content with a Blob by XMLHttpRequest, with If-Match and progress", async () => {
    const size = 3 * 1024 * 1024;
    const answer = await page.evaluate(
      async ({ baseUrl, token, size }) => {
        const { CellarApiError, createCellarClient } = (
          window as unknown as { cellar: typeof import("../src/index.js") }
        ).cellar;
        const client = createCellarClient({ baseUrl, token });
        const file = await client.upload({ fileName: "first.sheet", content: new Blob(["first"]) });
        performance.clearResourceTimings();
        const bytes = new Uint8Array(size);
        for (let at = 0; at < size; at++) bytes[at] = (at * 13) % 256;
        const progress: number[] = [];
        const replaced = await client.replaceContent(
          file.id,
          { content: new Blob([bytes]) },
          { ifMatch: file.sha256, onProgress: (sent: number) => progress.push(sent) },
        );
        const stale = await client
          .replaceContent(file.id, { content: new Blob(["late"]) }, { ifMatch: file.sha256 })
          .catch((error: unknown) => error);
        const requests = performance
          .getEntriesByType("resource")
          .map((entry) => (entry as PerformanceResourceTiming).initiatorType);
        return {
          file,
          replaced,
          progress,
          requests,
          stale: {
            isCellarApiError: stale instanceof CellarApiError,
            status: (stale as { status: number }).status,
            code: (stale as { code: string }).code,
          },
        };
      },
      { baseUrl, token, size },
    );
    expect(answer.replaced).toMatchObject({ id: answer.file.id, version: 2, size, name: "first.sheet" });
    expect(answer.requests).toContain("xmlhttprequest");
    expect(answer.progress.at(-1)).toBe(size);
    expect(answer.stale).toEqual({ isCellarApiError: true, status: 412, code: "precondition_failed" });
    const stored = await cellar.files.get({ callerId: answer.file.owner_id, fileId: answer.file.id });
    expect(stored.sha256).toBe(answer.replaced.sha256);
  });

  it("follows a file's events with fetch and the response body's reader, until aborted", async () => {
    const client = createCellarClient({ baseUrl, token });
    const file = await client.upload({ fileName: "watched.sheet", content: new TextEncoder().encode("watched") });
    type Watching = { seen: string[]; stop: AbortController; done: Promise<string> };
    await page.evaluate(
      ({ baseUrl, token, id }) => {
        const { createCellarClient } = (window as unknown as { cellar: typeof import("../src/index.js") }).cellar;
        const stop = new AbortController();
        const seen: string[] = [];
        const done = (async () => {
          for await (const event of createCellarClient({ baseUrl, token }).watchFile(id, { signal: stop.signal })) {
            const data = event.data as { name?: string; viewers?: { name: string }[] };
            seen.push(
              `${event.id} ${event.event} ${data.name ?? data.viewers?.map((viewer) => viewer.name).join(", ")}`,
            );
          }
          return "ended";
        })();
        (window as unknown as { watching: Watching }).watching = { seen, stop, done };
      },
      { baseUrl, token, id: file.id },
    );
    const seen = () => page.evaluate(() => (window as unknown as { watching: Watching }).watching.seen);
    // The file, then who has it open.
    await page.waitForFunction(() => (window as unknown as { watching: Watching }).watching.seen.length === 2);
    await unwrap(client.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Renamed" } }));
    await page.waitForFunction(() => (window as unknown as { watching: Watching }).watching.seen.length === 3);
    expect(await seen()).toEqual(["1 file watched.sheet", "1 presence web", "2 file Renamed"]);
    const ended = await page.evaluate(() => {
      const { watching } = window as unknown as { watching: Watching };
      watching.stop.abort();
      return watching.done;
    });
    expect(ended).toBe("ended");
  });

  it("reports the API's refusals in the browser as CellarApiError", async () => {
    const refused = await page.evaluate(
      async ({ baseUrl, token }) => {
        const { CellarApiError, createCellarClient, unwrap } = (
          window as unknown as { cellar: typeof import("../src/index.js") }
        ).cellar;
        const client = createCellarClient({ baseUrl, token });
        const upload = await client
          .upload({ fileName: "notes.txt", content: new Blob(["hello"]) })
          .catch((error: unknown) => error);
        const missing = await unwrap(
          client.api.GET("/files/{id}", { params: { path: { id: "file_nosuchfileanywhere0000" } } }),
        ).catch((error: unknown) => error);
        return [upload, missing].map((error) => ({
          isCellarApiError: error instanceof CellarApiError,
          status: (error as { status: number }).status,
          code: (error as { code: string }).code,
        }));
      },
      { baseUrl, token },
    );
    expect(refused).toEqual([
      { isCellarApiError: true, status: 415, code: "unsupported_media_type" },
      { isCellarApiError: true, status: 404, code: "not_found" },
    ]);
  });
});
