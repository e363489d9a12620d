import { afterEach, describe, expect, it } from "vitest";
import { createSmtpMailer, SmtpMailError, type SmtpMailer } from "../src/index.js";
import { anInvitation, FILE_URL, INJECTION } from "./support/invitation-mail.js";
import { aMention } from "./support/mention-mail.js";
import { decodeHeader, parseMessage, partOf } from "./support/parse-message.js";
import { aMail, LINK, TOKEN } from "./support/sign-in-mail.js";
import { type SmtpTestServer, startSilentServer, startSmtpTestServer, unusedPort } from "./support/smtp-test-server.js";

const FROM = "Cellar <no-reply@example.org>";
const MAIL = aMail();

// Everything a test opens, closed after it whatever its outcome.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function aServer(options: Parameters<typeof startSmtpTestServer>[0] = {}): Promise<SmtpTestServer> {
  const server = await startSmtpTestServer(options);
  cleanups.push(() => server.close());
  return server;
}

function aMailer(smtpUrl: string, timeouts: { greetingTimeoutMs?: number } = {}): SmtpMailer {
  const mailer = createSmtpMailer({ smtpUrl, from: FROM, connectionTimeoutMs: 1000, ...timeouts });
  cleanups.push(() => mailer.close());
  return mailer;
}

/** Sends and returns the rejection, failing the test if the send resolved. */
async function rejectionOf(promise: Promise<void>): Promise<SmtpMailError> {
  const error = await promise.then(
    () => expect.fail("the send resolved, but it should have rejected"),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SmtpMailError);
  return error as SmtpMailError;
}

function expectNoSecretIn(error: SmtpMailError): void {
  expect(error.message).not.toContain(LINK);
  expect(error.message).not.toContain(TOKEN);
  expect(error.stack ?? "").not.toContain(TOKEN);
  expect(error.cause).toBeUndefined();
}

describe("createSmtpMailer", () => {
  it("hands the mail to the SMTP server, from the sender to the recipient, with a text and an HTML part", async () => {
    const server = await aServer();
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendSignInLink(MAIL);

    expect(server.received).toHaveLength(1);
    const [received] = server.received;
    expect(received?.envelopeFrom).toBe("no-reply@example.org");
    expect(received?.envelopeTo).toEqual(["ada@example.com"]);
    const message = parseMessage(received?.raw ?? "");
    expect(message.headers.get("from")).toBe("Cellar <no-reply@example.org>");
    expect(message.headers.get("to")).toBe("ada@example.com");
    expect(message.headers.get("subject")).toBe("Your Cellar sign-in link");
    expect(message.leaves.map((leaf) => leaf.contentType)).toEqual(["text/plain", "text/html"]);
    expect(partOf(message, "text/plain")).toContain(LINK);
    expect(partOf(message, "text/html")).toContain(`<a href="${LINK}">`);
  });

  it("logs in with the user and password from the URL, percent-decoded, when the server requires it", async () => {
    const server = await aServer({ credentials: { user: "cellar@example.org", pass: "p@ss:word" } });
    await aMailer(`smtp://cellar%40example.org:p%40ss%3Aword@127.0.0.1:${server.port}`).sendSignInLink(MAIL);

    expect(server.logins).toEqual([{ username: "cellar@example.org", password: "p@ss:word" }]);
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.user).toBe("cellar@example.org");
  });

  it("rejects when the server refuses the login", async () => {
    const server = await aServer({ credentials: { user: "cellar", pass: "right" } });
    const error = await rejectionOf(aMailer(`smtp://cellar:wrong@127.0.0.1:${server.port}`).sendSignInLink(MAIL));

    expect(error.code).toBe("EAUTH");
    expect(server.received).toHaveLength(0);
  });

  it("rejects when the server requires a login and the URL has none", async () => {
    const server = await aServer({ credentials: { user: "cellar", pass: "right" } });
    await rejectionOf(aMailer(`smtp://127.0.0.1:${server.port}`).sendSignInLink(MAIL));

    expect(server.received).toHaveLength(0);
  });

  it("rejects when nothing listens at the address, without the link or token in the error", async () => {
    const port = await unusedPort();
    const error = await rejectionOf(aMailer(`smtp://127.0.0.1:${port}`).sendSignInLink(MAIL));

    expect(error.message).toContain("ECONNREFUSED");
    expectNoSecretIn(error);
  });

  it("rejects when the server never sends its greeting, after the greeting timeout", async () => {
    const server = await startSilentServer();
    cleanups.push(() => server.close());
    const error = await rejectionOf(
      aMailer(`smtp://127.0.0.1:${server.port}`, { greetingTimeoutMs: 200 }).sendSignInLink(MAIL),
    );

    expect(error.code).toBe("ETIMEDOUT");
    expectNoSecretIn(error);
  });

  it("rejects when the server refuses the recipient, naming the command and reply code", async () => {
    const server = await aServer({ rejectRecipientsWith: 550 });
    const error = await rejectionOf(aMailer(`smtp://127.0.0.1:${server.port}`).sendSignInLink(MAIL));

    expect(error).toMatchObject({ code: "EENVELOPE", command: "RCPT TO", responseCode: 550 });
    expectNoSecretIn(error);
    expect(server.received).toHaveLength(0);
  });

  it("rejects once closed, without connecting", async () => {
    const server = await aServer();
    const mailer = aMailer(`smtp://127.0.0.1:${server.port}`);
    await mailer.close();
    const error = await rejectionOf(mailer.sendSignInLink(MAIL));

    expect(error.code).toBe("ECLOSED");
    expect(server.received).toHaveLength(0);
  });

  it.each([
    ["a URL of another scheme", "http://user:s3cret@mail.example.org"],
    ["a URL without a scheme", "user:s3cret@mail.example.org:25"],
    ["something that is not a URL", "mail.example.org s3cret"],
  ])("throws at creation for %s, without echoing any of it", (_case, smtpUrl) => {
    let thrown: unknown;
    try {
      createSmtpMailer({ smtpUrl, from: FROM });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toMatch(/smtp:\/\//);
    expect((thrown as TypeError).message).not.toMatch(/s3cret|mail\.example/);
  });
});

describe("createSmtpMailer: sendMention", () => {
  it("hands the mention to the SMTP server, from the sender to the person, as one plain-text part", async () => {
    const server = await aServer();
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendMention(aMention({ authorName: "Zoë Ærø" }));

    const [received] = server.received;
    expect(received?.envelopeTo).toEqual(["grace@example.com"]);
    const message = parseMessage(received?.raw ?? "");
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("Zoë Ærø mentioned you on “Budget 2026.xlsx”");
    expect(message.leaves.map((leaf) => leaf.contentType)).toEqual(["text/plain"]);
    const text = partOf(message, "text/plain");
    expect(text).toContain("> The second looks high.");
    expect(text.split(/\r?\n/)).toContain(FILE_URL);
  });

  it("rejects when the server refuses the person's address, naming the mention", async () => {
    const server = await aServer({ rejectRecipientsWith: 550 });
    const error = await rejectionOf(aMailer(`smtp://127.0.0.1:${server.port}`).sendMention(aMention()));
    expect(error).toMatchObject({ code: "EENVELOPE", command: "RCPT TO" });
    expect(error.message).toMatch(/mention/);
  });
});

describe("createSmtpMailer: sendInvitation", () => {
  it("hands the invitation to the SMTP server, from the sender to the person, as one plain-text part", async () => {
    const server = await aServer();
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendInvitation(anInvitation());

    expect(server.received).toHaveLength(1);
    const [received] = server.received;
    expect(received?.envelopeFrom).toBe("no-reply@example.org");
    expect(received?.envelopeTo).toEqual(["grace@example.com"]);
    const message = parseMessage(received?.raw ?? "");
    expect(message.headers.get("from")).toBe("Cellar <no-reply@example.org>");
    expect(message.headers.get("to")).toBe("grace@example.com");
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("Ada Lovelace shared “Budget 2026.xlsx” with you");
    expect(message.headers.get("message-id")).toMatch(/^<.+@.+>$/);
    expect(message.headers.get("date")).toBeDefined();
    expect(message.leaves.map((leaf) => leaf.contentType)).toEqual(["text/plain"]);
    const text = partOf(message, "text/plain");
    expect(text).toContain("Ada Lovelace (ada@example.com) shared a file with you");
    expect(text).toContain("Budget 2026.xlsx");
    expect(text).toContain("You are an editor of it.");
    expect(text).toContain("> Here are the figures for Q3.");
  });

  it("sends an ASCII text as 7bit, the link whole on a line of its own however long", async () => {
    const server = await aServer();
    const long = `https://cellar.example.org/a/rather/long/prefix/for/this/instance/files/file_${"b".repeat(24)}`;
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendInvitation(anInvitation({ fileUrl: long }));

    const raw = server.received[0]?.raw ?? "";
    expect(parseMessage(raw).headers.get("content-transfer-encoding")).toBe("7bit");
    expect(raw.split("\r\n")).toContain(long);
  });

  it("encodes names and a note beyond ASCII, which read back as written", async () => {
    const server = await aServer();
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendInvitation(
      anInvitation({ ownerName: "Zoë Ærø", fileName: "Übersicht 2026.xlsx", message: "Grüße, 你好" }),
    );

    const message = parseMessage(server.received[0]?.raw ?? "");
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("Zoë Ærø shared “Übersicht 2026.xlsx” with you");
    const text = partOf(message, "text/plain");
    expect(text).toContain("Zoë Ærø (ada@example.com) shared a file with you");
    expect(text).toContain("> Grüße, 你好");
    expect(text.split(/\r?\n/)).toContain(FILE_URL);
  });

  it("lets no name or note add a header or a recipient", async () => {
    const server = await aServer();
    await aMailer(`smtp://127.0.0.1:${server.port}`).sendInvitation(anInvitation(INJECTION));

    const [received] = server.received;
    expect(received?.envelopeTo).toEqual(["grace@example.com"]);
    const message = parseMessage(received?.raw ?? "");
    expect(message.headers.has("bcc")).toBe(false);
    expect(message.headers.has("x-injected")).toBe(false);
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe(
      "Ada Bcc: eve@evil.example shared “Budget X-Injected: yes.xlsx” with you",
    );
    expect(partOf(message, "text/plain")).toContain("> Bcc: eve@evil.example");
  });

  it("rejects when the server refuses the person's address, naming the invitation", async () => {
    const server = await aServer({ rejectRecipientsWith: 550 });
    const error = await rejectionOf(aMailer(`smtp://127.0.0.1:${server.port}`).sendInvitation(anInvitation()));

    expect(error).toMatchObject({ code: "EENVELOPE", command: "RCPT TO", responseCode: 550 });
    expect(error.message).toMatch(/invitation/);
    expect(server.received).toHaveLength(0);
  });

  it("rejects when nothing listens at the address", async () => {
    const port = await unusedPort();
    const error = await rejectionOf(aMailer(`smtp://127.0.0.1:${port}`).sendInvitation(anInvitation()));

    expect(error.message).toContain("ECONNREFUSED");
  });

  it("rejects once closed, without connecting", async () => {
    const server = await aServer();
    const mailer = aMailer(`smtp://127.0.0.1:${server.port}`);
    await mailer.close();
    const error = await rejectionOf(mailer.sendInvitation(anInvitation()));

    expect(error.code).toBe("ECLOSED");
    expect(server.received).toHaveLength(0);
  });
});
