import { Writable } from "node:stream";
import { type CellarClient, createCellarClient, unwrap } from "@cellar/client";
import { startTcpProxy } from "@cellar/test-engines";
import { afterAll, describe, expect, it } from "vitest";
import { startCellarServer } from "./support/cellar-server.js";
import { cellar, runningCellar, scratchHome, spawnCellar, until } from "./support/run-cli.js";

const server = await startCellarServer();
afterAll(() => server.close());

/** A line of `cellar watch`: the time it came (UTC), then the event and what it says. */
const LINE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}(.*)$/;

/** The event and what it says, without the time. */
const told = (line: string | undefined) => LINE.exec(line ?? "")?.[1] ?? `not a line of watch: ${line}`;

/** A client signed in as `email`, as another program (or person) would be. */
async function clientOf(email: string): Promise<CellarClient> {
  return createCellarClient({ baseUrl: server.url, token: await server.tokenFor(email) });
}

/** Ada's stock list, shared with `editor` as an editor; Ada's client, and the file. */
async function aSharedFile(owner: string, editor: string) {
  const ada = await clientOf(owner);
  const file = await ada.upload({ fileName: "stock.csv", content: new TextEncoder().encode("name,qty\napples,3\n") });
  await ada.share(file.id, { email: editor, role: "editor", notify: false });
  return { ada, file };
}

/** A home whose runs are signed in as `email` through CELLAR_TOKEN: its token too. */
async function signedIn(email: string) {
  const token = await server.tokenFor(email);
  return { home: scratchHome(), env: { CELLAR_SERVER: server.url, CELLAR_TOKEN: token }, token };
}

describe("cellar watch", () => {
  it("prints each change as it happens, one line each, and ends with status 0 on Ctrl-C", async () => {
    const { ada, file } = await aSharedFile("ada@example.com", "bo@example.com");
    const watcher = runningCellar(["watch", file.id], await signedIn("ada@example.com"));
    expect(told((await watcher.lines(1))[0])).toBe("file         stock.csv (v1, private)");
    expect(told((await watcher.lines(2))[1])).toBe("presence     ada");
    const bo = await clientOf("bo@example.com");
    await bo.editValues(file.id, { range: "B2:C2", values: [[4, "ripe"]] }, { ifMatch: "*" });
    expect(told((await watcher.lines(3))[2])).toBe("content      v2 by bo@example.com Sheet1!B2:C2");
    await ada.share(file.id, { email: "cy@example.com", role: "viewer", notify: false });
    expect(told((await watcher.lines(4))[3])).toBe("permissions  shared cy@example.com as viewer");
    watcher.interrupt();
    expect(await watcher.exited).toBe(0);
    expect(watcher.stderr()).toBe("");
  });

  it("prints who has the file open, and each comment in a few words", async () => {
    const { ada, file } = await aSharedFile("ann@example.com", "ben@example.com");
    const watcher = runningCellar(["watch", file.id], await signedIn("ann@example.com"));
    expect(told((await watcher.lines(2))[1])).toBe("presence     ann");
    const ben = await clientOf("ben@example.com");
    const stop = new AbortController();
    const bens = ben.watchFile(file.id, { signal: stop.signal })[Symbol.asyncIterator]();
    await bens.next();
    expect(told((await watcher.lines(3))[2])).toBe("presence     ann, ben");
    const path = { id: file.id };
    const text = "Three apples,\nor four? Counted them twice on Monday and again today.";
    const asked = await unwrap(ben.api.POST("/files/{id}/comments", { params: { path }, body: { text, range: "b2" } }));
    expect(told((await watcher.lines(4))[3])).toBe(
      'comment      created by ben@example.com on B2: "Three apples, or four? Counted them twi…"',
    );
    await unwrap(
      ada.api.POST("/files/{id}/comments", { params: { path }, body: { text: "Four.", parent_id: asked.id } }),
    );
    expect(told((await watcher.lines(5))[4])).toBe('comment      created by ann@example.com on B2 (a reply): "Four."');
    await unwrap(
      ada.api.PATCH("/files/{id}/comments/{cid}", {
        params: { path: { ...path, cid: asked.id } },
        body: { resolved: true },
      }),
    );
    expect(told((await watcher.lines(6))[5])).toBe(
      'comment      resolved on B2: "Three apples, or four? Counted them twi…"',
    );
    await unwrap(ada.api.DELETE("/files/{id}/comments/{cid}", { params: { path: { ...path, cid: asked.id } } }));
    expect(told((await watcher.lines(7))[6])).toBe(`comment      deleted ${asked.id}`);
    stop.abort();
    expect(told((await watcher.lines(8))[7])).toBe("presence     ann");
    watcher.interrupt();
    expect(await watcher.exited).toBe(0);
  });

  it("prints one JSON object a line with --json, and exits 1 when the reader is taken off the file", async () => {
    const { ada, file } = await aSharedFile("dee@example.com", "eli@example.com");
    const watcher = runningCellar(["watch", file.id, "--json"], await signedIn("eli@example.com"));
    const [first] = await watcher.lines(1);
    expect(JSON.parse(first ?? "")).toMatchObject({
      event: "file",
      id: "2",
      data: { id: file.id, name: "stock.csv", role: "editor" },
    });
    const [permission] = (await ada.permissions(file.id)).filter((each) => each.email === "eli@example.com");
    await ada.removePermission(file.id, permission?.id ?? "");
    expect(await watcher.exited).toBe(1);
    const lines = watcher.stdout().trim().split("\n");
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: "file" }),
      { event: "presence", id: "2", data: { viewers: [{ id: expect.stringMatching(/^user_/), name: "eli" }] } },
      { event: "revoked", id: "2", data: {} },
    ]);
    expect(watcher.stderr()).toBe(
      `cellar: The server ended the stream of ${file.id} (revoked): you may no longer see the file.\n`,
    );
  });

  it("exits 4 when the session ends while it watches", async () => {
    const { file } = await aSharedFile("fay@example.com", "gil@example.com");
    const signed = await signedIn("gil@example.com");
    const watcher = runningCellar(["watch", file.id], signed);
    await watcher.lines(2);
    const signOut = await fetch(`${server.url}/v1/sessions`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${signed.token}` },
    });
    expect(signOut.status).toBe(204);
    expect(await watcher.exited).toBe(4);
    expect(told(watcher.stdout().trim().split("\n")[2])).toBe(
      "revoked      you may no longer see the file, or your session ended",
    );
    expect(watcher.stderr()).toMatch(/^cellar: .+ Sign in again: cellar login\.\n$/);
  });

  it("reconnects by itself after a dropped connection, saying so on stderr, and misses nothing", async () => {
    const proxy = await startTcpProxy(server.url);
    try {
      const { ada, file } = await aSharedFile("hal@example.com", "ivy@example.com");
      const signed = await signedIn("hal@example.com");
      const watcher = runningCellar(["watch", file.id, "--json"], {
        ...signed,
        env: { ...signed.env, CELLAR_SERVER: proxy.url },
      });
      // The file, and who has it open.
      await watcher.lines(2);
      proxy.down();
      const rename = (name: string) =>
        unwrap(ada.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name } }));
      await rename("One.csv");
      await rename("Two.csv");
      proxy.up();
      const lines = await watcher.lines(5, 10_000);
      expect(lines.map((line) => JSON.parse(line) as { id: string; event: string })).toMatchObject([
        { id: "2", event: "file" },
        { id: "2", event: "presence", data: { viewers: [{ name: "hal" }] } },
        // Told again first by the stream resumed, then what was missed.
        { id: "2", event: "presence", data: { viewers: [{ name: "hal" }] } },
        { id: "3", event: "file", data: { name: "Two.csv" } },
        { id: "4", event: "file", data: { name: "Two.csv" } },
      ]);
      expect(watcher.stderr()).toMatch(/^Reconnecting in \d\.\d s, from event 2: the connection dropped\.\n/);
      watcher.interrupt();
      expect(await watcher.exited).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it("without an id, prints the changes to your own lists: files changed, shared with you, unshared", async () => {
    const { ada, file } = await aSharedFile("pam@example.com", "rex@example.com");
    const watcher = runningCellar(["watch"], await signedIn("rex@example.com"));
    expect(told((await watcher.lines(1))[0])).toBe("ready        your files' changes follow");
    await unwrap(ada.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Kept.csv" } }));
    expect(told((await watcher.lines(2))[1])).toBe(`file         ${file.id} Kept.csv (v1, private, editor)`);
    const other = await ada.upload({ fileName: "new.csv", content: new TextEncoder().encode("a\n1\n") });
    await ada.share(other.id, { email: "rex@example.com", role: "viewer", notify: false });
    expect(told((await watcher.lines(3))[2])).toBe(`shared       ${other.id} new.csv (v1, private, viewer)`);
    await unwrap(ada.api.DELETE("/files/{id}", { params: { path: { id: other.id } } }));
    expect(told((await watcher.lines(4))[3])).toBe(`unshared     ${other.id} is no longer in your lists`);
    watcher.interrupt();
    expect(await watcher.exited).toBe(0);
    expect(watcher.stderr()).toBe("");
  });

  it("without an id, exits 4 when the session ends while it watches", async () => {
    const signed = await signedIn("sid@example.com");
    const watcher = runningCellar(["watch", "--json"], signed);
    expect(JSON.parse((await watcher.lines(1))[0] ?? "")).toMatchObject({ event: "ready", data: {} });
    await fetch(`${server.url}/v1/sessions`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${signed.token}` },
    });
    expect(await watcher.exited).toBe(4);
    expect(JSON.parse(watcher.stdout().trim().split("\n")[1] ?? "")).toMatchObject({ event: "revoked", data: {} });
    expect(watcher.stderr()).toMatch(/^cellar: .+ Sign in again: cellar login\.\n$/);
  });

  it("says what went wrong as the other commands do: a file not there, no session", async () => {
    const missing = await cellar(["watch", "file_nosuchfileanywhere0000"], await signedIn("jo@example.com"));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^cellar: .+ \(not_found\)\n$/);
    const anonymous = await cellar(["watch", "file_nosuchfileanywhere0000", "--server", server.url], {
      home: scratchHome(),
    });
    expect(anonymous).toMatchObject({
      code: 4,
      stderr: `cellar: Not signed in to ${server.url}: run \`cellar login\`.\n`,
    });
  });

  it("ends quietly when the reader of stdout stops early (| head)", async () => {
    const { file } = await aSharedFile("kim@example.com", "lou@example.com");
    const closedEarly = new Writable({
      write(_chunk: Buffer, _encoding, done) {
        done(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
      },
    });
    const watcher = runningCellar(["watch", file.id], { ...(await signedIn("kim@example.com")), stdout: closedEarly });
    expect(await watcher.exited).toBe(0);
    expect(watcher.stderr()).toBe("");
  });

  it("writes each line to a pipe as it comes, and leaves with status 0 on SIGINT (the real command)", async () => {
    const { ada, file } = await aSharedFile("max@example.com", "ned@example.com");
    const { home, env } = await signedIn("max@example.com");
    const watcher = spawnCellar(["watch", file.id, "--json"], { home, env });
    const lines = () => watcher.output().stdout.split("\n").slice(0, -1);
    await until(() => lines().length === 2, "the file and who has it open", 15_000);
    await unwrap(ada.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Piped.csv" } }));
    await until(() => lines().length === 3, "the rename");
    expect(JSON.parse(lines()[2] ?? "")).toMatchObject({ event: "file", id: "3", data: { name: "Piped.csv" } });
    watcher.child.kill("SIGINT");
    expect(await watcher.exited).toBe(0);
    expect(watcher.output().stderr).toBe("");
  }, 30_000);

  it("is in the help", async () => {
    const home = scratchHome();
    expect((await cellar(["--help"], { home })).stdout).toContain("  watch [id]  ");
    expect((await cellar(["watch", "--help"], { home })).stdout).toContain("Usage: cellar watch [id] [options]");
  });
});
