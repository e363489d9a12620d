/**
 * Writes the OpenAPI document the server serves at /openapi.json to a temp file and
 * lints it with Redocly's recommended rules. Run with `pnpm lint:openapi`; it needs the
 * npm registry to fetch the pinned Redocly CLI.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInMemoryCellar } from "@cellar/core";
import { buildHttpApp } from "@cellar/server";

const REDOCLY = "@redocly/cli@2.77.0";
const dir = mkdtempSync(join(tmpdir(), "cellar-openapi-"));
try {
  const publicUrl = "https://cellar.example.org";
  const app = buildHttpApp({
    cellar: createInMemoryCellar({ config: { publicUrl } }),
    publicUrl,
    logger: false,
    storage: { ping: async () => {}, isUnavailable: () => false },
    acceptingRequests: () => true,
  });
  const response = await app.inject({ method: "GET", url: "/openapi.json" });
  await app.close();
  const file = join(dir, "openapi.json");
  writeFileSync(file, response.body);
  const lint = spawnSync("npx", ["-y", REDOCLY, "lint", file], { stdio: "inherit" });
  process.exitCode = lint.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
