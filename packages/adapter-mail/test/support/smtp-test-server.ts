import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { SMTPServer, type SMTPServerError } from "smtp-server";

/** A message as the test server received it. */
export interface ReceivedMail {
  readonly envelopeFrom: string | undefined;
  readonly envelopeTo: string[];
  /** The user the client logged in as, if it did. */
  readonly user: string | undefined;
  readonly raw: string;
}

export interface SmtpTestServer {
  readonly port: number;
  readonly received: ReceivedMail[];
  /** Every login attempt, successful or not, in order. */
  readonly logins: { username: string | undefined; password: string | null | undefined }[];
  close(): Promise<void>;
}

export interface SmtpTestServerOptions {
  /** When set, the server requires a login with exactly these credentials. */
  readonly credentials?: { user: string; pass: string };
  /** When set, every recipient is refused with this SMTP reply code. */
  readonly rejectRecipientsWith?: number;
}

/**
 * A real SMTP server on 127.0.0.1 and a free port. Plain text only: STARTTLS is hidden so
 * that nodemailer does not try to upgrade against the self-signed test certificate, and
 * AUTH is allowed without TLS because the connection never leaves the loopback.
 */
export async function startSmtpTestServer(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const logins: SmtpTestServer["logins"] = [];
  const { credentials, rejectRecipientsWith } = options;

  const server = new SMTPServer({
    secure: false,
    hideSTARTTLS: true,
    allowInsecureAuth: true,
    authOptional: credentials === undefined,
    logger: false,
    // Lets close() finish promptly even if a client is still connected.
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username, password: auth.password });
      if (credentials !== undefined && auth.username === credentials.user && auth.password === credentials.pass) {
        callback(null, { user: auth.username });
      } else {
        callback(new Error("Invalid username or password"));
      }
    },
    onRcptTo(_address, _session, callback) {
      if (rejectRecipientsWith === undefined) return callback();
      const error: SMTPServerError = new Error("Mailbox unavailable");
      error.responseCode = rejectRecipientsWith;
      callback(error);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const from = session.envelope.mailFrom;
        received.push({
          envelopeFrom: from === false ? undefined : from.address,
          envelopeTo: session.envelope.rcptTo.map((recipient) => recipient.address),
          user: typeof session.user === "string" ? session.user : undefined,
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });

  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  return {
    port: portOf(server.server),
    received,
    logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port on 127.0.0.1 that nothing listens on: bound once to learn a free one, then released. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = portOf(server);
  await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
  return port;
}

/** A TCP server that accepts connections and never says a word, as a hung mail server would. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: portOf(server),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function portOf(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("The server is not listening on TCP.");
  return address.port;
}
