import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PUBLISHED, packPublished, REPOSITORY } from "../pack.js";

/**
 * The packages as someone outside this repository gets them: built, packed as they would
 * be published, and installed with plain npm into an empty folder.
 */
const work = mkdtempSync(join(tmpdir(), "cellar-packages-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let tarballs = new Map<string, string>();

function run(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  }
  return result.stdout;
}

function filesOf(tarball: string): string[] {
  return run("tar", ["-tzf", tarball], work)
    .split("\n")
    .filter(Boolean)
    .map((path) => path.replace(/^package\//, ""));
}

function manifestOf(tarball: string): Record<string, unknown> {
  return JSON.parse(run("tar", ["-xzOf", tarball, "package/package.json"], work)) as Record<string, unknown>;
}

beforeAll(() => {
  // The compiled JavaScript and types the tarballs carry: the build a publish starts from.
  run(process.execPath, [join(REPOSITORY, "node_modules/typescript/bin/tsc"), "-b"], REPOSITORY);
  tarballs = packPublished(join(work, "tarballs"));
}, 240_000);

describe("the published packages", () => {
  it("each carry compiled JavaScript, types, a README and the licence, and nothing else", () => {
    for (const folder of PUBLISHED) {
      const tarball = tarballs.get(folder) as string;
      const files = filesOf(tarball);
      expect(files, folder).toContain("package.json");
      expect(files, folder).toContain("README.md");
      expect(files, folder).toContain("LICENSE");
      expect(readFileSync(join(REPOSITORY, "LICENSE"), "utf8")).toBe(
        run("tar", ["-xzOf", tarball, "package/LICENSE"], work),
      );
      // No sources, tests, maps, build state or configuration: compiled code and its types only.
      const others = files.filter(
        (path) =>
          !["package.json", "README.md", "LICENSE"].includes(path) &&
          !/^(dist\/.+\.(js|d\.ts)|bin\/[^/]+\.js)$/.test(path),
      );
      expect(others, folder).toEqual([]);
      expect(
        files.some((path) => /(^|\/)test\//.test(path)),
        folder,
      ).toBe(false);
    }
  });

  it("each have a manifest that resolves outside the workspace", () => {
    for (const folder of PUBLISHED) {
      const tarball = tarballs.get(folder) as string;
      const files = new Set(filesOf(tarball));
      const manifest = manifestOf(tarball);
      const text = JSON.stringify(manifest);
      expect(manifest.private, folder).toBeUndefined();
      expect(manifest.license, folder).toBe("MIT");
      expect(text, folder).not.toContain("workspace:");
      // The workspace's own condition (TypeScript sources) stays out of what resolves.
      expect(JSON.stringify(manifest.exports ?? {}), folder).not.toContain("@cellar/source");
      for (const [name, range] of Object.entries((manifest.dependencies ?? {}) as Record<string, string>)) {
        if (name.startsWith("@cellar/"))
          expect(range, `${folder} → ${name}`).toBe(
            manifestOf(tarballs.get(`packages/${name.slice(8)}`) as string).version,
          );
      }
      // Every export's files are in the tarball.
      const exports = (manifest.exports ?? {}) as Record<string, Record<string, string>>;
      for (const [entry, conditions] of Object.entries(exports)) {
        for (const target of Object.values(conditions))
          expect(files, `${folder} ${entry}`).toContain(target.replace(/^\.\//, ""));
      }
      const bins = (manifest.bin ?? {}) as Record<string, string>;
      for (const target of Object.values(bins)) expect(files, folder).toContain(target);
      expect(Object.keys(exports).length + Object.keys(bins).length, folder).toBeGreaterThan(0);
    }
  });
});

describe("installed with plain npm into an empty folder", () => {
  const app = join(work, "app");
  let server: ChildProcess | undefined;
  afterAll(() => server?.kill());

  beforeAll(() => {
    run("mkdir", ["-p", app], work);
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "embeds-cellar", private: true, type: "module" }));
    // Every package but SQLite's, whose native module would take minutes to build here.
    const wanted = PUBLISHED.filter((folder) => folder !== "packages/adapter-sqlite").map(
      (folder) => tarballs.get(folder) as string,
    );
    const fastify = (manifestOf(tarballs.get("packages/adapter-http") as string).dependencies as Record<string, string>)
      .fastify as string;
    run(
      "npm",
      ["install", "--no-audit", "--no-fund", "--loglevel=error", ...wanted, `fastify@${fastify}`, "@types/node@^22"],
      app,
    );
  }, 240_000);

  it("runs an app that embeds createInMemoryCellar behind the HTTP adapter, and the cellar command against it", async () => {
    writeFileSync(
      join(app, "server.mjs"),
      `import Fastify from "fastify";
import { createInMemoryCellar } from "@cellar/core";
import { cellarApi } from "@cellar/adapter-http";
import { createCellarClient, unwrap } from "@cellar/client";

const publicUrl = "http://127.0.0.1";
const cellar = createInMemoryCellar({ config: { publicUrl } });
const app = Fastify();
await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
const url = await app.listen({ host: "127.0.0.1", port: 0 });
const client = createCellarClient({ baseUrl: url });
await unwrap(client.api.POST("/sessions", { body: { email: "ada@example.com" } }));
const token = new URL(cellar.deps.mailer.sent.at(-1).link).searchParams.get("token");
const { jwt } = await unwrap(client.api.POST("/sessions/verify", { body: { token } }));
console.log(JSON.stringify({ url, jwt }));
process.stdin.on("end", () => app.close());
process.stdin.resume();
`,
    );
    server = spawn(process.execPath, ["server.mjs"], { cwd: app, stdio: ["pipe", "pipe", "inherit"] });
    const { url, jwt } = await new Promise<{ url: string; jwt: string }>((resolve, reject) => {
      let out = "";
      server?.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0] as string));
      });
      server?.on("exit", (code) => reject(new Error(`the app exited ${code}: ${out}`)));
    });

    const cellar = join(app, "node_modules/.bin/cellar");
    const version = manifestOf(tarballs.get("apps/cli") as string).version;
    expect(run(cellar, ["--version"], app)).toBe(`${version}\n`);
    writeFileSync(join(app, "budget.csv"), "item,amount\nrent,1200\n");
    const env = { CELLAR_SERVER: url, CELLAR_TOKEN: jwt, HOME: app };
    const id = run(cellar, ["upload", "budget.csv", "-q"], app, env).trim();
    expect(id).toMatch(/^file_[a-z2-7]{24}$/);
    expect(JSON.parse(run(cellar, ["ls", "--json"], app, env))).toMatchObject({ id, name: "budget.csv", size: 22 });
    expect(run(cellar, ["download", id, "-o", "-"], app, env)).toBe("item,amount\nrent,1200\n");
    server.stdin?.end();
  }, 60_000);

  it("gives TypeScript the types of every entry point, its dependencies' included", () => {
    writeFileSync(
      join(app, "typed.ts"),
      `import { type Cellar, createCellar, createInMemoryCellar } from "@cellar/core";
import { type CellarFile, createCellarClient } from "@cellar/client";
import { uploadFile } from "@cellar/client/node";
import { cellarApi } from "@cellar/adapter-http";
import { createPostgresPool, createPostgresRepositories, type Pool } from "@cellar/adapter-postgres";
import { createFsBlobStore } from "@cellar/adapter-fs-storage";
import { createS3BlobStore } from "@cellar/adapter-s3-storage";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import * as mail from "@cellar/adapter-mail";

const cellar: Cellar = createInMemoryCellar({ config: { publicUrl: "http://127.0.0.1" } });
const client = createCellarClient({ baseUrl: "http://127.0.0.1" });
export const uploads: Promise<CellarFile>[] = [
  client.upload({ fileName: "a.csv", content: new Uint8Array([97]) }),
  uploadFile({ baseUrl: "http://127.0.0.1" }, "a.csv"),
];
const pool: Pool = createPostgresPool({ connectionString: "postgres://localhost/cellar" });
export const used = [cellar, cellarApi, createCellar, createPostgresRepositories(pool), createFsBlobStore, createS3BlobStore, createSpreadsheetReader(), mail];
// @ts-expect-error: a file's name is a string
export const wrongName: CellarFile["name"] = 1;
// @ts-expect-error: a pool is pg's, typed (not any)
export const wrongPool: Pool = 42;
`,
    );
    // Contract suites for vitest users: their types name vitest's, which this app has not installed.
    writeFileSync(
      join(app, "testing.ts"),
      `import { blobStoreContract, createFakeClock } from "@cellar/core/testing";
export const used = [blobStoreContract, createFakeClock(new Date())];
`,
    );
    const compilerOptions = {
      module: "nodenext",
      moduleResolution: "nodenext",
      target: "es2024",
      lib: ["es2024", "dom"],
      strict: true,
      noEmit: true,
      types: ["node"],
    };
    const tsc = join(REPOSITORY, "node_modules/typescript/bin/tsc");
    writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["typed.ts"] }));
    run(process.execPath, [tsc, "-p", "."], app);
    writeFileSync(
      join(app, "tsconfig.testing.json"),
      JSON.stringify({ compilerOptions: { ...compilerOptions, skipLibCheck: true }, files: ["testing.ts"] }),
    );
    run(process.execPath, [tsc, "-p", "tsconfig.testing.json"], app);
  }, 60_000);
});
