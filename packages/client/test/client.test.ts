import { readFileSync } from "node:fs";
import { cellarApi, cellarOpenApi } from "@cellar/adapter-http";
import { createInMemoryCellar } from "@cellar/core";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generatedTypes } from "../scripts/generated-types.js";
import { CellarApiError, createCellarClient, unwrap } from "../src/index.js";

describe("the generated types", () => {
  it("match the OpenAPI document the server serves (run `scripts/pnpm --filter @cellar/client generate`)", async () => {
    const checkedIn = readFileSync(new URL("../src/generated/openapi.ts", import.meta.url), "utf8");
    expect(checkedIn).toBe(await generatedTypes());
  });
});

describe("the client against a real server", () => {
  const publicUrl = "http://127.0.0.1";
  const cellar = createInMemoryCellar({ config: { publicUrl } });
  const app = Fastify({ logger: false });
  let baseUrl = "";

  beforeAll(async () => {
    await app.register(cellarOpenApi, { publicUrl });
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => app.close());

  async function signedIn(email: string) {
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email } }));
    const token = new URL(cellar.deps.mailer.sent.at(-1)?.link ?? "http://x/").searchParams.get("token") ?? "";
    const session = await unwrap(anonymous.api.POST("/sessions/verify", { body: { token } }));
    return createCellarClient({ baseUrl, token: session.jwt });
  }

  it("signs in and reads typed answers", async () => {
    const client = await signedIn("ada@example.com");
    const me = await unwrap(client.api.GET("/users/me"));
    expect(me.email).toBe("ada@example.com");
    const files = await unwrap(client.api.GET("/files", { params: { query: { per_page: "10" } } }));
    expect(files).toEqual([]);
  });

  it("throws the API's errors as CellarApiError with their code, status and details", async () => {
    const client = await signedIn("bo@example.com");
    const missing = await unwrap(
      client.api.GET("/files/{id}", { params: { path: { id: "file_nosuchfileanywhere0000" } } }),
    ).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(CellarApiError);
    expect(missing).toMatchObject({ status: 404, code: "not_found", message: "No such file." });
    const invalid = await unwrap(client.api.PATCH("/users/me", { body: { name: "" } })).catch(
      (error: unknown) => error,
    );
    expect(invalid).toMatchObject({ status: 400, code: "validation_error" });
    expect((invalid as CellarApiError).details[0]?.field).toBe("name");
    const anonymous = createCellarClient({ baseUrl });
    await expect(unwrap(anonymous.api.GET("/users/me"))).rejects.toMatchObject({ status: 401, code: "unauthorized" });
  });
});
