/**
 * Writes src/generated/openapi.ts, the types of every /v1 route, from the OpenAPI
 * document the server serves (openapi-typescript). Run after changing a route:
 * `scripts/pnpm --filter @cellar/client generate`. A test fails when the file and the
 * server disagree.
 */
import { writeFileSync } from "node:fs";
import { generatedTypes } from "./generated-types.js";

writeFileSync(new URL("../src/generated/openapi.ts", import.meta.url), await generatedTypes());
