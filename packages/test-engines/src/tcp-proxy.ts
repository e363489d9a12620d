import { createServer, type Socket, connect as tcpConnect } from "node:net";

/** A TCP proxy a test breaks at will: see `startTcpProxy`. */
export interface TcpProxy {
  /** `http://127.0.0.1:<port>`: where clients connect instead of the target. */
  readonly url: string;
  /** Cuts every open connection, both ways, as a network that drops them. */
  cut(): void;
  /** Cuts every open connection and refuses new ones (accepted, then closed at once) until `up`. */
  down(): void;
  up(): void;
  /**
   * Stops passing the target's bytes on every open connection and keeps it open, as a
   * connection whose far end went away without a word (a laptop asleep, a NAT entry
   * dropped); connections made after it pass again.
   */
  stall(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on a free port of 127.0.0.1 passing bytes both ways to `target` (an
 * `http://host:port` URL), standing for the network between a client and a server: tests
 * cut it, take it down or stall it to see what a client does when a connection breaks.
 * The bytes pass untouched (HTTP and TLS alike).
 */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<{ client: Socket; server: Socket }>();
  const stalled = new Set<{ client: Socket; server: Socket }>();
  let refusing = false;
  const proxy = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const server = tcpConnect({ host: hostname, port: Number(port) });
    const pair = { client, server };
    open.add(pair);
    const end = () => {
      open.delete(pair);
      stalled.delete(pair);
      client.destroy();
      server.destroy();
    };
    client.on("error", end).on("close", end);
    server.on("error", end).on("close", end);
    client.pipe(server);
    server.pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  const cut = () => {
    for (const { client, server } of [...open]) {
      client.destroy();
      server.destroy();
    }
  };
  return {
    url,
    cut,
    down() {
      refusing = true;
      cut();
    },
    up() {
      refusing = false;
    },
    stall() {
      for (const pair of [...open]) {
        pair.server.unpipe(pair.client);
        pair.server.pause();
        // A later `cut` leaves it hanging, as the far end would; `close` ends it.
        open.delete(pair);
        stalled.add(pair);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        for (const { client, server } of [...stalled]) {
          client.destroy();
          server.destroy();
        }
        proxy.close(() => resolve());
      }),
  };
}
