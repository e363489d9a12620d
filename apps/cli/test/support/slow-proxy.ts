import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A slow network between the command and the server: an HTTP proxy on 127.0.0.1 that
 * passes request and response bodies on at about `bytesPerSecond`, so that a transfer
 * lasts long enough to watch its progress bar or to interrupt it.
 */
export async function startSlowProxy(target: string, bytesPerSecond: number) {
  const slowly = async function* (source: AsyncIterable<Buffer>) {
    // Each byte no sooner than its share of time since the first.
    const started = performance.now();
    let passed = 0;
    for await (const chunk of source) {
      const due = started + ((passed + chunk.length) / bytesPerSecond) * 1000;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      passed += chunk.length;
      yield chunk;
    }
  };
  const upstream = new URL(target);
  const server = createServer((incoming, answer) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      async (response) => {
        answer.writeHead(response.statusCode ?? 502, response.headers);
        try {
          for await (const piece of slowly(response)) {
            if (!answer.write(piece)) await new Promise((resolve) => answer.once("drain", resolve));
          }
          answer.end();
        } catch {
          answer.destroy();
        }
      },
    );
    forwarded.on("error", () => answer.destroy());
    answer.on("close", () => forwarded.destroy());
    (async () => {
      for await (const piece of slowly(incoming)) {
        if (!forwarded.write(piece)) await new Promise((resolve) => forwarded.once("drain", resolve));
      }
      forwarded.end();
    })().catch(() => forwarded.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
