import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FileEvent, type OutgoingEvent, toMetadata } from "@cellar/core";
import { aFile } from "@cellar/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { refusedAddress } from "../src/webhooks/destination.js";
import { createWebhookTransport } from "../src/webhooks/transport.js";

interface Received {
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A receiver on a free port of 127.0.0.1: what it got, and how it answers. */
async function aReceiver(answer: (response: ServerResponse, received: Received) => void = (r) => r.end("ok")) {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const got = { headers: request.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(got);
      answer(response, got);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { received, port, url: `http://127.0.0.1:${port}/hook` };
}

const renamed: FileEvent = {
  kind: "file",
  id: "7",
  file: toMetadata(
    aFile("user_aaaaaaaaaaaaaaaaaaaaaaaa", { id: "file_aaaaaaaaaaaaaaaaaaaaaaaa", name: "Budget.csv" }),
    "owner",
  ),
};

const anEvent = (url: string): OutgoingEvent => ({
  url,
  secret: "whsec_test-secret",
  eventId: "evt_bbbbbbbbbbbbbbbbbbbbbbbb",
  fileId: "file_aaaaaaaaaaaaaaaaaaaaaaaa",
  createdAt: new Date("2026-11-28T10:05:00.000Z"),
  event: renamed,
});

/** What a receiver does with `Cellar-Signature`: the HMAC of "<t>.<body>", compared in constant time. */
function verified(secret: string, header: string, body: string): boolean {
  const fields = Object.fromEntries(header.split(",").map((part) => part.split("=") as [string, string]));
  const expected = createHmac("sha256", secret).update(`${fields.t}.${body}`).digest();
  const given = Buffer.from(fields.v1 ?? "", "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("the webhook transport (decisions §10)", () => {
  it("POSTs the event as JSON, signed over t.body with the secret, with its id", async () => {
    const receiver = await aReceiver();
    const transport = createWebhookTransport({ allowPrivate: true });
    const result = await transport.deliver(anEvent(receiver.url));
    expect(result).toMatchObject({ status: 200, error: null });
    const [got] = receiver.received;
    expect(got?.headers["content-type"]).toBe("application/json");
    expect(got?.headers["cellar-webhook-id"]).toBe("evt_bbbbbbbbbbbbbbbbbbbbbbbb");
    const body = JSON.parse(got?.body ?? "{}");
    expect(body).toMatchObject({
      id: "evt_bbbbbbbbbbbbbbbbbbbbbbbb",
      type: "file",
      file_id: "file_aaaaaaaaaaaaaaaaaaaaaaaa",
      created_at: "2026-11-28T10:05:00.000Z",
      data: { id: "file_aaaaaaaaaaaaaaaaaaaaaaaa", name: "Budget.csv" },
    });
    const signature = String(got?.headers["cellar-signature"]);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verified("whsec_test-secret", signature, got?.body ?? "")).toBe(true);
    expect(verified("whsec_another", signature, got?.body ?? "")).toBe(false);
    expect(Math.abs(Number(signature.slice(2, signature.indexOf(","))) - Date.now() / 1000)).toBeLessThan(60);
  });

  it("says why an attempt failed: an error status, a redirect it does not follow, no answer in time", async () => {
    const transport = createWebhookTransport({ allowPrivate: true, timeoutMs: 1000 });
    const failing = await aReceiver((response) => {
      response.statusCode = 503;
      response.end("try later");
    });
    expect(await transport.deliver(anEvent(failing.url))).toMatchObject({ status: 503, error: "HTTP 503" });

    const elsewhere = await aReceiver();
    const redirecting = await aReceiver((response) => {
      response.writeHead(307, { location: elsewhere.url }).end();
    });
    expect(await transport.deliver(anEvent(redirecting.url))).toMatchObject({
      status: 307,
      error: "redirect (307) not followed",
    });
    expect(elsewhere.received).toHaveLength(0);

    const silent = await aReceiver(() => {});
    const timedOut = await transport.deliver(anEvent(silent.url));
    expect(timedOut).toMatchObject({ status: null, error: "no answer within 1 s" });
    expect(timedOut.durationMs).toBeGreaterThanOrEqual(900);

    const slowButInTime = await aReceiver((response) => {
      setTimeout(() => response.end("ok"), 300);
    });
    expect(await transport.deliver(anEvent(slowButInTime.url))).toMatchObject({ status: 200, error: null });
  });

  it("reads no more than 1 KiB of an answer, however long it is", async () => {
    const transport = createWebhookTransport({ allowPrivate: true });
    let written = 0;
    const endless = await aReceiver((response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 120);
      const more = () => {
        while (written < 512 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
        if (written < 512 * 1024 * 1024) response.once("drain", more);
        else response.end();
      };
      more();
    });
    const result = await transport.deliver(anEvent(endless.url));
    expect(result).toMatchObject({ status: 200, error: null });
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses loopback and private addresses unless allowed, link-local and metadata ones always", async () => {
    const strict = createWebhookTransport();
    const loose = createWebhookTransport({ allowPrivate: true });
    expect(await strict.check("http://127.0.0.1:9/hook")).toBe("loopback");
    expect(await strict.check("https://10.1.2.3/hook")).toBe("private");
    expect(await strict.check("https://[::ffff:192.168.1.4]/hook")).toBe("private");
    expect(await strict.check("https://[::1]/hook")).toBe("loopback");
    expect(await strict.check("https://[fe80::1]/hook")).toBe("link_local");
    expect(await loose.check("http://169.254.169.254/latest/meta-data/")).toBe("metadata");
    expect(await loose.check("https://[fd00:ec2::254]/")).toBe("metadata");
    expect(await loose.check("http://169.254.1.1/")).toBe("link_local");
    expect(await loose.check("https://0.0.0.0/")).toBe("unspecified");
    expect(await loose.check("ftp://example.org/")).toBe("scheme");
    expect(await loose.check("https://user:pw@example.org/")).toBe("credentials");
    // http:// only to loopback or private addresses, and only when those are allowed.
    expect(await loose.check("http://127.0.0.1:9/hook")).toBeNull();
    expect(await loose.check("http://93.184.215.14/hook")).toBe("scheme");
    expect(await loose.check("https://93.184.215.14/hook")).toBeNull();
    expect(refusedAddress("100.64.0.1", false)).toBe("private");
  });

  it("checks the addresses a name resolves to at every attempt, and connects only to the one it checked", async () => {
    const receiver = await aReceiver();
    let answer = "127.0.0.1";
    const lookups: string[] = [];
    const resolve = async (hostname: string) => {
      lookups.push(hostname);
      if (hostname === "metadata.test") return [{ address: "169.254.169.254", family: 4 }];
      if (hostname === "receiver.test") return [{ address: answer, family: 4 }];
      throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
    };
    const strict = createWebhookTransport({ resolve });
    const url = `http://receiver.test:${receiver.port}/hook`;
    // A name resolving to 127.0.0.1, WEBHOOK_ALLOW_PRIVATE unset: refused at the check and at delivery.
    expect(await strict.check(url)).toBe("loopback");
    expect(await strict.deliver(anEvent(url))).toMatchObject({ status: null, error: "destination refused: loopback" });
    expect(receiver.received).toHaveLength(0);
    expect(await strict.check("https://metadata.test/")).toBe("metadata");
    expect(await strict.check("https://nowhere.test/")).toBe("unresolvable");

    // Allowed, it reaches the receiver through the address it checked (no such name in DNS).
    const loose = createWebhookTransport({ allowPrivate: true, resolve });
    expect(await loose.deliver(anEvent(url))).toMatchObject({ status: 200 });
    expect(receiver.received).toHaveLength(1);
    // The name now resolves to a metadata address: the next attempt is refused, nothing sent.
    answer = "169.254.169.254";
    expect(await loose.deliver(anEvent(url))).toMatchObject({ error: "destination refused: metadata" });
    expect(receiver.received).toHaveLength(1);
    expect(lookups.filter((name) => name === "receiver.test").length).toBeGreaterThanOrEqual(4);
  });
});
