/**
 * Uploading a file from disk in Node, as cheaply as curl does it.
 *
 * Why not `fetch` (the portable `upload()`): on the two cores a server and its client
 * often share, the client's CPU is taken from the server. `fetch` streams a body through
 * web streams, and a file read by a stream comes in a new buffer for every piece: for
 * 100 MiB that measured 0.35–0.5 s of CPU in the client against curl's 0.06, and the
 * upload took 1.6× curl's time (docs/performance.md, `cli_upload_ratio`). Here two
 * buffers are read into in turn, each written to the socket only once the write before
 * it has been taken, so no piece is allocated and none is overwritten while the socket
 * still holds it; progress counts what the socket has taken. A file's new content
 * (`replaceContentFromFile`) goes the same way.
 */
import type { ClientRequest, IncomingMessage } from "node:http";
import { basename } from "node:path";
import { ifMatchOf, type ReplaceContentOptions } from "../content.js";
import { apiError } from "../errors.js";
import { type CellarFile, multipartFraming, type UploadOptions } from "../upload.js";

/** Bytes read from disk and written at a time, in each of the two buffers. */
const PIECE_BYTES = 1024 * 1024;

export interface UploadFileTarget {
  /** Where the server is, without `/v1`. */
  readonly baseUrl: string;
  readonly token?: string;
}

export interface UploadFileOptions extends UploadOptions {
  /** The file's name as sent (its extension decides the type); default: the path's last part. */
  readonly fileName?: string;
}

function answerOf(request: ClientRequest): Promise<{ response: IncomingMessage; text: string }> {
  return new Promise((resolve, reject) => {
    request.once("error", reject);
    request.once("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
      });
      response.once("end", () => resolve({ response, text }));
      response.once("error", reject);
    });
  });
}

/**
 * The file at `path`, opened for reading, by descriptor through node:fs taken as Node's
 * own module: an ES import of node:fs or node:fs/promises loads their every lazy part
 * (the promise API, readline, the file watchers, streams), 6–8 ms of every upload's start.
 */
async function openForReading(path: string) {
  const { close, fstat, open, read } = process.getBuiltinModule("node:fs");
  const fd = await new Promise<number>((resolve, reject) =>
    open(path, "r", (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  return {
    size: () =>
      new Promise<number>((resolve, reject) =>
        fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats.size))),
      ),
    read: (buffer: Buffer, length: number, position: number) =>
      new Promise<number>((resolve, reject) =>
        read(fd, buffer, 0, length, position, (error, bytesRead) => (error ? reject(error) : resolve(bytesRead))),
      ),
    close: () => new Promise<void>((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve()))),
  };
}

/** What `sendFile` sends, besides the file's bytes. */
interface FileRequest {
  readonly method: "POST" | "PUT";
  /** The route, after `/v1`: `/files`. */
  readonly route: string;
  readonly contentType: string;
  /** Bytes before and after the file's (a multipart form's framing). */
  readonly head?: Uint8Array;
  readonly tail?: Uint8Array;
  readonly headers?: Readonly<Record<string, string>>;
  /** The status of success: what any other status below 400 is not. */
  readonly status: 200 | 201;
  /** What the server refused when it closed the connection mid-body, for the error that says so. */
  readonly refused: string;
}

/** Sends the file at `path` as it is on disk now as the body of `request`, and answers the file the API answered. */
async function sendFile(
  target: UploadFileTarget,
  path: string,
  fileRequest: FileRequest,
  options: { onProgress?: ((sent: number, total: number) => void) | undefined; signal?: AbortSignal | undefined },
): Promise<CellarFile> {
  options.signal?.throwIfAborted();
  const head = fileRequest.head ?? new Uint8Array(0);
  const tail = fileRequest.tail ?? new Uint8Array(0);
  const file = await openForReading(path);
  try {
    const size = await file.size();
    const url = new URL(`${target.baseUrl.replace(/\/+$/, "")}/v1${fileRequest.route}`);
    // Taken as Node's own module, not imported: an import of node:http loads fetch's
    // undici with it (10–16 ms of a command's start), and node:https (TLS) is loaded only
    // for an https server.
    const { request: send } = process.getBuiltinModule(url.protocol === "https:" ? "node:https" : "node:http");
    const request = send(url, {
      method: fileRequest.method,
      headers: {
        ...fileRequest.headers,
        "content-type": fileRequest.contentType,
        "content-length": head.length + size + tail.length,
        ...(target.token === undefined ? {} : { authorization: `Bearer ${target.token}` }),
      },
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const answer = answerOf(request);
    // An answer before the whole body (a refusal: 413, 415, 401) stops the sending.
    let answered = false;
    answer.then(
      () => {
        answered = true;
      },
      () => {
        answered = true;
      },
    );
    const written = (chunk: Uint8Array) =>
      new Promise<void>((resolve, reject) => request.write(chunk, (error) => (error ? reject(error) : resolve())));

    const sending = (async () => {
      if (head.length > 0) await written(head);
      const buffers = [Buffer.allocUnsafeSlow(PIECE_BYTES), Buffer.allocUnsafeSlow(PIECE_BYTES)];
      let read = 0;
      let sent = 0;
      let previous: Promise<void> = Promise.resolve();
      for (let turn = 0; read < size && !answered; turn++) {
        // This buffer's last write (two turns ago) was awaited in the turn before: it is
        // free, while the other one may still be being written.
        const buffer = buffers[turn % 2] as Buffer;
        const bytesRead = await file.read(buffer, Math.min(PIECE_BYTES, size - read), read);
        if (bytesRead === 0) throw new Error(`${path} became shorter while it was being uploaded.`);
        read += bytesRead;
        await previous;
        previous = written(buffer.subarray(0, bytesRead)).then(() => {
          sent += bytesRead;
          options.onProgress?.(sent, size);
        });
        // A write that fails (the server closed the connection) is awaited on the next
        // turn: until then it is not an unhandled rejection.
        previous.catch(() => {});
      }
      await previous;
      if (!answered) {
        if (tail.length > 0) request.end(tail);
        else request.end();
      }
    })();
    sending.catch((error: unknown) => request.destroy(error as Error));

    const { response, text } = await answer.catch((error: NodeJS.ErrnoException) => {
      // The server stopped reading and closed the connection: it refused the body, and
      // its answer was lost with the connection.
      if (error.code === "EPIPE" || error.code === "ECONNRESET") {
        throw new Error(
          `The server closed the connection before the whole file was sent: it refused ${fileRequest.refused}, and its answer was lost with the connection.`,
          { cause: error },
        );
      }
      throw error;
    });
    // Answered before the whole body was sent: the connection is mid-request, of no
    // further use.
    if (!request.writableFinished) request.destroy();
    const status = response.statusCode ?? 500;
    if (status >= 400) {
      const headers = new Headers();
      const retryAfter = response.headers["retry-after"];
      if (typeof retryAfter === "string") headers.set("retry-after", retryAfter);
      throw await apiError(new Response(text, { status, headers }));
    }
    if (status !== fileRequest.status) {
      // A redirect (http to https, another host) or a server that is not Cellar's.
      const location = response.headers.location;
      throw new Error(
        `The server answered ${status}${location ? ` (to ${location})` : ""} instead of storing the file: is ${target.baseUrl} the Cellar server's address?`,
      );
    }
    await sending;
    try {
      return JSON.parse(text) as CellarFile;
    } catch {
      throw new Error(
        `The server answered ${status} but not with a file: is ${target.baseUrl} the Cellar server's address?`,
      );
    }
  } finally {
    await file.close();
  }
}

/** Uploads the file at `path` as it is on disk now. */
export function uploadFile(
  target: UploadFileTarget,
  path: string,
  options: UploadFileOptions = {},
): Promise<CellarFile> {
  const framing = multipartFraming(options.fileName ?? basename(path), options);
  return sendFile(
    target,
    path,
    {
      method: "POST",
      route: "/files",
      contentType: framing.contentType,
      head: framing.head,
      tail: framing.tail,
      status: 201,
      refused: "the upload (a file too large or not a .csv, .xlsx or .sheet, a name or visibility it does not accept)",
    },
    options,
  );
}

/**
 * Replaces the content of the file `fileId` with the file at `path` as it is on disk now
 * (`PUT /files/{id}/content`), as cheaply as `uploadFile` sends one: the file's next
 * version, same name and type, based on the content `ifMatch` names.
 */
export function replaceContentFromFile(
  target: UploadFileTarget,
  fileId: string,
  path: string,
  options: ReplaceContentOptions,
): Promise<CellarFile> {
  return sendFile(
    target,
    path,
    {
      method: "PUT",
      route: `/files/${encodeURIComponent(fileId)}/content`,
      contentType: "application/octet-stream",
      headers: { "if-match": ifMatchOf(options.ifMatch) },
      status: 200,
      refused: "the new content (a file too large, bytes not of the file's type, or a content changed since If-Match)",
    },
    options,
  );
}
