import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { answerClientError } from "../src/index.js";

/** A socket that records what is written to it instead of sending it. */
function recordingSocket() {
  const socket = new Socket();
  let written = "";
  Object.defineProperty(socket, "writable", { value: true });
  socket.end = ((chunk: string) => {
    written += chunk;
    return socket;
  }) as Socket["end"];
  return { socket, written: () => written };
}

describe("errors Node's HTTP parser raises before a request exists", () => {
  it("answers a timed-out request 408 request_timeout in the error shape and closes", () => {
    const { socket, written } = recordingSocket();
    answerClientError(Object.assign(new Error("timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }), socket);
    const [head = "", body = ""] = written().split("\r\n\r\n");
    expect(head.split("\r\n")).toEqual([
      "HTTP/1.1 408 Request Timeout",
      "Content-Type: application/json; charset=utf-8",
      "Cache-Control: no-store",
      "X-Content-Type-Options: nosniff",
      "Connection: close",
      `Content-Length: ${Buffer.byteLength(body)}`,
    ]);
    expect(JSON.parse(body)).toEqual({
      error: { code: "request_timeout", message: "The request did not arrive in time; the connection is closed." },
    });
  });

  it("answers anything else the parser refuses 400 validation_error", () => {
    const { socket, written } = recordingSocket();
    answerClientError(Object.assign(new Error("Parse Error"), { code: "HPE_INVALID_METHOD" }), socket);
    expect(written()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(written()).toContain(
      '{"error":{"code":"validation_error","message":"The request is not well-formed HTTP."}}',
    );
  });

  it("only destroys a socket it can no longer write to", () => {
    const socket = new Socket();
    Object.defineProperty(socket, "writable", { value: false });
    let destroyed = false;
    socket.destroy = (() => {
      destroyed = true;
      return socket;
    }) as Socket["destroy"];
    answerClientError(new Error("gone"), socket);
    expect(destroyed).toBe(true);
  });
});
