import { cellarApi, cellarOpenApi } from "@cellar/adapter-http";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { createInMemoryCellar } from "@cellar/core";
import { createRecordingWebhookTransport } from "@cellar/core/testing";
import Fastify from "fastify";

/** The OpenAPI document the server serves at /openapi.json, built from the same plugins. */
export async function servedOpenApiDocument(): Promise<Record<string, unknown>> {
  const publicUrl = "https://cellar.example.org";
  const app = Fastify({ logger: false });
  await app.register(cellarOpenApi, { publicUrl });
  await app.register(cellarApi, {
    prefix: "/v1",
    cellar: createInMemoryCellar({
      config: { publicUrl },
      spreadsheets: createSpreadsheetReader(),
      spreadsheetWriter: createSpreadsheetWriter(),
      // A server that delivers webhooks serves their routes: the document has them all.
      webhookTransport: createRecordingWebhookTransport().transport,
    }),
    publicUrl,
  });
  await app.ready();
  try {
    const response = await app.inject({ method: "GET", url: "/openapi.json" });
    return response.json<Record<string, unknown>>();
  } finally {
    await app.close();
  }
}
