import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { CellarApiError } from "@cellar/client";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { failure } from "../src/failure.js";
import { run } from "../src/index.js";
import { startCellarServer } from "./support/cellar-server.js";
import { cellar, scratchHome } from "./support/run-cli.js";

const server = await startCellarServer();
afterAll(() => server.close());

/** A port of 127.0.0.1 nobody listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A home signed in to the test server as `email` (`cellar login --with-token`). */
async function signedInHome(email: string): Promise<string> {
  const home = scratchHome();
  const token = await server.tokenFor(email);
  const saved = await cellar(["login", "--server", server.url, "--with-token"], { home, stdin: token });
  expect(saved.code).toBe(0);
  return home;
}

describe("signing in and out", () => {
  it("logs in with the link pasted from the mail, keeps the token 0600, and logs out for good", async () => {
    const home = scratchHome();
    const email = "ada@example.com";
    // The link is pasted after the mail is sent: stdin is fed the link as soon as it exists.
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = "";
    stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes("Paste the link") && !stdin.writableEnded) stdin.end(`${server.lastLink(email)}\n`);
    });
    stdin.write(`${email}\n`);
    const code = await run(["login", "--server", server.url], {
      stdin,
      stdout,
      stderr,
      env: { HOME: home },
      cwd: home,
      signal: new AbortController().signal,
    });
    expect(err).toContain("Email: ");
    expect(err).toContain(`Signed in to ${server.url} as ${email}.`);
    expect(code).toBe(0);

    const config = join(home, ".config", "cellar", "config.json");
    expect(statSync(config).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".config", "cellar")).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(readFileSync(config, "utf8")) as { server: string; token: string };
    expect(saved.server).toBe(server.url);

    const whoami = await cellar(["whoami"], { home });
    expect(whoami).toMatchObject({ code: 0, stdout: `${email} (ada) on ${server.url}\n` });

    expect(await cellar(["logout"], { home })).toMatchObject({ code: 0, stderr: `Signed out of ${server.url}.\n` });
    // Forgotten here, and revoked on the server.
    expect(JSON.parse(readFileSync(config, "utf8"))).toEqual({ server: server.url });
    const signedOut = await cellar(["whoami"], { home });
    expect(signedOut.code).toBe(4);
    expect(signedOut.stderr).toBe(`cellar: Not signed in to ${server.url}: run \`cellar login\`.\n`);
    const revoked = await cellar(["whoami"], { home, env: { CELLAR_TOKEN: saved.token } });
    expect(revoked.code).toBe(4);
    expect(revoked.stderr).toMatch(/^cellar: .+ Sign in again: cellar login\.\n$/);
  });

  it("takes a token on stdin or from CELLAR_TOKEN, and never sends the saved one to another server", async () => {
    const token = await server.tokenFor("bo@example.com");
    const fromEnv = await cellar(["whoami", "--server", server.url, "--quiet"], {
      home: scratchHome(),
      env: { CELLAR_TOKEN: token },
    });
    expect(fromEnv).toMatchObject({ code: 0, stdout: "bo@example.com\n" });

    const home = scratchHome();
    // A configuration folder made before, open to all: tightened when the token goes in.
    mkdirSync(join(home, ".config", "cellar"), { recursive: true, mode: 0o755 });
    expect(
      await cellar(["login", "--server", server.url, "--with-token"], { home, stdin: `${token}\n` }),
    ).toMatchObject({
      code: 0,
    });
    expect(statSync(join(home, ".config", "cellar")).mode & 0o777).toBe(0o700);
    const me = await cellar(["whoami", "--json"], { home });
    expect(JSON.parse(me.stdout)).toMatchObject({ email: "bo@example.com", server: server.url });
    // Another server: the saved token stays home. One that does not answer is said to be so.
    const nowhere = `http://127.0.0.1:${await closedPort()}`;
    const elsewhere = await cellar(["whoami", "--server", nowhere], { home });
    expect(elsewhere).toMatchObject({ code: 1, stderr: `cellar: Cannot reach ${nowhere}: ECONNREFUSED.\n` });

    const refused = await cellar(["login", "--server", server.url, "--with-token"], { home, stdin: "not-a-jwt\n" });
    expect(refused.code).toBe(4);
  });

  it("refuses a malformed token without ever printing it", async () => {
    const secret = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.c2lnbmF0dXJl";
    const split = await cellar(["whoami", "--server", server.url], {
      home: scratchHome(),
      env: { CELLAR_TOKEN: `${secret}\nsecond-line` },
    });
    expect(split.code).toBe(4);
    expect(split.stderr).toBe(
      "cellar: CELLAR_TOKEN is neither a session nor an access token: sign in with `cellar login`.\n",
    );
    const piped = await cellar(["login", "--server", server.url, "--with-token"], {
      home: scratchHome(),
      stdin: `${secret}\n${secret}\n`,
    });
    expect(piped.code).toBe(4);
    expect(`${piped.stdout}${piped.stderr}`).not.toContain("c2VjcmV0");
  });

  it("stops at Ctrl-C with status 130 while the server keeps it waiting", async () => {
    const silent = createServer(() => {
      // Accepts the connection and never answers.
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const interrupt = new AbortController();
      const started = performance.now();
      setTimeout(() => interrupt.abort(), 200);
      const run = await cellar(["whoami", "--server", `http://127.0.0.1:${(silent.address() as AddressInfo).port}`], {
        home: scratchHome(),
        env: { CELLAR_TOKEN: "a.b.c" },
        signal: interrupt.signal,
      });
      expect(run).toMatchObject({ code: 130, stderr: "cellar: Interrupted.\n" });
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });

  it("renames the account", async () => {
    const home = await signedInHome("cy@example.com");
    expect(await cellar(["set-name", "Cy Young"], { home })).toMatchObject({
      code: 0,
      stderr: "You are now Cy Young.\n",
    });
    expect((await cellar(["whoami"], { home })).stdout).toBe(`cy@example.com (Cy Young) on ${server.url}\n`);
  });
});

describe("access tokens and sessions", () => {
  it("makes a token a script signs in with through CELLAR_TOKEN, lists it without its value, and deletes it", async () => {
    const home = await signedInHome("tia@example.com");
    const made = await cellar(["token", "create", "nightly import", "--scope", "write", "--days", "30"], { home });
    expect(made.code).toBe(0);
    const token = made.stdout.trim();
    expect(token).toMatch(/^cellar_pat_[A-Za-z0-9_-]{43}$/);
    expect(made.stderr).toMatch(
      /^Made write token nightly import \(tok_[a-z2-7]{24}\), until \d{4}-\d\d-\d\d \d\d:\d\d\. It is shown this once/,
    );

    // A script with nothing but the server and the token: no login, no saved session.
    const script = { home: scratchHome(), env: { CELLAR_SERVER: server.url, CELLAR_TOKEN: token } };
    writeFileSync(join(script.home, "report.csv"), "day,total\nmon,5\n");
    const uploaded = await cellar(["upload", "report.csv", "--quiet"], { ...script, cwd: script.home });
    expect(uploaded.code, uploaded.stderr).toBe(0);
    const id = uploaded.stdout.trim();
    expect(await cellar(["append", id, "--from", "-"], { ...script, stdin: "tue,7\n" })).toMatchObject({ code: 0 });
    expect((await cellar(["cells", id, "A1:B3"], { home })).stdout).toBe("day,total\nmon,5\ntue,7\n");

    const listed = await cellar(["token", "ls"], { home });
    expect(listed.stdout).toMatch(
      /^ID +NAME +SCOPE +CREATED +EXPIRES +LAST USED\ntok_[a-z2-7]{24} +nightly import +write +/,
    );
    expect(listed.stdout).not.toContain("cellar_pat_");
    // Managing tokens is for a signed-in session only.
    const byToken = await cellar(["token", "ls"], script);
    expect(byToken.code).not.toBe(0);
    expect(byToken.stderr).toContain("managed only from a signed-in session");

    const tokenId = (await cellar(["token", "ls", "--quiet"], { home })).stdout.trim();
    expect(await cellar(["token", "rm", tokenId], { home })).toMatchObject({ code: 0 });
    expect((await cellar(["whoami"], script)).code).toBe(4);
    expect((await cellar(["token", "ls"], { home })).stderr).toContain("No access tokens");
  });

  it("lists where you are signed in and signs another one out", async () => {
    const laptop = await signedInHome("eli@example.com");
    const phone = await signedInHome("eli@example.com");
    const listed = await cellar(["sessions", "--json"], { home: laptop });
    const sessions = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; current: boolean });
    expect(sessions).toHaveLength(2);
    expect(sessions.filter((session) => session.current)).toHaveLength(1);
    const other = sessions.find((session) => !session.current)?.id as string;
    expect((await cellar(["sessions"], { home: laptop })).stdout).toContain("(this one)");
    expect(await cellar(["sessions", "rm", other], { home: laptop })).toMatchObject({
      code: 0,
      stderr: `Signed out ${other}: it is refused from now on.\n`,
    });
    expect((await cellar(["whoami"], { home: phone })).code).toBe(4);
    expect((await cellar(["whoami"], { home: laptop })).code).toBe(0);
  });
});

describe("webhooks", () => {
  it("adds one (its secret shown once), lists it, lists its delivery attempts and removes it", async () => {
    const home = await signedInHome("wes@example.com");
    writeFileSync(join(home, "hooked.csv"), "a,b\n1,2\n");
    const fileId = (await cellar(["upload", "hooked.csv", "--quiet"], { home, cwd: home })).stdout.trim();
    const made = await cellar(["webhook", "add", "https://hooks.example/in", "--events", "file,comment"], { home });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toMatch(/^whsec_[A-Za-z0-9_-]{43}\n$/);
    expect(made.stderr).toMatch(
      /^Made webhook hook_[a-z2-7]{24} to https:\/\/hooks\.example\/in, for file,comment events of your files and those shared with you\. Its secret is shown this once/,
    );
    const one = await cellar(["webhook", "add", "https://hooks.example/one", "--file", fileId, "--json"], { home });
    expect(JSON.parse(one.stdout)).toMatchObject({
      events: ["file", "content", "permissions", "comment"],
      file_id: fileId,
    });

    const listed = await cellar(["webhook", "ls"], { home });
    expect(listed.stdout).toMatch(
      /^ID +URL +EVENTS +FILE +ACTIVE +CREATED\nhook_[a-z2-7]{24} +https:\/\/hooks\.example\/one +\* +file_/,
    );
    expect(listed.stdout).toMatch(/https:\/\/hooks\.example\/in +file,comment +\(all\) +yes +/);
    expect(listed.stdout).not.toContain("whsec_");
    const [oneId, hookId] = (await cellar(["webhook", "ls", "--quiet"], { home })).stdout.trim().split("\n");

    const none = await cellar(["webhook", "deliveries", hookId as string], { home });
    expect(none).toMatchObject({ code: 0, stdout: "" });
    expect(none.stderr).toContain("No delivery attempts yet");

    // A rename, fed to the queue and delivered: one attempt, answered 200.
    const dispatch = server.cellar.webhookDispatch;
    if (dispatch === undefined) throw new Error("no webhooks");
    await dispatch.feed();
    expect(await cellar(["rename", fileId, "renamed.csv"], { home })).toMatchObject({ code: 0 });
    while ((await dispatch.feed()).entries > 0) {}
    while ((await dispatch.deliverDue()) > 0) {}
    const attempts = await cellar(["webhook", "deliveries", hookId as string], { home });
    expect(attempts.stdout).toMatch(
      /^WHEN +EVENT +ATTEMPT +STATUS +MS +ERROR\n\d{4}-\d\d-\d\d \d\d:\d\d +evt_[a-z2-7]+ +1 +200 +3 *\n$/,
    );

    expect(await cellar(["webhook", "rm", oneId as string], { home })).toMatchObject({
      code: 0,
      stderr: `Deleted ${oneId}: nothing more is delivered to it.\n`,
    });
    expect((await cellar(["webhook", "ls", "--quiet"], { home })).stdout).toBe(`${hookId}\n`);
  });

  it("refuses bad input: unknown kinds before asking, a refused address as the server says", async () => {
    const home = await signedInHome("wyn@example.com");
    const badKind = await cellar(["webhook", "add", "https://hooks.example/in", "--events", "file,presence"], { home });
    expect(badKind).toMatchObject({ code: EXIT.usage });
    expect(badKind.stderr).toContain("not presence");
    const refused = await cellar(["webhook", "add", "https://refused.example/in"], { home });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("url");
    expect(refused.stdout).toBe("");
    expect((await cellar(["webhook", "ls"], { home })).stderr).toContain("No webhooks");
  });
});

describe("files", () => {
  let home = "";
  beforeAll(async () => {
    home = await signedInHome("dee@example.com");
    writeFileSync(join(home, "budget.csv"), "item,amount\nrent,1200\nfood,300\n");
    writeFileSync(join(home, "notes.csv"), "a;b\n1;2\n");
    writeFileSync(join(home, "plain.sheet"), "opaque bytes");
  });

  it("uploads several files and lists them as a table, NDJSON or ids", async () => {
    const upload = await cellar(["upload", "budget.csv", "notes.csv", "plain.sheet"], { home });
    expect(upload.code).toBe(0);
    const lines = upload.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^file_[a-z2-7]{24} {2}\S+ {2}\d+ B$/);
    // Not a terminal: no progress bar.
    expect(upload.stderr).toBe("");

    const table = await cellar(["ls"], { home });
    expect(table.stdout.split("\n")[0]).toMatch(/^ID +SIZE +VISIBILITY +UPDATED +NAME$/);
    expect(table.stdout).toContain("budget.csv");
    const ndjson = (await cellar(["ls", "--json"], { home })).stdout.trim().split("\n");
    expect(ndjson.map((line) => (JSON.parse(line) as { name: string }).name).sort()).toEqual([
      "budget.csv",
      "notes.csv",
      "plain.sheet",
    ]);
    const ids = (await cellar(["ls", "-q"], { home })).stdout.trim().split("\n");
    expect(ids).toHaveLength(3);

    const firstPage = await cellar(["ls", "--per-page", "2"], { home });
    expect(firstPage.stdout.trim().split("\n")).toHaveLength(3);
    expect(firstPage.stderr).toBe("2 of 3 files shown: --all lists every one.\n");
    const all = await cellar(["ls", "--per-page", "2", "--all", "-q"], { home });
    expect(all.stdout.trim().split("\n")).toEqual(ids);
  });

  it("finds files by name with --search and orders them with --sort", async () => {
    const uploaded: Record<string, string> = {};
    for (const name of ["report Zürich", "Report 2026", "REPORT annex", "other"]) {
      uploaded[name] = (await cellar(["upload", "budget.csv", "--name", name, "-q"], { home })).stdout.trim();
    }
    const byName = ["Report 2026", "REPORT annex", "report Zürich"].map((name) => uploaded[name]);
    expect((await cellar(["ls", "--search", "RePoRt", "--sort", "name", "-q"], { home })).stdout).toBe(
      `${byName.join("\n")}\n`,
    );
    expect(
      (await cellar(["ls", "--search", "report", "--sort=-name", "-q", "--all", "--per-page", "1"], { home })).stdout,
    ).toBe(`${[...byName].reverse().join("\n")}\n`);
    const found = await cellar(["ls", "--search", "zürich", "--json"], { home });
    expect(
      found.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { name: string }).name),
    ).toEqual(["report Zürich"]);
    const paged = await cellar(["ls", "--search", "report", "--per-page", "2"], { home });
    expect(paged.stderr).toBe("2 of 3 files shown: --all lists every one.\n");
    expect(await cellar(["ls", "--search", "no such name", "-q"], { home })).toMatchObject({ code: 0, stdout: "" });
    expect((await cellar(["ls", "--search", "no such name"], { home })).stderr).toBe(
      'No file has a name containing "no such name".\n',
    );
    expect(await cellar(["ls", "--sort", "nom"], { home })).toMatchObject({
      code: 2,
      stderr:
        "cellar: --sort is one of created_at, -created_at, updated_at, -updated_at, name, -name, size, -size, not nom.\n",
    });
    expect(await cellar(["ls", "--search", ""], { home })).toMatchObject({
      code: 2,
      stderr: "cellar: --search takes 1 to 100 characters.\n",
    });
    const dashed = await cellar(["ls", "--sort", "-size"], { home });
    expect(dashed.code).toBe(2);
    expect(dashed.stderr).toContain("--sort=-XYZ");
  });

  it("renames, shares, trashes and restores a file, with --json answers", async () => {
    const upload = await cellar(["upload", "budget.csv", "--name", "Budget 2026", "-q"], { home });
    const id = upload.stdout.trim();
    // Values stay the text they were: numbers, a leading dash after `--`.
    expect((await cellar(["rename", id, "007", "--json"], { home })).stdout).toContain('"name":"007"');
    const numbered = await cellar(["upload", "budget.csv", "--name", "007", "--json"], { home });
    expect(JSON.parse(numbered.stdout)).toMatchObject({ name: "007" });
    expect((await cellar(["rename", id, "--json", "--", "-draft-"], { home })).stdout).toContain('"name":"-draft-"');
    expect(await cellar(["rename", id, "Budget — final"], { home })).toMatchObject({
      code: 0,
      stdout: `Renamed ${id} to Budget — final.\n`,
    });
    expect((await cellar(["share", id], { home })).stdout).toBe(`Budget — final (${id}) is public.\n`);
    const info = await cellar(["info", id], { home });
    expect(info.stdout).toMatch(/^visibility: +public$/m);
    expect(info.stdout).toMatch(/^size: +31 B \(31 bytes\)$/m);
    expect(JSON.parse((await cellar(["unshare", id, "--json"], { home })).stdout)).toMatchObject({
      id,
      visibility: "private",
    });
    const trashed = await cellar(["rm", id], { home });
    expect(trashed.stdout).toMatch(/is in the trash until \d{4}-\d\d-\d\d \d\d:\d\d\.\n$/);
    expect((await cellar(["ls", "--trash", "-q"], { home })).stdout).toBe(`${id}\n`);
    // A flag given twice is the flag.
    expect((await cellar(["ls", "--trash", "--trash", "-q", "-q"], { home })).stdout).toBe(`${id}\n`);
    expect((await cellar(["ls", "--trash"], { home })).stdout.split("\n")[0]).toContain("PURGED AFTER");
    expect((await cellar(["restore", id], { home })).stdout).toBe(`Budget — final (${id}) is restored.\n`);
    expect((await cellar(["ls", "--trash", "-q"], { home })).stdout).toBe("");
  });

  it("says what went wrong in one line, with the API's message and a status scripts can test", async () => {
    const missing = await cellar(["info", "file_nosuchfileanywhere0000"], { home });
    expect(missing).toMatchObject({ code: 1, stdout: "", stderr: "cellar: No such file. (not_found)\n" });
    const badName = await cellar(["rename", "file_nosuchfileanywhere0000", ""], { home });
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/^cellar: .*name: .*\(validation_error\)\n$/);
    const refused = await cellar(["upload", "missing.csv"], { home });
    expect(refused).toMatchObject({ code: 1, stderr: "cellar: missing.csv: Cannot read missing.csv.\n" });
    writeFileSync(join(home, "notes.txt"), "hello");
    const unsupported = await cellar(["upload", "notes.txt"], { home });
    expect(unsupported.code).toBe(1);
    expect(unsupported.stderr).toMatch(/^cellar: notes\.txt: .+\(unsupported_media_type\)\n$/);
    const closed = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = await cellar(["whoami", "--server", closed], { home, env: { CELLAR_TOKEN: "x.y.z" } });
    expect(unreachable).toMatchObject({ code: 1, stderr: `cellar: Cannot reach ${closed}: ECONNREFUSED.\n` });
    const uploadUnreachable = await cellar(["upload", "budget.csv", "--server", closed], {
      home,
      env: { CELLAR_TOKEN: "x.y.z" },
    });
    expect(uploadUnreachable).toMatchObject({
      code: 1,
      stderr: `cellar: budget.csv: Cannot reach ${closed}: ECONNREFUSED.\n`,
    });
    // Not signed in, to a server that does not answer: the server is what is wrong.
    const neither = await cellar(["ls", "--server", closed], { home: join(home, "nobody") });
    expect(neither).toMatchObject({ code: 1, stderr: `cellar: Cannot reach ${closed}: ECONNREFUSED.\n` });
  });

  it("exits 2 on a wrong command line", async () => {
    expect((await cellar(["frobnicate"], { home })).code).toBe(2);
    expect((await cellar(["rename", "file_x"], { home })).code).toBe(2);
    const perPage = await cellar(["ls", "--per-page", "0"], { home });
    expect(perPage.code).toBe(2);
    expect(perPage.stderr).toContain("must be a whole number from 1");
    expect((await cellar(["download", "file_x", "--format", "pdf"], { home })).code).toBe(2);
    expect((await cellar(["upload", "a.csv", "b.csv", "--name", "x"], { home })).code).toBe(2);
    expect((await cellar(["ls", "--server", "ftp://example.org"], { home })).code).toBe(2);
    const unknownOption = await cellar(["ls", "--colour"], { home });
    expect(unknownOption).toMatchObject({
      code: 2,
      stderr: "cellar: Unknown option '--colour'. cellar ls --help says how.\n",
    });
    expect(await cellar(["rename", "file_x", "a", "b"], { home })).toMatchObject({
      code: 2,
      stderr: "cellar: Usage: cellar rename <id> <name> (3 arguments given).\n",
    });
    expect(await cellar(["nonsense"], { home })).toMatchObject({
      code: 2,
      stderr: "cellar: There is no command nonsense: cellar --help lists them.\n",
    });
    const commandHelp = await cellar(["download", "--help"], { home });
    expect(commandHelp.code).toBe(0);
    expect(commandHelp.stdout).toContain("Usage: cellar download <id> [options]");
    expect(commandHelp.stdout).toContain("-o, --output <path>");
    expect((await cellar([], { home })).stdout).toContain("Commands:");
    const help = await cellar(["--help"], { home });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "Exit status: 0 ok, 1 error, 2 usage, 3 conflict (the file changed since it was read: nothing written),\n" +
        "4 signed out or token refused, 130 interrupted.",
    );
  });
});

describe("people and activity", () => {
  let owner = "";
  let grace = "";
  let id = "";
  beforeAll(async () => {
    owner = await signedInHome("fay@example.com");
    grace = await signedInHome("grace@example.com");
    writeFileSync(join(owner, "budget.csv"), "item,amount\nrent,1200\n");
    id = (await cellar(["upload", "budget.csv", "--name", "Budget 2026", "-q"], { home: owner })).stdout.trim();
  });

  it("shares a file with a person by role, says whether a mail told them, and takes them off by address", async () => {
    const told = await cellar(
      ["share", id, "--with", "Hal@Example.com", "--role", "viewer", "--message", "Q1 figures"],
      {
        home: owner,
      },
    );
    expect(told).toMatchObject({
      code: 0,
      stdout: `hal@example.com (no account yet) is a viewer of ${id}, told by mail.\n`,
      stderr: "",
    });
    expect(server.cellar.deps.mailer.invitations.at(-1)).toMatchObject({
      to: "hal@example.com",
      message: "Q1 figures",
    });
    const quiet = await cellar(
      ["share", id, "--with", "ivo@example.com", "--role", "commenter", "--no-notify", "--json"],
      {
        home: owner,
      },
    );
    expect(JSON.parse(quiet.stdout)).toMatchObject({ email: "ivo@example.com", role: "commenter", notified: false });
    // The same address again: a new role, and no mail.
    const again = await cellar(["share", id, "--with", "hal@example.com", "--role", "editor"], { home: owner });
    expect(again.stdout).toBe(`hal@example.com (no account yet) is an editor of ${id}, not told by mail.\n`);
    expect(again.stderr).toContain("No mail went out");

    const gone = await cellar(["unshare", id, "IVO@example.com"], { home: owner });
    expect(gone).toMatchObject({ code: 0, stdout: `ivo@example.com no longer has a role on ${id}.\n` });
    expect((await cellar(["people", id, "-q"], { home: owner })).stdout).toBe("hal@example.com\n");
    expect(await cellar(["unshare", id, "ivo@example.com"], { home: owner })).toMatchObject({
      code: 1,
      stderr: `cellar: ivo@example.com has no role on ${id}: cellar people ${id} lists who has.\n`,
    });
    await cellar(["unshare", id, "hal@example.com"], { home: owner });
    expect(await cellar(["people", id], { home: owner })).toMatchObject({
      code: 0,
      stdout: "",
      stderr: `Nobody else has a role on ${id}: cellar share ${id} --with <email> --role viewer.\n`,
    });
    // Without a person, share and unshare still set who may read the file.
    expect((await cellar(["share", id], { home: owner })).stdout).toBe(`Budget 2026 (${id}) is public.\n`);
    expect((await cellar(["unshare", id], { home: owner })).stdout).toBe(`Budget 2026 (${id}) is private.\n`);
  });

  it("lists the people on a file as a table or NDJSON, names and all", async () => {
    await cellar(["share", id, "--with", "grace@example.com", "--role", "editor", "-q"], { home: owner });
    await cellar(["share", id, "--with", "jan@example.com", "--role", "viewer", "--no-notify"], { home: owner });
    const table = (await cellar(["people", id], { home: grace })).stdout.split("\n");
    expect(table[0]).toMatch(/^EMAIL +ROLE +NAME +SINCE$/);
    expect(table[1]).toMatch(/^grace@example\.com +editor +grace +\d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(table[2]).toMatch(/^jan@example\.com +viewer +pending +\d{4}-/);
    const ndjson = (await cellar(["people", id, "--json"], { home: owner })).stdout.trim().split("\n");
    expect(ndjson.map((line) => JSON.parse(line) as { email: string; user: unknown })).toMatchObject([
      { email: "grace@example.com", user: { email: "grace@example.com" } },
      { email: "jan@example.com", user: null },
    ]);
    // Anyone on the file may leave it by their own address; its activity says they left.
    expect(await cellar(["unshare", id, "grace@example.com"], { home: grace })).toMatchObject({
      code: 0,
      stdout: `grace@example.com no longer has a role on ${id}.\n`,
    });
    expect((await cellar(["ls", "--shared", "-q"], { home: grace })).stdout).toBe("");
    const [, latest] = (await cellar(["activity", id], { home: owner })).stdout.split("\n");
    expect(latest).toMatch(/grace@example\.com +unshared +grace@example\.com left$/);
  });

  it("lists the files shared with you, with your role, found and sorted as your own", async () => {
    await cellar(["share", id, "--with", "grace@example.com", "--role", "editor", "-q"], { home: owner });
    const other = (await cellar(["upload", "budget.csv", "--name", "Annex", "-q"], { home: owner })).stdout.trim();
    await cellar(["share", other, "--with", "grace@example.com", "--role", "viewer", "--no-notify"], { home: owner });
    const table = (await cellar(["ls", "--shared"], { home: grace })).stdout.split("\n");
    expect(table[0]).toMatch(/^ID +SIZE +ROLE +VISIBILITY +UPDATED +NAME$/);
    expect(table[1]).toMatch(new RegExp(`^${other} +\\d+ B +viewer +private +.+ +Annex$`));
    expect(table[2]).toMatch(new RegExp(`^${id} +\\d+ B +editor +private +.+ +Budget 2026$`));
    expect((await cellar(["ls", "--shared", "--sort", "name", "-q"], { home: grace })).stdout).toBe(
      `${other}\n${id}\n`,
    );
    expect(
      (await cellar(["ls", "--shared", "--search", "BUDGET", "--all", "--json"], { home: grace })).stdout,
    ).toContain('"role":"editor"');
    expect((await cellar(["ls", "--shared", "--search", "nothing"], { home: grace })).stderr).toBe(
      'No file shared with you has a name containing "nothing".\n',
    );
    expect((await cellar(["ls", "--shared"], { home: owner })).stderr).toBe("No file is shared with you.\n");
    expect((await cellar(["ls", "-q"], { home: grace })).stdout).toBe("");
    expect(await cellar(["ls", "--shared", "--trash"], { home: grace })).toMatchObject({ code: 2 });
  });

  it("lists what happened to a file, newest first", async () => {
    const file = (await cellar(["upload", "budget.csv", "--name", "Log", "-q"], { home: owner })).stdout.trim();
    await cellar(["rename", file, "Log 2"], { home: owner });
    await cellar(["share", file, "--with", "kai@example.com", "--role", "viewer", "--no-notify"], { home: owner });
    await cellar(["unshare", file, "kai@example.com"], { home: owner });
    const table = (await cellar(["activity", file], { home: owner })).stdout.trim().split("\n");
    expect(table[0]).toMatch(/^WHEN +WHO +ACTION +DETAILS$/);
    expect(table.slice(1).map((line) => line.replace(/^\S+ \S+ +fay@example\.com +/, ""))).toEqual([
      "unshared  kai@example.com",
      "shared    kai@example.com as viewer",
      "renamed   to Log 2",
      "uploaded  as Log",
    ]);
    const ndjson = (await cellar(["activity", file, "--json", "--all", "--per-page", "3"], { home: owner })).stdout;
    expect(
      ndjson
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { action: string }).action),
    ).toEqual(["unshared", "shared", "renamed", "uploaded"]);
    const firstPage = await cellar(["activity", file, "--per-page", "2", "-q"], { home: owner });
    expect(firstPage.stdout.trim().split("\n")).toHaveLength(2);
    expect(await cellar(["activity", file], { home: grace })).toMatchObject({
      code: 1,
      stderr: "cellar: No such file. (not_found)\n",
    });
  });

  it("says why someone who sees a public file with no role on it may not list its people or its activity", async () => {
    const file = (await cellar(["upload", "budget.csv", "--name", "Open", "-q"], { home: owner })).stdout.trim();
    await cellar(["share", file, "--with", "lin@example.com", "--role", "viewer", "--no-notify"], { home: owner });
    await cellar(["share", file], { home: owner });
    expect(await cellar(["people", file], { home: grace })).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "cellar: Only people the file is shared with may see its people. (forbidden)\n",
    });
    expect(await cellar(["activity", file], { home: grace })).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "cellar: Only people the file is shared with may see its activity. (forbidden)\n",
    });
    // Given a role, even the least, Grace may.
    await cellar(["share", file, "--with", "grace@example.com", "--role", "viewer", "--no-notify"], { home: owner });
    expect((await cellar(["people", file, "-q"], { home: grace })).stdout).toBe("lin@example.com\ngrace@example.com\n");
    expect(await cellar(["activity", file, "-q"], { home: grace })).toMatchObject({ code: 0 });
  });

  it("exits 2 on a share or unshare command line that does not add up", async () => {
    expect(await cellar(["share", id, "--with", "x@example.com"], { home: owner })).toMatchObject({
      code: 2,
      stderr: "cellar: --with needs --role: viewer, commenter, editor.\n",
    });
    expect(await cellar(["share", id, "--with", "x@example.com", "--role", "owner"], { home: owner })).toMatchObject({
      code: 2,
      stderr: "cellar: --role is one of viewer, commenter, editor, not owner.\n",
    });
    expect(await cellar(["share", id, "--role", "editor"], { home: owner })).toMatchObject({
      code: 2,
      stderr: "cellar: --role, --message and --no-notify go with --with <email>.\n",
    });
    expect(await cellar(["unshare", id, "a@example.com", "b@example.com"], { home: owner })).toMatchObject({
      code: 2,
      stderr: "cellar: Usage: cellar unshare <id> [email] (3 arguments given).\n",
    });
    const help = (await cellar(["share", "--help"], { home: owner })).stdout;
    expect(help).toContain("--with <email>");
    expect(help).toContain("--no-notify");
    // A bad address is the server's to refuse.
    expect((await cellar(["share", id, "--with", "not an address", "--role", "viewer"], { home: owner })).code).toBe(1);
  });
});

describe("downloads", () => {
  let home = "";
  let id = "";
  const bytes = Buffer.from(
    `id,name,amount\n${Array.from({ length: 60_000 }, (_, i) => `${i},"row, ${i}",${i * 1.5}`).join("\n")}\n`,
  );
  beforeAll(async () => {
    home = await signedInHome("eve@example.com");
    writeFileSync(join(home, "rows.csv"), bytes);
    id = (await cellar(["upload", "rows.csv", "--name", "Rows: März", "-q"], { home })).stdout.trim();
  });

  it("writes the file under its offered name, refuses to replace one without --force, and writes to stdout with -o -", async () => {
    const folder = join(home, "out");
    mkdirSync(folder);
    const first = await cellar(["download", id], { home, cwd: folder });
    expect(first.code).toBe(0);
    expect(readFileSync(join(folder, "Rows: März.csv")).equals(bytes)).toBe(true);
    const again = await cellar(["download", id], { home, cwd: folder });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("exists: --force replaces it.");
    expect((await cellar(["download", id, "--force", "-q"], { home, cwd: folder })).stdout).toBe(
      `${join(folder, "Rows: März.csv")}\n`,
    );
    const toFile = await cellar(["download", id, "-o", "copy.csv"], { home, cwd: folder });
    expect(toFile.code).toBe(0);
    expect(readFileSync(join(folder, "copy.csv")).equals(bytes)).toBe(true);
    const intoFolder = await cellar(["download", id, "-o", "out/", "--force", "-q"], { home });
    expect(intoFolder.stdout).toBe(`${join(folder, "Rows: März.csv")}\n`);
    expect(await cellar(["download", id, "-o", "nowhere/"], { home })).toMatchObject({
      code: 1,
      stderr: "cellar: nowhere/ is not a folder.\n",
    });
    const stdout = await cellar(["download", id, "-o", "-"], { home });
    expect(stdout.stdout).toBe(bytes.toString());
    // Nothing left behind.
    expect(existsSync(join(folder, `.cellar-${id}.part`))).toBe(false);
  });

  it("resumes a partial download of the same version, and starts over when the file changed", async () => {
    const folder = join(home, "resume");
    mkdirSync(folder);
    const part = join(folder, `.cellar-${id}.part`);
    const sha = (await cellar(["info", id, "--json"], { home })).stdout;
    const etag = `"${(JSON.parse(sha) as { sha256: string }).sha256}"`;
    writeFileSync(part, bytes.subarray(0, 700_000));
    writeFileSync(`${part}.json`, JSON.stringify({ id, etag }));
    const resumed = await cellar(["download", id, "-o", "rows.csv"], { home, cwd: folder });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("(resumed at 684 KiB)");
    expect(readFileSync(join(folder, "rows.csv")).equals(bytes)).toBe(true);
    expect(existsSync(part) || existsSync(`${part}.json`)).toBe(false);

    writeFileSync(part, Buffer.from("stale bytes of an older version"));
    writeFileSync(`${part}.json`, JSON.stringify({ id, etag: `"${"0".repeat(64)}"` }));
    const restarted = await cellar(["download", id, "-o", "rows.csv", "--force"], { home, cwd: folder });
    expect(restarted.code).toBe(0);
    expect(restarted.stderr).toContain("The file changed since the last attempt");
    expect(readFileSync(join(folder, "rows.csv")).equals(bytes)).toBe(true);

    // Bytes that are not the file's (a corrupted part) are caught by the SHA-256 and not kept.
    writeFileSync(part, Buffer.alloc(700_000, 0x41));
    writeFileSync(`${part}.json`, JSON.stringify({ id, etag }));
    const corrupted = await cellar(["download", id, "-o", "rows.csv", "--force"], { home, cwd: folder });
    expect(corrupted.code).toBe(1);
    expect(corrupted.stderr).toContain("do not match the file's SHA-256");
    expect(existsSync(part)).toBe(false);
  });

  it("finishes a download whose part already holds every byte, and starts over from a part longer than the file", async () => {
    const folder = join(home, "whole-part");
    mkdirSync(folder);
    const part = join(folder, `.cellar-${id}.part`);
    const etag = `"${(JSON.parse((await cellar(["info", id, "--json"], { home })).stdout) as { sha256: string }).sha256}"`;
    writeFileSync(part, bytes);
    writeFileSync(`${part}.json`, JSON.stringify({ id, etag }));
    const complete = await cellar(["download", id], { home, cwd: folder });
    expect(complete.code).toBe(0);
    expect(readFileSync(join(folder, "Rows: März.csv")).equals(bytes)).toBe(true);

    writeFileSync(part, Buffer.concat([bytes, Buffer.from("extra")]));
    writeFileSync(`${part}.json`, JSON.stringify({ id, etag }));
    const longer = await cellar(["download", id, "-o", "again.csv"], { home, cwd: folder });
    expect(longer.code).toBe(0);
    expect(longer.stderr).toContain("downloading it again from the start");
    expect(readFileSync(join(folder, "again.csv")).equals(bytes)).toBe(true);
  });

  it("refuses a second download into the same part while the first runs, and takes over a dead one's", async () => {
    const folder = join(home, "locked");
    mkdirSync(folder);
    const lock = join(folder, `.cellar-${id}.part.lock`);
    writeFileSync(lock, String(process.pid));
    const refused = await cellar(["download", id], { home, cwd: folder });
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toBe(
      `cellar: Another cellar (process ${process.pid}) is downloading this file into ${folder}.\n`,
    );
    // A process that no longer runs: its lock is stale.
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid as number;
    writeFileSync(lock, String(gone));
    expect((await cellar(["download", id], { home, cwd: folder })).code).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it("ends quietly when the reader of stdout stops early (| head)", async () => {
    const stdin = new PassThrough();
    stdin.end();
    let taken = 0;
    const closedEarly = new Writable({
      write(chunk: Buffer, _encoding, done) {
        taken += chunk.length;
        done(taken > 1000 ? Object.assign(new Error("write EPIPE"), { code: "EPIPE" }) : null);
      },
    });
    const stderr = new PassThrough();
    let err = "";
    stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await run(["download", id, "-o", "-"], {
      stdin,
      stdout: closedEarly,
      stderr,
      env: { HOME: home },
      cwd: home,
      signal: new AbortController().signal,
    });
    expect({ code, err }).toEqual({ code: 0, err: "" });
  });

  it("converts on the way, and reads sheets and cells", async () => {
    const folder = join(home, "convert");
    mkdirSync(folder);
    const xlsx = await cellar(["download", id, "--format", "xlsx"], { home, cwd: folder });
    expect(xlsx.code).toBe(0);
    expect(readFileSync(join(folder, "Rows: März.xlsx")).subarray(0, 2).toString()).toBe("PK");
    expect((await cellar(["download", id, "--sheet", "Sheet1"], { home })).code).toBe(2);

    const sheets = await cellar(["sheets", id], { home });
    expect(sheets.stdout.split("\n")[0]).toMatch(/^# +ROWS +COLUMNS +HEADER +COLUMN TYPES +NAME$/);
    expect(sheets.stdout.split("\n")[1]).toMatch(/^0 +60001 +3 +yes +number,string,number +Sheet1$/);
    expect(JSON.parse((await cellar(["sheets", id, "--json"], { home })).stdout)[0]).toMatchObject({
      name: "Sheet1",
      row_count: 60_001,
    });
    const cells = await cellar(["cells", id, "A1:C3"], { home });
    expect(cells).toMatchObject({
      code: 0,
      stdout: 'id,name,amount\n0,"row, 0",0\n1,"row, 1",1.5\n',
      stderr: "Sheet1!A1:C3\n",
    });
    const typed = JSON.parse((await cellar(["cells", id, "B2", "--types", "--json"], { home })).stdout);
    expect(typed).toEqual({ range: "Sheet1!B2", values: [["row, 0"]], types: [["string"]] });
    const bad = await cellar(["cells", id, "not a range"], { home });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("(validation_error)");
  });

  it("reads a workbook's cells as stored, or as its author sees them with --formatted", async () => {
    const fixture = new URL("../../../packages/adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url);
    writeFileSync(join(home, "formats.xlsx"), readFileSync(fixture));
    const book = (await cellar(["upload", "formats.xlsx", "-q"], { home })).stdout.trim();
    expect(await cellar(["cells", book, "B3:C4"], { home })).toMatchObject({
      code: 0,
      stdout: "1234.5,-1234.5\n0.1234,-0.005\n",
      stderr: "Formats!B3:C4\n",
    });
    expect(await cellar(["cells", book, "B3:C4", "--formatted"], { home })).toMatchObject({
      code: 0,
      stdout: '"$1,234.50","-$1,234.50"\n12.34%,-0.50%\n',
    });
    const typed = JSON.parse(
      (await cellar(["cells", book, "B9", "--formatted", "--types", "--json"], { home })).stdout,
    );
    expect(typed).toEqual({ range: "Formats!B9", values: [["31-Jan-26"]], types: [["date"]] });
    // Found as shown, case aside: each cell and its text; -q the cells alone; --json all.
    expect(await cellar(["find", book, "$1,234.5"], { home })).toMatchObject({
      code: 0,
      stdout: "Formats!B3\t$1,234.50\nFormats!C3\t-$1,234.50\n",
      stderr: "2 cells.\n",
    });
    expect((await cellar(["find", book, "JAN", "-q", "--sheet", "Formats"], { home })).stdout).toContain(
      "Formats!B9\n",
    );
    const json = JSON.parse((await cellar(["find", book, "--json", "--", "-$1,234"], { home })).stdout);
    expect(json).toEqual([{ range: "Formats!C3", value: -1234.5, text: "-$1,234.50" }]);
    expect(await cellar(["find", book, "nowhere at all"], { home })).toMatchObject({
      code: 0,
      stdout: "",
      stderr: 'Nothing holds "nowhere at all".\n',
    });
  });
});

describe("versions and cell edits", () => {
  const email = "hal@example.com";
  let home = "";
  const original = "item,amount\nrent,1200\nfood,300\n";
  const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
  const upload = async (path: string, content: string | Uint8Array) => {
    writeFileSync(join(home, path), content);
    const answer = await cellar(["upload", path, "-q"], { home });
    expect(answer.code).toBe(0);
    return answer.stdout.trim();
  };
  const ndjson = (text: string) =>
    text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    home = await signedInHome(email);
  });

  it("put replaces a file's content with a local file, and versions lists every version", async () => {
    const id = await upload("budget.csv", original);
    const changed = "item,amount\nrent,1250\nfood,300\n";
    writeFileSync(join(home, "changed.csv"), changed);
    expect(await cellar(["put", id, "changed.csv"], { home })).toMatchObject({
      code: 0,
      stdout: `budget.csv (${id}) is now version 2, ${changed.length} B.\n`,
      stderr: "",
    });
    expect((await cellar(["download", id, "-o", "-"], { home })).stdout).toBe(changed);

    const table = (await cellar(["versions", id], { home })).stdout.trim().split("\n");
    expect(table[0]).toMatch(/^VERSION +SIZE +AUTHOR +CREATED +STATUS$/);
    expect(table).toHaveLength(3);
    expect(table[1]).toMatch(
      new RegExp(`^2 +${changed.length} B +${email} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +current$`),
    );
    expect(table[2]).toMatch(new RegExp(`^1 +${original.length} B +${email} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d$`));
    expect((await cellar(["versions", id, "-q"], { home })).stdout).toBe("2\n1\n");
    const listed = ndjson((await cellar(["versions", id, "--json"], { home })).stdout);
    expect(listed.map(({ version, sha256, current }) => [version, sha256, current])).toEqual([
      [2, sha256(changed), true],
      [1, sha256(original), false],
    ]);
    const paged = await cellar(["versions", id, "--per-page", "1"], { home });
    expect(paged.stderr).toBe("1 of 2 versions shown: --all lists every one.\n");
    expect((await cellar(["versions", id, "--per-page", "1", "--all", "-q"], { home })).stdout).toBe("2\n1\n");

    // --json answers the file; --force replaces whatever is there.
    writeFileSync(join(home, "third.csv"), "item,amount\n");
    const forced = await cellar(["put", id, "third.csv", "--force", "--json"], { home });
    expect(JSON.parse(forced.stdout)).toMatchObject({ id, version: 3, sha256: sha256("item,amount\n") });
    expect(await cellar(["put", id, "missing.csv"], { home })).toMatchObject({
      code: 1,
      stderr: "cellar: Cannot read missing.csv.\n",
    });
    const refused = await cellar(["put", "file_nosuchfileanywhere0000", "third.csv"], { home });
    expect(refused).toMatchObject({ code: 1, stderr: "cellar: No such file. (not_found)\n" });
    expect((await cellar(["put", id], { home })).code).toBe(2);
  });

  it("download --version writes that version's bytes, as download writes a file", async () => {
    const id = await upload("ledger.csv", original);
    writeFileSync(join(home, "ledger-2.csv"), "item,amount\n");
    expect((await cellar(["put", id, "ledger-2.csv", "-q"], { home })).stdout).toBe(`${id}\n`);
    expect((await cellar(["download", id, "--version", "1", "-o", "-"], { home })).stdout).toBe(original);
    expect((await cellar(["download", id, "--version", "2", "-o", "-"], { home })).stdout).toBe("item,amount\n");
    const folder = join(home, "versions-out");
    mkdirSync(folder);
    const saved = await cellar(["download", id, "--version", "1", "-o", "v1.csv", "--json"], { home, cwd: folder });
    expect(JSON.parse(saved.stdout)).toEqual({
      id,
      version: 1,
      path: join(folder, "v1.csv"),
      size: original.length,
      etag: `"${sha256(original)}"`,
    });
    expect(readFileSync(join(folder, "v1.csv"), "utf8")).toBe(original);
    // Under its offered name, and not over a file already there.
    expect((await cellar(["download", id, "--version", "1", "-q"], { home, cwd: folder })).stdout).toBe(
      `${join(folder, "ledger.csv")}\n`,
    );
    expect((await cellar(["download", id, "--version", "2"], { home, cwd: folder })).stderr).toContain(
      "exists: --force replaces it.",
    );
    expect(await cellar(["download", id, "--version", "9", "-o", "-"], { home })).toMatchObject({ code: 1 });
    expect((await cellar(["download", id, "--version", "0"], { home })).code).toBe(2);
    expect((await cellar(["download", id, "--version", "1", "--format", "xlsx"], { home })).code).toBe(2);
    // The command's --version is the file's; cellar's own is --version without a command.
    const help = await cellar(["download", "--help"], { home });
    expect(help.stdout).toContain("--version <n>");
    expect(help.stdout).not.toContain("-V, --version");
    expect((await cellar(["--version"], { home })).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("restore --version makes an earlier version the content again; restore still empties the trash", async () => {
    const id = await upload("plan.csv", original);
    writeFileSync(join(home, "plan-2.csv"), "item,amount\nrent,1\n");
    await cellar(["put", id, "plan-2.csv"], { home });
    expect(await cellar(["restore", id, "--version", "1"], { home })).toMatchObject({
      code: 0,
      stdout: `plan.csv (${id}) is now version 3, with the content of version 1.\n`,
    });
    const versions = ndjson((await cellar(["versions", id, "--json"], { home })).stdout);
    expect(versions.map(({ version, sha256 }) => [version, sha256])).toEqual([
      [3, sha256(original)],
      [2, sha256("item,amount\nrent,1\n")],
      [1, sha256(original)],
    ]);
    const forced = await cellar(["restore", id, "--version", "2", "--force", "--json"], { home });
    expect(JSON.parse(forced.stdout)).toMatchObject({ id, version: 4 });
    expect((await cellar(["restore", id, "--version", "99"], { home })).code).toBe(1);
    expect((await cellar(["restore", id, id, "--version", "1"], { home })).code).toBe(2);
    expect((await cellar(["restore", id, "--force"], { home })).code).toBe(2);
    expect((await cellar(["restore", "--help"], { home })).stdout).toContain("--version <n>");

    await cellar(["rm", id], { home });
    expect((await cellar(["restore", id], { home })).stdout).toBe(`plan.csv (${id}) is restored.\n`);
    expect((await cellar(["info", id, "--json"], { home })).stdout).toContain('"state":"active"');
  });

  it("set writes one cell, or several across a row, of a CSV as the text typed unless --json-values", async () => {
    const id = await upload("sums.csv", original);
    expect(await cellar(["set", id, "B2", "1300"], { home })).toMatchObject({
      code: 0,
      stdout: `Wrote Sheet1!B2 (1 cell) of sums.csv (${id}): version 2.\n`,
    });
    const row = JSON.parse((await cellar(["set", id, "A4", "tax", "-", "99", "--json"], { home })).stdout);
    expect(row).toMatchObject({ updated_range: "Sheet1!A4:C4", updated_cells: 3, file: { id, version: 3 } });
    // A value that starts with a dash, after --.
    expect((await cellar(["set", id, "B3", "-q", "--", "-5"], { home })).stdout).toBe(`${id}\n`);
    expect((await cellar(["cells", id, "A1:C4"], { home })).stdout).toBe(
      "item,amount,\nrent,1300,\nfood,-5,\ntax,-,99\n",
    );

    // Typed values are written typed: a boolean as a CSV writes one, null as an empty cell;
    // as text, they stay the words typed.
    const typedSet = await cellar(["set", id, "A5", "--json-values", "42", "true", "null", '"x"'], { home });
    expect(typedSet).toMatchObject({ code: 0, stderr: "" });
    expect((await cellar(["set", id, "A6", "42", "true", "null", '"x"'], { home })).code).toBe(0);
    expect((await cellar(["cells", id, "A5:D6"], { home })).stdout).toBe('42,TRUE,,x\n42,true,null,"""x"""\n');
    expect((await cellar(["set", id, "B3", "--json-values", "text"], { home })).code).toBe(2);
    expect((await cellar(["set", id, "B3", "--json-values", "[1]"], { home })).code).toBe(2);
    expect((await cellar(["set", id, "B3"], { home })).code).toBe(2);
    const badRange = await cellar(["set", id, "not a range", "x"], { home });
    expect(badRange.code).toBe(1);
    expect(badRange.stderr).toContain("(validation_error)");
    // The activity says which cells each edit wrote, and the version it made.
    const activity = (await cellar(["activity", id], { home })).stdout;
    expect(activity).toContain("Sheet1!A4:C4 (3 cells), version 3");
    expect(activity).toContain("Sheet1!B2 (1 cell), version 2");
  });

  it("set and append read values as typed into a spreadsheet, --raw as text; cells --formulas gives formulas", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Budget");
    sheet.addRow(["Item", "Amount"]);
    sheet.addRow(["Rent", 1200]);
    sheet.addRow(["Food", 300]);
    sheet.addRow(["Total", { formula: "SUM(B2:B3)" }]);
    const id = await upload("budget.xlsx", new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect((await cellar(["cells", id, "B4"], { home })).stdout).toBe("1500\n");
    // A number typed into the currency column is a number, and the total moves.
    expect((await cellar(["set", id, "B3", "$3,000"], { home })).code).toBe(0);
    expect((await cellar(["cells", id, "B3:B4"], { home })).stdout).toBe("3000\n4200\n");
    // A formula, and a value with --raw: text, whatever it looks like.
    expect((await cellar(["set", id, "C4", "=B4*2", "--", "'=not a formula"], { home })).code).toBe(0);
    expect((await cellar(["set", id, "A6", "3000", "--raw"], { home })).code).toBe(0);
    expect((await cellar(["cells", id, "A4:D6", "--formulas"], { home })).stdout).toBe(
      "Total,=SUM(B2:B3),=B4*2,=not a formula\n,,,\n3000,,,\n",
    );
    const typed = JSON.parse((await cellar(["cells", id, "A6:C6", "--json", "--types"], { home })).stdout);
    expect(typed.types[0][0]).toBe("string");
    expect((await cellar(["cells", id, "C4"], { home })).stdout).toBe("8400\n");
    writeFileSync(join(home, "more.csv"), "Travel,450.5\n");
    expect((await cellar(["append", id, "--from", "more.csv"], { home })).code).toBe(0);
    expect((await cellar(["cells", id, "A6:B7"], { home })).stdout).toBe("3000,\nTravel,450.5\n");
    const broken = await cellar(["set", id, "C5", "=SUM(B2"], { home });
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain("Budget!C5");
    expect((await cellar(["cells", "--help"], { home })).stdout).toContain("--formulas");
    expect((await cellar(["set", "--help"], { home })).stdout).toContain("--raw");
  });

  it("append --from adds the rows of a local CSV after the last row, to the first sheet or --sheet", async () => {
    const id = await upload("log.csv", original);
    writeFileSync(join(home, "rows.csv"), '\uFEFF"tax, local",5\n\nfees,\n');
    expect(await cellar(["append", id, "--from", "rows.csv"], { home })).toMatchObject({
      code: 0,
      stdout: `Appended 2 rows to log.csv (${id}) at Sheet1!A4:B5: version 2.\n`,
    });
    expect((await cellar(["cells", id, "A1:B5"], { home })).stdout).toBe(
      'item,amount\nrent,1200\nfood,300\n"tax, local",5\nfees,\n',
    );
    const fromStdin = await cellar(["append", id, "--from", "-", "--sheet", "Sheet1", "--json"], {
      home,
      stdin: "misc,1\n",
    });
    expect(JSON.parse(fromStdin.stdout)).toMatchObject({ updated_range: "Sheet1!A6:B6", file: { id, version: 3 } });
    const typed = JSON.parse((await cellar(["cells", id, "A5:B6", "--json"], { home })).stdout);
    expect(typed.values).toEqual([
      ["fees", null],
      ["misc", "1"],
    ]);

    writeFileSync(join(home, "ragged.csv"), "a,b\nc\n");
    const ragged = await cellar(["append", id, "--from", "ragged.csv"], { home });
    expect(ragged.code).toBe(1);
    expect(ragged.stderr).toMatch(/^cellar: ragged\.csv: .*(length|columns)/i);
    writeFileSync(join(home, "empty.csv"), "\n");
    expect(await cellar(["append", id, "--from", "empty.csv"], { home })).toMatchObject({
      code: 1,
      stderr: "cellar: empty.csv has no rows to append.\n",
    });
    expect(await cellar(["append", id, "--from", "nowhere.csv"], { home })).toMatchObject({
      code: 1,
      stderr: "cellar: Cannot read nowhere.csv.\n",
    });
    expect((await cellar(["append", id], { home })).code).toBe(2);
    const noSheet = await cellar(["append", id, "--from", "rows.csv", "--sheet", "Nope"], { home });
    expect(noSheet.code).toBe(1);
    expect(noSheet.stderr).toContain("(validation_error)");
    expect((await cellar(["versions", id, "-q"], { home })).stdout).toBe("3\n2\n1\n");
  });

  /**
   * A `fetch` through which someone else (the owner, signed in elsewhere) changes the
   * file's content right after the command first reads the file once `armed`: the race
   * `If-Match` is for.
   */
  async function changedMeanwhile(id: string) {
    const token = await server.tokenFor(email);
    let changes = 0;
    let armed = false;
    const meddling: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const response = await fetch(request);
      if (armed && request.method === "GET" && new URL(request.url).pathname === `/v1/files/${id}`) {
        armed = false;
        changes++;
        const put = await fetch(`${server.url}/v1/files/${id}/content`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "if-match": "*", "content-type": "application/octet-stream" },
          body: `item,amount\nchange,${changes}\n`,
        });
        expect(put.status).toBe(200);
      }
      return response;
    };
    return {
      /** The `fetch` for the next command, which will find the file changed after reading it. */
      armed: () => {
        armed = true;
        return meddling;
      },
      changes: () => changes,
    };
  }

  it("exits 3, writing nothing, when the file changed between reading and writing it; --force writes over", async () => {
    const id = await upload("race.csv", original);
    const meddler = await changedMeanwhile(id);
    const set = await cellar(["set", id, "B2", "1"], { home, fetch: meddler.armed() });
    expect(set.code).toBe(3);
    expect(set.stderr).toMatch(
      /^cellar: The file changed since: it is now version 2, .*--force.*\(precondition_failed\)\n$/,
    );

    writeFileSync(join(home, "mine.csv"), "item,amount\nmine,1\n");
    const put = await cellar(["put", id, "mine.csv"], { home, fetch: meddler.armed() });
    expect(put).toMatchObject({ code: EXIT.conflict, stdout: "" });
    expect(put.stderr).toContain("The file changed since");
    // A body too large to be sent before the refusal: the answer may be lost with the
    // connection, and the command still says why.
    writeFileSync(join(home, "big.csv"), `a,b\n${"1,2\n".repeat(2 * 1024 * 1024)}`);
    const big = await cellar(["put", id, "big.csv"], { home, fetch: meddler.armed() });
    expect(big.code).toBe(3);
    expect(big.stderr).toMatch(/^cellar: The file changed since.*--force/);

    const restore = await cellar(["restore", id, "--version", "1"], { home, fetch: meddler.armed() });
    expect(restore.code).toBe(3);
    expect(meddler.changes()).toBe(4);
    // Nothing of ours was written: every version is the meddler's, after the upload.
    const versions = ndjson((await cellar(["versions", id, "--json"], { home })).stdout);
    expect(versions.map(({ sha256 }) => sha256)).toEqual([
      sha256("item,amount\nchange,4\n"),
      sha256("item,amount\nchange,3\n"),
      sha256("item,amount\nchange,2\n"),
      sha256("item,amount\nchange,1\n"),
      sha256(original),
    ]);

    // --force reads nothing first, and writes over whatever is there.
    expect((await cellar(["set", id, "B2", "1", "--force", "-q"], { home, fetch: meddler.armed() })).code).toBe(0);
    expect((await cellar(["put", id, "mine.csv", "--force", "-q"], { home, fetch: meddler.armed() })).code).toBe(0);
    expect(meddler.changes()).toBe(4);
    expect((await cellar(["download", id, "-o", "-"], { home })).stdout).toBe("item,amount\nmine,1\n");
  });

  it("maps the API's precondition_failed to exit status 3 with what to do", () => {
    const said = failure(
      new CellarApiError(412, "precondition_failed", 'The file changed since: it is now version 4, "ab".'),
      { signal: new AbortController().signal },
    );
    expect(said.exitCode).toBe(EXIT.conflict);
    expect(said.exitCode).toBe(3);
    expect(said.message).toMatch(/^The file changed since: it is now version 4, "ab"\. Nothing was written: .*--force/);
    expect(said.message.endsWith("(precondition_failed)")).toBe(true);
    // Other refusals keep status 1.
    expect(
      failure(new CellarApiError(409, "file_in_trash", "In the trash."), { signal: new AbortController().signal }),
    ).toMatchObject({ exitCode: 1 });
  });

  it("rows and columns insert and delete, as the next version, and say what they did", async () => {
    const id = await upload("moves.csv", original);
    expect(await cellar(["rows", "insert", id, "Sheet1", "2"], { home })).toMatchObject({
      code: 0,
      stdout: `Inserted 1 row before row 2 of Sheet1 in moves.csv (${id}): version 2.\n`,
    });
    expect(await cellar(["columns", "insert", id, "Sheet1", "b", "2", "-q"], { home })).toMatchObject({
      code: 0,
      stdout: `${id}\n`,
    });
    expect((await cellar(["rows", "delete", id, "Sheet1", "3"], { home })).code).toBe(0);
    expect((await cellar(["cells", id, "A1:D3"], { home })).stdout).toBe("item,,,amount\n,,,\nfood,,,300\n");
    const activity = (await cellar(["activity", id], { home })).stdout;
    expect(activity).toContain("insert 1 row before 2 of Sheet1, version 2");
    expect(activity).toContain("insert 2 columns before B of Sheet1, version 3");
    expect(activity).toContain("delete 1 row from 3 of Sheet1, version 4");
    // What does not add up is a usage error, what the server refuses its error.
    expect((await cellar(["rows", "move", id, "Sheet1", "2"], { home })).code).toBe(2);
    expect((await cellar(["columns", "insert", id, "Sheet1", "2"], { home })).code).toBe(2);
    const unknown = await cellar(["rows", "delete", id, "Nope", "2"], { home });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("(validation_error)");
  });

  it("sheet add, rename, mv and rm change a workbook's sheets, formulas following, and say what they did", async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet("Budget").addRow(["Rent", 1200]);
    workbook.addWorksheet("Summary").getCell("A1").value = { formula: "Budget!B1*2", result: 2400 };
    const id = await upload("sheets.xlsx", new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await cellar(["sheet", "add", id, "Notes", "1"], { home })).toMatchObject({
      code: 0,
      stdout: `Added sheet Notes at position 1 to sheets.xlsx (${id}): version 2.\n`,
    });
    expect((await cellar(["sheet", "rename", id, "Budget", "Q1 Budget"], { home })).code).toBe(0);
    expect((await cellar(["sheet", "mv", id, "Summary", "2"], { home })).code).toBe(0);
    expect((await cellar(["sheet", "rm", id, "Notes", "-q"], { home })).stdout).toBe(`${id}\n`);
    expect((await cellar(["sheets", id], { home })).stdout).toMatch(/Summary[\s\S]*Q1 Budget/);
    expect((await cellar(["cells", id, "Summary!A1", "--formulas"], { home })).stdout).toBe("='Q1 Budget'!B1*2\n");
    const activity = (await cellar(["activity", id], { home })).stdout;
    expect(activity).toContain("add sheet Notes at 1, version 2");
    expect(activity).toContain("rename sheet Budget to Q1 Budget, version 3");
    expect(activity).toContain("move sheet Summary to 2, version 4");
    expect(activity).toContain("delete sheet Notes, version 5");
    expect((await cellar(["sheet", "copy", id, "Summary"], { home })).code).toBe(2);
    expect((await cellar(["sheet", "mv", id, "Summary", "0"], { home })).code).toBe(2);
    const last = await cellar(["sheet", "rm", id, "Summary"], { home });
    expect((await cellar(["sheet", "rm", id, "Q1 Budget"], { home })).code).toBe(1);
    expect(last.code).toBe(0);
  });

  it("lists the new commands in the help", async () => {
    const help = (await cellar(["--help"], { home })).stdout;
    for (const usage of [
      "put <id> <path>",
      "versions <id>",
      "set <id> <range> <values...>",
      "append <id>",
      "restore <ids...>",
      "rows <insert|delete> <id> <sheet> <row> [count]",
      "columns <insert|delete> <id> <sheet> <column> [count]",
      "sheet <add|rename|mv|rm> <id> <sheet> [to]",
      "find <id> <text>",
    ]) {
      expect(help).toContain(`  ${usage}  `);
    }
    expect((await cellar(["set", "--help"], { home })).stdout).toContain("--json-values");
    expect((await cellar(["append", "--help"], { home })).stdout).toContain("--from <csv>");
  });
});
