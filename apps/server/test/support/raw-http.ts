import { connect, type Socket } from "node:net";

/** One HTTP/1.1 response as read off a raw socket. Header names are lower-cased. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A plain TCP connection to the server, driven byte by byte: the test decides exactly
 * what is sent and when, and sees exactly what comes back and when the server hangs up.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  /** Set once the server (or we) closed the connection. */
  closedAt: number | undefined;
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake?.();
    });
    // A reset is one way for the server to hang up; it is not an error of the test.
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.closedAt = Date.now();
        this.wake?.();
        resolve();
      }),
    );
  }

  /** Connects to `url`'s host and port; rejects when the connection is refused. */
  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        socket.setNoDelay(true);
        resolve(new RawConnection(socket));
      });
    });
  }

  /** Everything the server sent so far, as text. */
  get text(): string {
    return this.received.toString("latin1");
  }

  get isClosed(): boolean {
    return this.closedAt !== undefined;
  }

  /** Writes `data`; resolves once it was handed to the kernel. Rejects if the socket is gone. */
  write(data: string | Uint8Array): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.destroyed) {
        reject(new Error("The connection was closed before this could be sent."));
        return;
      }
      this.socket.write(data, (error) => (error ? reject(error) : resolve()));
    });
  }

  /**
   * Reads the next whole response (Content-Length or chunked body) and removes it from
   * what was received. Rejects when the connection closes first or after `timeoutMs`.
   */
  async readResponse(timeoutMs = 10_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponse(this.received);
      if (parsed !== undefined) {
        this.received = this.received.subarray(parsed.length);
        return parsed.response;
      }
      if (this.isClosed) throw new Error(`The connection closed before a whole response came:\n${this.text}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No whole response within ${timeoutMs} ms:\n${this.text}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** Resolves true once the connection is closed, false if it is still open after `timeoutMs`. */
  async closesWithin(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const result = await Promise.race([this.closed.then(() => true as const), timedOut]);
    clearTimeout(timer);
    return result;
  }

  /** Drops the connection at once, as a client that vanished would. */
  destroy(): void {
    this.socket.destroy();
  }
}

function parseResponse(buffer: Buffer): { response: RawResponse; length: number } | undefined {
  const headEnd = buffer.indexOf("\r\n\r\n");
  if (headEnd < 0) return undefined;
  const [statusLine = "", ...lines] = buffer.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyStart = headEnd + 4;
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") {
    let at = bodyStart;
    const parts: Buffer[] = [];
    for (;;) {
      const lineEnd = buffer.indexOf("\r\n", at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(buffer.subarray(at, lineEnd).toString("latin1"), 16);
      if (buffer.length < lineEnd + 2 + size + 2) return undefined;
      if (size === 0) {
        return { response: { status, headers, body: Buffer.concat(parts).toString() }, length: lineEnd + 4 };
      }
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers["content-length"] ?? 0);
  if (buffer.length < bodyStart + length) return undefined;
  return {
    response: { status, headers, body: buffer.subarray(bodyStart, bodyStart + length).toString() },
    length: bodyStart + length,
  };
}

/** The bytes of a one-file multipart upload, split where a client streaming it would split them. */
export interface MultipartUpload {
  readonly contentType: string;
  /** The part's headers, sent before the file's bytes. */
  readonly head: Buffer;
  readonly content: Buffer;
  /** The closing boundary, sent after the file's bytes. */
  readonly tail: Buffer;
  readonly length: number;
}

/** A form with one `file` part, then the text `fieldsAfter` (e.g. `{ name: "Budget" }`). */
export function multipartUpload(
  fileName: string,
  content: Buffer,
  fieldsAfter: Record<string, string> = {},
): MultipartUpload {
  const boundary = `----cellar-fault-${Math.random().toString(36).slice(2)}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const fields = Object.entries(fieldsAfter)
    .map(([name, value]) => `\r\n--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}`)
    .join("");
  const tail = Buffer.from(`${fields}\r\n--${boundary}--\r\n`);
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    head,
    content,
    tail,
    length: head.length + content.length + tail.length,
  };
}

/** A request line and headers, ready to write; `Host` is taken from `url`. */
export function requestHead(method: string, url: string, headers: Record<string, string | number> = {}): string {
  const { host, pathname, search } = new URL(url);
  const lines = [`${method} ${pathname}${search} HTTP/1.1`, `Host: ${host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}
