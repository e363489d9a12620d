import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@cellar/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createOutboxMailer,
  DEV_MODE_INVITATION_LOG_MESSAGE,
  DEV_MODE_LOG_MESSAGE,
  DEV_MODE_MENTION_LOG_MESSAGE,
  DEV_MODE_WEBHOOK_LOG_MESSAGE,
  type OutboxMailer,
} from "../src/index.js";
import { anInvitation, FILE_URL, INJECTION } from "./support/invitation-mail.js";
import { aMention } from "./support/mention-mail.js";
import { decodeHeader, parseMessage, partOf } from "./support/parse-message.js";
import { aMail, LINK } from "./support/sign-in-mail.js";

let root: string;
/** The outbox, one level below the temp dir so that the mailer must create it. */
let dir: string;
let logged: { message: string; fields: Record<string, unknown> }[];

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "cellar-outbox-"));
  dir = join(root, "outbox");
  logged = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function anOutbox(clock?: Clock): OutboxMailer {
  return createOutboxMailer({
    dir,
    from: "Cellar <no-reply@localhost>",
    log: (message, fields) => logged.push({ message, fields }),
    ...(clock === undefined ? {} : { clock }),
  });
}

describe("createOutboxMailer", () => {
  it("writes each mail as one .eml file, creating the outbox", async () => {
    await anOutbox().sendSignInLink(aMail());

    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-[0-9a-f]{12}\.eml$/);
  });

  it("writes a real message with the headers, a text part holding the link and an HTML part", async () => {
    await anOutbox().sendSignInLink(aMail());

    const [file] = await readdir(dir);
    const message = parseMessage(await readFile(join(dir, file ?? ""), "utf8"));
    expect(message.headers.get("from")).toBe("Cellar <no-reply@localhost>");
    expect(message.headers.get("to")).toBe("ada@example.com");
    expect(message.headers.get("subject")).toBe("Your Cellar sign-in link");
    expect(message.headers.get("message-id")).toMatch(/^<.+@.+>$/);
    expect(message.headers.get("mime-version")).toBe("1.0");
    expect(message.contentType).toBe("multipart/alternative");
    expect(partOf(message, "text/plain")).toContain(LINK);
    expect(partOf(message, "text/plain")).toContain("valid for 10 minutes");
    expect(partOf(message, "text/html")).toContain(`<a href="${LINK}">`);
  });

  it("keeps the link whole on a line of its own in the file itself, so that it can be copied from it", async () => {
    const long = `http://cellar.example.org:8443/some/long/prefix/sign-in?token=${"b".repeat(43)}`;
    await anOutbox().sendSignInLink(aMail({ link: long }));
    const [file] = await readdir(dir);
    const raw = await readFile(join(dir, file ?? ""), "utf8");
    const textPart = raw.slice(0, raw.indexOf("Content-Type: text/html"));
    expect(textPart.split("\r\n")).toContain(long);
    expect(textPart).toContain("Content-Transfer-Encoding: 7bit");
    expect(textPart).not.toContain("=3D");
  });

  it("tells a person at the terminal the link alone on a line, with whom it is for", async () => {
    const said: string[] = [];
    await createOutboxMailer({
      dir,
      from: "Cellar <no-reply@localhost>",
      log: () => {},
      announce: (text) => said.push(text),
    }).sendSignInLink(aMail());
    expect(said).toHaveLength(1);
    expect(said[0]?.split("\n")).toContain(LINK);
    expect(said[0]).toContain("ada@example.com");
  });

  it("ends every line of the file in CRLF, as RFC 5322 wants", async () => {
    await anOutbox().sendSignInLink(aMail());

    const [file] = await readdir(dir);
    const raw = await readFile(join(dir, file ?? ""), "utf8");
    expect(raw).toContain("\r\n");
    expect(raw).not.toMatch(/(?<!\r)\n/);
  });

  it("logs exactly one dev-mode line per mail, with the link, the recipient and the file", async () => {
    await anOutbox().sendSignInLink(aMail());

    const [file] = await readdir(dir);
    expect(logged).toEqual([
      {
        message: DEV_MODE_LOG_MESSAGE,
        fields: { devMode: true, to: "ada@example.com", link: LINK, path: join(dir, file ?? "") },
      },
    ]);
    expect(logged[0]?.message).toMatch(/DEV MODE/);
  });

  it("writes two mails to two files with distinct names, and one line each", async () => {
    const outbox = anOutbox();
    await outbox.sendSignInLink(aMail({ to: "ada@example.com" }));
    await outbox.sendSignInLink(aMail({ to: "grace@example.com" }));

    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(new Set(files).size).toBe(2);
    expect(logged.map((line) => line.fields.to)).toEqual(["ada@example.com", "grace@example.com"]);
    expect(new Set(logged.map((line) => line.fields.path)).size).toBe(2);
  });

  it("keeps two mails of the same millisecond apart", async () => {
    const sameInstant: Clock = { now: () => new Date("2026-01-01T00:00:00.000Z") };
    const outbox = anOutbox(sameInstant);
    await Promise.all([outbox.sendSignInLink(aMail()), outbox.sendSignInLink(aMail())]);

    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.every((file) => file.startsWith("2026-01-01T00-00-00.000Z-"))).toBe(true);
  });

  it("names files so that they sort by the time they were written", async () => {
    const instants = ["2026-01-01T09:59:59.999Z", "2026-01-01T10:00:00.000Z", "2026-01-02T00:00:00.000Z"];
    let next = 0;
    const outbox = anOutbox({ now: () => new Date(instants[next++] ?? "") });
    for (const to of ["a@example.com", "b@example.com", "c@example.com"]) await outbox.sendSignInLink(aMail({ to }));

    const files = (await readdir(dir)).sort();
    const recipients = await Promise.all(
      files.map(async (file) => parseMessage(await readFile(join(dir, file), "utf8")).headers.get("to")),
    );
    expect(recipients).toEqual(["a@example.com", "b@example.com", "c@example.com"]);
  });

  it("leaves no temporary file behind", async () => {
    const outbox = anOutbox();
    await Promise.all([outbox.sendSignInLink(aMail()), outbox.sendSignInLink(aMail())]);

    const files = await readdir(dir);
    expect(files.filter((file) => !file.endsWith(".eml"))).toEqual([]);
  });

  it("keeps the files readable by their owner only", async () => {
    await anOutbox().sendSignInLink(aMail());

    const [file] = await readdir(dir);
    expect((await stat(join(dir, file ?? ""))).mode & 0o777).toBe(0o600);
  });

  it("rejects and logs nothing when the outbox cannot be created", async () => {
    await writeFile(dir, "a file where the outbox folder should be");

    await expect(anOutbox().sendSignInLink(aMail())).rejects.toThrow();
    expect(logged).toEqual([]);
  });
});

describe("createOutboxMailer: sendMention", () => {
  it("writes the mention as one .eml file of one plain-text part and logs one line naming the person and the file", async () => {
    await anOutbox().sendMention(aMention());

    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    const path = join(dir, files[0] ?? "");
    const message = parseMessage(await readFile(path, "utf8"));
    expect(message.headers.get("to")).toBe("grace@example.com");
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("Ada Lovelace mentioned you on “Budget 2026.xlsx”");
    expect(message.contentType).toBe("text/plain");
    expect(partOf(message, "text/plain")).toContain("> The second looks high.");
    expect(logged).toEqual([
      {
        message: DEV_MODE_MENTION_LOG_MESSAGE,
        fields: { devMode: true, to: "grace@example.com", fileId: "file_abcdefghijklmnopqrstuvwx", path },
      },
    ]);
  });
});

describe("createOutboxMailer: sendWebhookDisabled", () => {
  it("writes the mail of a webhook turned off: plain text, its URL on one line, the Account page's link alone", async () => {
    await anOutbox().sendWebhookDisabled({
      to: "ada@example.com",
      hookId: "hook_abcdefghijklmnopqrstuvwx",
      url: "https://hooks.example/in?x=1\nBcc: eve@example.com",
      failingSince: new Date("2026-11-27T10:00:00.000Z"),
      accountUrl: "https://files.example.org/account",
    });
    const files = await readdir(dir);
    const path = join(dir, files[0] ?? "");
    const message = parseMessage(await readFile(path, "utf8"));
    expect(message.headers.get("to")).toBe("ada@example.com");
    expect(message.headers.get("bcc")).toBeUndefined();
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("A Cellar webhook was turned off");
    const lines = partOf(message, "text/plain").split(/\r?\n/);
    expect(lines).toContain("https://files.example.org/account");
    expect(lines.some((line) => line.startsWith("Bcc:"))).toBe(false);
    expect(lines.join("\n")).toContain("hook_abcdefghijklmnopqrstuvwx since 2026-11-27T10:00:00.000Z");
    expect(logged).toEqual([
      {
        message: DEV_MODE_WEBHOOK_LOG_MESSAGE,
        fields: { devMode: true, to: "ada@example.com", hookId: "hook_abcdefghijklmnopqrstuvwx", path },
      },
    ]);
  });
});

describe("createOutboxMailer: sendInvitation", () => {
  /** The one file in the outbox, as written. */
  async function theFile(): Promise<{ path: string; raw: string }> {
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    const path = join(dir, files[0] ?? "");
    return { path, raw: await readFile(path, "utf8") };
  }

  it("writes the invitation as one .eml file of one plain-text part", async () => {
    await anOutbox().sendInvitation(anInvitation());

    const message = parseMessage((await theFile()).raw);
    expect(message.headers.get("from")).toBe("Cellar <no-reply@localhost>");
    expect(message.headers.get("to")).toBe("grace@example.com");
    expect(decodeHeader(message.headers.get("subject") ?? "")).toBe("Ada Lovelace shared “Budget 2026.xlsx” with you");
    expect(message.headers.get("mime-version")).toBe("1.0");
    expect(message.contentType).toBe("text/plain");
    const text = partOf(message, "text/plain");
    expect(text).toContain("Ada Lovelace (ada@example.com) shared a file with you");
    expect(text).toContain("    Budget 2026.xlsx");
    expect(text).toContain("> The second sheet is the one to check.");
  });

  it("keeps the file's link whole on a line of its own in the file itself, as 7bit", async () => {
    const long = `http://cellar.example.org:8443/some/rather/long/prefix/files/file_${"c".repeat(24)}`;
    await anOutbox().sendInvitation(anInvitation({ fileUrl: long }));

    const { raw } = await theFile();
    expect(raw.split("\r\n")).toContain(long);
    expect(parseMessage(raw).headers.get("content-transfer-encoding")).toBe("7bit");
  });

  it("ends every line in CRLF, text beyond ASCII included", async () => {
    await anOutbox().sendInvitation(anInvitation({ ownerName: "Zoë", message: "Grüße\nund\r\nbis bald" }));

    const { raw } = await theFile();
    expect(raw).not.toMatch(/(?<!\r)\n/);
    const text = partOf(parseMessage(raw), "text/plain");
    expect(text).toContain("> Grüße\r\n> und\r\n> bis bald");
    expect(text.split("\r\n")).toContain(FILE_URL);
  });

  it("lets no name or note add a header", async () => {
    await anOutbox().sendInvitation(anInvitation(INJECTION));

    const message = parseMessage((await theFile()).raw);
    expect(message.headers.has("bcc")).toBe(false);
    expect(message.headers.has("x-injected")).toBe(false);
  });

  it("logs one dev-mode line naming the person, the file and the .eml, and announces nothing", async () => {
    const said: string[] = [];
    await createOutboxMailer({
      dir,
      from: "Cellar <no-reply@localhost>",
      log: (message, fields) => logged.push({ message, fields }),
      announce: (text) => said.push(text),
    }).sendInvitation(anInvitation());

    const { path } = await theFile();
    expect(logged).toEqual([
      {
        message: DEV_MODE_INVITATION_LOG_MESSAGE,
        fields: { devMode: true, to: "grace@example.com", fileId: "file_abcdefghijklmnopqrstuvwx", path },
      },
    ]);
    expect(said).toEqual([]);
  });

  it("keeps the file readable by its owner only", async () => {
    await anOutbox().sendInvitation(anInvitation());

    expect((await stat((await theFile()).path)).mode & 0o777).toBe(0o600);
  });

  it("rejects and logs nothing when the outbox cannot be created", async () => {
    await writeFile(dir, "a file where the outbox folder should be");

    await expect(anOutbox().sendInvitation(anInvitation())).rejects.toThrow();
    expect(logged).toEqual([]);
  });
});
