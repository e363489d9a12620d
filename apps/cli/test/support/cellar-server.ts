import { createFormulaEngine } from "@cellar/adapter-formulas";
import { cellarApi } from "@cellar/adapter-http";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { createInMemoryCellar } from "@cellar/core";
import { createRecordingWebhookTransport } from "@cellar/core/testing";
import Fastify from "fastify";

/** A real Cellar API (in-memory core, Fastify adapter) on a free port of 127.0.0.1. */
export async function startCellarServer() {
  const publicUrl = "http://127.0.0.1";
  // Workbooks compute, as on the server (decisions §8).
  const engine = createFormulaEngine();
  const formulaEngine = async () => engine;
  // Webhooks' deliveries are recorded, not sent: a test drives `cellar.webhookDispatch`.
  const webhookReceiver = createRecordingWebhookTransport();
  const cellar = createInMemoryCellar({
    config: { publicUrl },
    spreadsheets: createSpreadsheetReader({ loadEngine: formulaEngine }),
    spreadsheetWriter: createSpreadsheetWriter(),
    formulaEngine,
    webhookTransport: webhookReceiver.transport,
  });
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    url,
    cellar,
    webhookReceiver,
    /** The link of the last sign-in mail sent to `email`. */
    lastLink(email: string): string {
      const mail = cellar.deps.mailer.sent.findLast((sent) => sent.to === email);
      if (mail === undefined) throw new Error(`no sign-in mail to ${email}`);
      return mail.link;
    },
    /** A session token for `email`, signed in through the API. */
    async tokenFor(email: string): Promise<string> {
      await fetch(`${url}/v1/sessions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      });
      const token = new URL(this.lastLink(email)).searchParams.get("token");
      const verified = await fetch(`${url}/v1/sessions/verify`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      return ((await verified.json()) as { jwt: string }).jwt;
    },
    close: () => app.close(),
  };
}
