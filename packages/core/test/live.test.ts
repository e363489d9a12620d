import { describe, expect, it } from "vitest";
import {
  ACTIVITY_RETENTION_DAYS,
  type AccountEvent,
  type AccountEventStream,
  type ChangeFeed,
  createCellar,
  createLocalChangeFeed,
  type FileEvent,
  type FileEventStream,
} from "../src/index.js";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";
import { toyReader, toyWriter } from "./support/toy-spreadsheets.js";

const DAY = 86_400_000;

/** Ada, who owns a file; Grace, with whom it is shared as a viewer; Eve, with no role. */
async function aWatchedFile() {
  const { cellar, clock } = aCellar();
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const graceSignedIn = await signIn(cellar, "grace@example.com");
  const grace = graceSignedIn.user;
  const eve = (await signIn(cellar, "eve@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv" });
  const shared = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
  return { cellar, clock, ada, grace, graceSession: graceSignedIn.session, eve, file, shared };
}

/** Reads events from a stream one at a time, each within a second; `presence` events are passed over unless asked for. */
function reader(stream: FileEventStream, options: { presence?: boolean } = {}) {
  const iterator = stream.events[Symbol.asyncIterator]();
  return {
    async next(): Promise<FileEvent | "ended"> {
      for (;;) {
        const timeout = new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no event within a second")), 1000).unref(),
        );
        const result = await Promise.race([iterator.next(), timeout]);
        if (result.done === true) return "ended";
        if (result.value.kind !== "presence" || options.presence === true) return result.value;
      }
    },
    /** Whether an event comes within `ms`; the event is lost to the next `next()` if it does. */
    async quiet(ms: number): Promise<boolean> {
      const waited = new Promise<"quiet">((resolve) => setTimeout(() => resolve("quiet"), ms).unref());
      const told = (async () => {
        for (;;) {
          const result = await iterator.next();
          if (result.done === true || result.value.kind !== "presence" || options.presence === true) return result;
        }
      })();
      return (await Promise.race([told, waited])) === "quiet";
    },
  };
}

describe("a file's event stream", () => {
  it("starts with the file as it is, then tells each change as it happens, in order, each with its number", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const stream = await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id });
    const events = reader(stream);
    expect(await events.next()).toMatchObject({
      kind: "file",
      id: "2",
      file: { id: file.id, name: "Budget.csv", role: "viewer" },
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Q3.csv" } });
    expect(await events.next()).toMatchObject({ kind: "file", id: "3", file: { name: "Q3.csv" } });
    const replaced = await cellar.versions.replaceContent({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      content: (async function* () {
        yield Buffer.from("a,b\n1,2\n");
      })(),
    });
    expect(await events.next()).toEqual({
      kind: "content",
      id: "4",
      version: 2,
      sha256: replaced.sha256,
      author: { id: ada.id, email: ada.email, name: ada.name },
    });
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "new@example.com", role: "editor" });
    expect(await events.next()).toEqual({
      kind: "permissions",
      id: "5",
      action: "shared",
      email: "new@example.com",
      role: "editor",
    });
    stream.close();
    expect(await events.next()).toBe("ended");
  });

  it("tells a change of cells with the ranges written, of structure with its operations, and who was taken off", async () => {
    const { cellar } = aCellar({ spreadsheets: toyReader().reader, spreadsheetWriter: toyWriter().writer });
    const ada = (await signIn(cellar, "ada@example.com")).user;
    const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv", content: "a,b\n1,2\n" });
    const { permission } = await cellar.people.share({
      callerId: ada.id,
      fileId: file.id,
      email: "grace@example.com",
      role: "editor",
      notify: false,
    });
    const stream = await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id });
    const events = reader(stream);
    expect(await events.next()).toMatchObject({ kind: "file", id: "2" });
    const author = { id: ada.id, email: ada.email, name: ada.name };

    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: {
        data: [
          { range: "A1", values: [["x"]] },
          { range: "B2:B3", values: [[5], [6]] },
        ],
      },
    });
    expect(await events.next()).toEqual({
      kind: "content",
      id: "3",
      version: 2,
      sha256: edited.file.sha256,
      author,
      ranges: ["data!A1", "data!B2:B3"],
    });
    const appended = await cellar.edits.appendRows({
      callerId: ada.id,
      fileId: file.id,
      precondition: undefined,
      values: [[7, 8]],
    });
    expect(await events.next()).toEqual({
      kind: "content",
      id: "4",
      version: 3,
      sha256: appended.file.sha256,
      author,
      ranges: ["data!A4:B4"],
    });
    const changed = await cellar.edits.changeStructure({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { operations: [{ delete: "rows", sheet: "data", from: 2, count: 1 }] },
    });
    expect(await events.next()).toEqual({
      kind: "content",
      id: "5",
      version: 4,
      sha256: changed.file.sha256,
      author,
      structure: [{ delete: "rows", sheet: "data", from: 2, count: 1 }],
    });
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: permission.id });
    expect(await events.next()).toEqual({
      kind: "permissions",
      id: "6",
      action: "unshared",
      email: "grace@example.com",
      role: null,
    });
    stream.close();
  });

  it("tells each comment as it happens: made, edited, resolved and deleted, each as it is when told", async () => {
    const { cellar, clock, ada, grace, file } = await aWatchedFile();
    const events = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id }));
    expect(await events.next()).toMatchObject({ kind: "file", id: "2" });
    clock.advance(1000);
    const { comment } = await cellar.comments.create({
      callerId: ada.id,
      fileId: file.id,
      text: "Check B2",
      range: "B2",
    });
    expect(await events.next()).toEqual({
      kind: "comment",
      id: "3",
      action: "created",
      commentId: comment.id,
      parentId: null,
      comment,
    });
    const reply = (
      await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Done", parentId: comment.id })
    ).comment;
    expect(await events.next()).toMatchObject({
      kind: "comment",
      id: "4",
      action: "created",
      parentId: comment.id,
      comment: { id: reply.id, range: "B2" },
    });
    const edited = await cellar.comments.update({
      callerId: ada.id,
      fileId: file.id,
      commentId: comment.id,
      text: "Check B3",
    });
    expect(await events.next()).toMatchObject({ kind: "comment", id: "5", action: "edited", comment: edited.comment });
    await cellar.comments.update({ callerId: ada.id, fileId: file.id, commentId: comment.id, resolved: true });
    expect(await events.next()).toMatchObject({
      kind: "comment",
      id: "6",
      action: "resolved",
      comment: { resolved: true },
    });
    await cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId: comment.id });
    expect(await events.next()).toEqual({
      kind: "comment",
      id: "7",
      action: "deleted",
      commentId: comment.id,
      parentId: null,
      comment: null,
    });
  });

  it("tells a reader who resumes after a comment was deleted that it is gone, from its very first event on", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const { comment } = await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Soon gone" });
    await cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId: comment.id });
    const events = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId: "2" }));
    expect(await events.next()).toMatchObject({ kind: "comment", id: "3", action: "created", comment: null });
    expect(await events.next()).toMatchObject({ kind: "comment", id: "4", action: "deleted", comment: null });
  });

  it("tells a comment as it is when told, also to a reader who resumes while another stream of the file is open", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const watching = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    await watching.next();
    const { comment } = await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Soon gone" });
    expect(await watching.next()).toMatchObject({ kind: "comment", id: "3", comment: { text: "Soon gone" } });
    await cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId: comment.id });
    expect(await watching.next()).toMatchObject({ kind: "comment", id: "4", action: "deleted" });
    const resumed = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId: "2" }));
    expect(await resumed.next()).toMatchObject({ kind: "comment", id: "3", action: "created", comment: null });
  });

  it("reads a comment again when the store could not give it, losing no event", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const stream = await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id });
    const iterator = stream.events[Symbol.asyncIterator]();
    await iterator.next();
    expect((await iterator.next()).value).toMatchObject({ kind: "presence" });
    const comments = cellar.deps.comments;
    const findById = comments.findById.bind(comments);
    let failures = 0;
    comments.findById = async (query) => {
      if (failures++ === 0) throw new Error("connection terminated");
      return findById(query);
    };
    const next = iterator.next();
    const { comment } = await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Still told" });
    expect((await next).value).toMatchObject({ kind: "comment", id: "3", comment: { id: comment.id } });
    expect(failures).toBe(2);
    stream.close();
  });

  it("resumes after the event a reader names, telling what it missed; or resets when the number is not the file's", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "One.csv" } });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Two.csv" } });
    const resumed = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId: "2" }));
    expect(await resumed.next()).toMatchObject({ kind: "file", id: "3" });
    expect(await resumed.next()).toMatchObject({ kind: "file", id: "4", file: { name: "Two.csv" } });
    expect(await resumed.quiet(50)).toBe(true);
    for (const lastEventId of ["99", "x", "-1", "1.5"]) {
      const reset = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId }));
      expect(await reset.next(), lastEventId).toMatchObject({ kind: "reset", id: "4", file: { name: "Two.csv" } });
    }
  });

  it("resets a reader whose missed events the log no longer holds", async () => {
    const { cellar, clock, ada, grace, file } = await aWatchedFile();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Old.csv" } });
    clock.advance((ACTIVITY_RETENTION_DAYS + 1) * DAY);
    await cellar.activity.prune();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "New.csv" } });
    const events = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId: "1" }));
    expect(await events.next()).toMatchObject({ kind: "reset", id: "4", file: { name: "New.csv" } });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Newer.csv" } });
    expect(await events.next()).toMatchObject({ kind: "file", id: "5", file: { name: "Newer.csv" } });
  });

  it("ends with revoked when its reader loses the file: taken off it, or the file trashed", async () => {
    const { cellar, ada, grace, file, shared } = await aWatchedFile();
    const events = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id }));
    await events.next();
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: shared.permission.id });
    expect(await events.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    expect(await events.next()).toBe("ended");

    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
    const again = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id }));
    await again.next();
    const owners = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    await owners.next();
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    expect(await again.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    // The owner still sees a trashed file.
    expect(await owners.next()).toMatchObject({ kind: "file", file: { state: "trashed" } });
  });

  it("is for those who may see the file: anyone else gets the error a read of it gives", async () => {
    const { cellar, eve, file } = await aWatchedFile();
    await expect(cellar.live.openFileStream({ callerId: eve.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      cellar.live.openFileStream({ callerId: eve.id, fileId: "file_nosuchfile000000000000" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("tells a reader who sees a public file with no role no one's address: a change of its people is the file, as it is for them", async () => {
    const { cellar, ada, eve, file } = await aWatchedFile();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    const eves = reader(await cellar.live.openFileStream({ callerId: eve.id, fileId: file.id }));
    expect(await eves.next()).toMatchObject({ kind: "file", file: { role: null } });
    const adas = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    await adas.next();

    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "new@example.com", role: "editor" });
    expect(await eves.next()).toEqual({
      kind: "file",
      id: expect.stringMatching(/^\d+$/),
      file: expect.objectContaining({ id: file.id, role: null }),
    });
    // Those the file is shared with are told who, as ever.
    expect(await adas.next()).toMatchObject({ kind: "permissions", email: "new@example.com", role: "editor" });

    // Given a role, Eve is told of the file's people from then on; taken off it, no longer.
    const given = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: eve.email, role: "viewer" });
    expect(await eves.next()).toMatchObject({ kind: "permissions", action: "shared", email: eve.email });
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: given.permission.id });
    expect(await eves.next()).toMatchObject({ kind: "file", file: { role: null } });
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "more@example.com", role: "viewer" });
    const told = await eves.next();
    expect(told).toMatchObject({ kind: "file", file: { role: null } });
    expect(JSON.stringify(told)).not.toContain("more@example.com");
  });

  it("opened with an access token, ends with revoked once the token is deleted, or at its expiry", async () => {
    const { cellar, clock, grace, file } = await aWatchedFile();
    const made = await cellar.accessTokens.create({ callerId: grace.id, name: "dashboard", scope: "read" });
    const token = await cellar.auth.authenticate(made.token);
    const events = reader(
      await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, credential: token.credential }),
    );
    expect(await events.next()).toMatchObject({ kind: "file" });
    await cellar.accessTokens.delete({ callerId: grace.id, tokenId: made.record.id });
    expect(await events.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    expect(await events.next()).toBe("ended");

    const daily = await cellar.accessTokens.create({ callerId: grace.id, name: "d", scope: "read", expiresInDays: 1 });
    const expiring = reader(
      await cellar.live.openFileStream({
        callerId: grace.id,
        fileId: file.id,
        credential: (await cellar.auth.authenticate(daily.token)).credential,
      }),
    );
    await expiring.next();
    clock.set(new Date((daily.record.expiresAt as Date).getTime() + 1));
    // Its timer is the clock's; any other wake (another token deleted) finds it expired too.
    const other = await cellar.accessTokens.create({ callerId: grace.id, name: "other", scope: "read" });
    await cellar.accessTokens.delete({ callerId: grace.id, tokenId: other.record.id });
    expect(await expiring.next()).toMatchObject({ kind: "revoked" });
  });

  it("tells a stream of one file nothing of another's changes, and ends at once when closed", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const other = await uploadCsv(cellar, ada.id, { name: "Other.csv" });
    const stream = await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id });
    const events = reader(stream);
    await events.next();
    await cellar.files.update({ callerId: ada.id, fileId: other.id, changes: { name: "Elsewhere.csv" } });
    expect(await events.quiet(50)).toBe(true);
    stream.close();
    expect(await events.next()).toBe("ended");
  });

  it("stays open while its log cannot be read, and tells what it missed once it can", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const stream = await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id });
    const iterator = stream.events[Symbol.asyncIterator]();
    await iterator.next();
    expect((await iterator.next()).value).toMatchObject({ kind: "presence" });
    const activity = cellar.deps.activity;
    const listSince = activity.listSince.bind(activity);
    let failures = 0;
    let failing = true;
    activity.listSince = async (query) => {
      if (failing) {
        failures++;
        throw new Error("connection terminated");
      }
      return listSince(query);
    };
    const next = iterator.next();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "During.csv" } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failures).toBeGreaterThan(0);
    failing = false;
    // It reads again by itself, a second after the failure at the latest.
    expect((await next).value).toMatchObject({ kind: "file", id: "3", file: { name: "During.csv" } });
    stream.close();
  });

  it("ends with the error when reading its log fails for another reason than the store being unavailable", async () => {
    const { cellar } = aCellar({
      isStorageUnavailable: (error) => (error as Error).message === "connection terminated",
    });
    const ada = (await signIn(cellar, "ada@example.com")).user;
    const file = await uploadCsv(cellar, ada.id);
    const stream = await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id });
    const iterator = stream.events[Symbol.asyncIterator]();
    await iterator.next();
    expect((await iterator.next()).value).toMatchObject({ kind: "presence" });
    const activity = cellar.deps.activity;
    let failure = new Error("connection terminated");
    activity.listSince = async () => {
      throw failure;
    };
    const next = iterator.next();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Renamed.csv" } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Unavailable: still waiting to read again. A bug: the stream ends with it.
    failure = new TypeError("details.ranges is not iterable");
    await expect(next).rejects.toThrow("details.ranges is not iterable");
  });

  it("ends with revoked when its reader's session is signed out, or has expired", async () => {
    const { cellar, clock, grace, graceSession, file } = await aWatchedFile();
    const watching = {
      callerId: grace.id,
      fileId: file.id,
      credential: { kind: "session" as const, id: graceSession.id },
    };
    const events = reader(await cellar.live.openFileStream(watching));
    await events.next();
    await cellar.auth.signOut({ sessionId: graceSession.id });
    expect(await events.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    expect(await events.next()).toBe("ended");

    const again = await signIn(cellar, "grace@example.com");
    const expiring = reader(
      await cellar.live.openFileStream({
        callerId: grace.id,
        fileId: file.id,
        credential: { kind: "session", id: again.session.id },
      }),
    );
    await expiring.next();
    clock.set(new Date(again.session.expiresAt.getTime() + 1));
    // Its timer is the clock's; any other wake finds the session expired too.
    const eve = await signIn(cellar, "eve2@example.com");
    await cellar.auth.signOut({ sessionId: eve.session.id });
    expect(await expiring.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
  });

  it("resets a reader whose missed events were all pruned, though nothing came after them", async () => {
    const { cellar, clock, ada, grace, file } = await aWatchedFile();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Gone.csv" } });
    clock.advance((ACTIVITY_RETENTION_DAYS + 1) * DAY);
    await cellar.activity.prune();
    const events = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id, lastEventId: "1" }));
    expect(await events.next()).toMatchObject({ kind: "reset", id: "3", file: { name: "Gone.csv" } });
  });

  it("ends the owner's stream of a trashed file with revoked when the file is purged", async () => {
    const { cellar, clock, ada, file } = await aWatchedFile();
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    const events = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    expect(await events.next()).toMatchObject({ kind: "file", file: { state: "trashed" } });
    clock.advance(31 * DAY);
    expect((await cellar.files.purgeDue()).purged).toBe(1);
    expect(await events.next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
  });

  it("reads a file's log once per change for all its streams, and a reader's access again only when a change may touch it", async () => {
    const { cellar, clock, ada, grace, file } = await aWatchedFile();
    const streams = await Promise.all(
      Array.from({ length: 20 }, () => cellar.live.openFileStream({ callerId: grace.id, fileId: file.id })),
    );
    const readers = streams.map((stream) => reader(stream, { presence: true }));
    for (const events of readers) {
      expect(await events.next()).toMatchObject({ kind: "file" });
      expect(await events.next()).toMatchObject({ kind: "presence", viewers: [{ id: grace.id }] });
    }
    const { activity, files } = cellar.deps;
    const listSince = activity.listSince.bind(activity);
    const findWithRole = files.findWithRole.bind(files);
    const { streamLeases } = cellar.deps;
    const viewers = streamLeases.viewers.bind(streamLeases);
    let logReads = 0;
    let accessReads = 0;
    let viewerReads = 0;
    streamLeases.viewers = async (query) => {
      viewerReads++;
      return viewers(query);
    };
    activity.listSince = async (query) => {
      logReads++;
      return listSince(query);
    };
    files.findWithRole = async (query) => {
      if (query.userId === grace.id) accessReads++;
      return findWithRole(query);
    };
    await cellar.versions.replaceContent({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      content: bytesOf("a,b\n3,4\n"),
    });
    for (const events of readers) expect(await events.next()).toMatchObject({ kind: "content", id: "3" });
    expect(logReads).toBe(1);
    expect(accessReads).toBe(0);
    // Who is present did not change: not read again.
    expect(viewerReads).toBe(0);
    // Someone opening the file changes who is present, not the log: read once, for all.
    clock.advance(1000);
    const another = await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id });
    for (const events of readers) {
      expect(await events.next()).toMatchObject({ kind: "presence", viewers: [{ id: grace.id }, { id: ada.id }] });
    }
    expect(logReads).toBe(1);
    expect(viewerReads).toBe(1);
    another.close();
    // A rename changes the file object every reader is told of: each reads its access (and the file) again.
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Renamed.csv" } });
    for (const events of readers)
      expect(await events.next()).toMatchObject({ kind: "file", file: { name: "Renamed.csv" } });
    expect(logReads).toBe(2);
    expect(accessReads).toBe(20);
    for (const stream of streams) stream.close();
  });

  it("tells a stream that opens of a change another instance has told of, though this one has not heard of it yet", async () => {
    const local = createLocalChangeFeed();
    let muted = false;
    const changeFeed: ChangeFeed = {
      announce: (notice) => (muted ? undefined : local.announce(notice)),
      subscribe: (listener) => local.subscribe(listener),
    };
    const { cellar } = aCellar({ changeFeed });
    const ada = (await signIn(cellar, "ada@example.com")).user;
    const file = await uploadCsv(cellar, ada.id);
    const first = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    expect(await first.next()).toMatchObject({ kind: "file", id: "1" });
    // A change whose notice has not come: as if made through another instance.
    muted = true;
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Elsewhere.csv" } });
    muted = false;
    const resumed = reader(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id, lastEventId: "2" }));
    // Resumed after 2, which this instance's shared log had not read: no reset, nothing told twice.
    const next = resumed.next();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Next.csv" } });
    expect(await next).toMatchObject({ kind: "file", id: "3", file: { name: "Next.csv" } });
  });

  it("tells who has the file open: the reader first, then each time someone opens or closes a stream of it", async () => {
    const { cellar, clock, ada, grace, file } = await aWatchedFile();
    const graceEvents = reader(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id }), {
      presence: true,
    });
    expect(await graceEvents.next()).toMatchObject({ kind: "file", id: "2" });
    expect(await graceEvents.next()).toEqual({
      kind: "presence",
      id: "2",
      viewers: [{ id: grace.id, name: grace.name }],
    });
    // Listed by who came first.
    clock.advance(1000);
    const adaStream = await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id });
    const adaEvents = reader(adaStream, { presence: true });
    expect(await adaEvents.next()).toMatchObject({ kind: "file" });
    const both = [
      { id: grace.id, name: grace.name },
      { id: ada.id, name: ada.name },
    ];
    expect(await adaEvents.next()).toEqual({ kind: "presence", id: "2", viewers: both });
    expect(await graceEvents.next()).toEqual({ kind: "presence", id: "2", viewers: both });
    // A second stream of the same person changes nothing to show: the next presence Grace
    // is told of is the one after Ada closed both.
    const again = await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id });
    await new Promise((resolve) => setTimeout(resolve, 20));
    again.close();
    adaStream.close();
    expect(await graceEvents.next()).toEqual({
      kind: "presence",
      id: "2",
      viewers: [{ id: grace.id, name: grace.name }],
    });
  });

  it("lets an account hold 20 streams at once, counted over every instance of the store, and frees a place when one closes", async () => {
    const { cellar, ada, file } = await aWatchedFile();
    // A second instance on the same store.
    const other = createCellar({
      ...cellar.deps,
      config: { publicUrl: "http://127.0.0.1:3000", jwtSecret: "x".repeat(32) },
    });
    const streams = [];
    for (let k = 0; k < 20; k++) {
      const instance = k % 2 === 0 ? cellar : other;
      streams.push(await instance.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    }
    await expect(other.live.openFileStream({ callerId: ada.id, fileId: file.id })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: expect.any(Number),
    });
    await expect(cellar.live.openFileStream({ callerId: ada.id, fileId: file.id })).rejects.toMatchObject({
      code: "rate_limited",
    });
    streams.pop()?.close();
    // Released in the background, as the stream ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
    streams.push(await cellar.live.openFileStream({ callerId: ada.id, fileId: file.id }));
    for (const stream of streams) stream.close();
  });
});

/** Reads an account's events one at a time, each within two seconds. */
function accountReader(stream: AccountEventStream) {
  const iterator = stream.events[Symbol.asyncIterator]();
  return async (): Promise<AccountEvent | "ended"> => {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error("no event within two seconds")), 2000).unref(),
    );
    const result = await Promise.race([iterator.next(), timeout]);
    return result.done === true ? "ended" : result.value;
  };
}

describe("an account's own stream", () => {
  it("tells of each change to the lists of the account's files: its own changed, shared with it, taken off it", async () => {
    const { cellar, ada, grace, eve, file, shared } = await aWatchedFile();
    const graceStream = await cellar.live.openAccountStream({ callerId: grace.id });
    const adaStream = await cellar.live.openAccountStream({ callerId: ada.id });
    const graceNext = accountReader(graceStream);
    const adaNext = accountReader(adaStream);
    expect(await graceNext()).toEqual({ kind: "ready", id: expect.stringMatching(/^\d+$/) });
    expect(await adaNext()).toMatchObject({ kind: "ready" });
    // Another account's file: nothing.
    const evesOwn = await uploadCsv(cellar, eve.id, { name: "Eve.csv" });
    await cellar.files.update({ callerId: eve.id, fileId: evesOwn.id, changes: { name: "Eve2.csv" } });
    // A comment: nothing a list shows changes.
    await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Looks right" });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Renamed.csv" } });
    expect(await adaNext()).toMatchObject({ kind: "file", file: { id: file.id, name: "Renamed.csv", role: "owner" } });
    expect(await graceNext()).toMatchObject({
      kind: "file",
      file: { id: file.id, name: "Renamed.csv", role: "viewer" },
    });
    await cellar.people.changeRole({
      callerId: ada.id,
      fileId: file.id,
      permissionId: shared.permission.id,
      role: "editor",
    });
    expect(await graceNext()).toMatchObject({ kind: "shared", file: { id: file.id, role: "editor" } });
    expect(await adaNext()).toMatchObject({ kind: "file", file: { id: file.id } });
    const second = await uploadCsv(cellar, ada.id, { name: "Second.csv" });
    expect(await adaNext()).toMatchObject({ kind: "file", file: { id: second.id } });
    await cellar.people.share({ callerId: ada.id, fileId: second.id, email: grace.email, role: "commenter" });
    expect(await graceNext()).toMatchObject({ kind: "shared", file: { id: second.id, role: "commenter" } });
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: shared.permission.id });
    expect(await graceNext()).toEqual({ kind: "unshared", id: expect.stringMatching(/^\d+$/), fileId: file.id });
    await cellar.files.trash({ callerId: ada.id, fileId: second.id });
    expect(await graceNext()).toMatchObject({ kind: "unshared", fileId: second.id });
    // The owner's trashed file stays in her lists, in the trash. Changes read together are
    // told once per file, as it is now: how many events come depends on when they are read.
    let event = await adaNext();
    while (
      event !== "ended" &&
      !(event.kind === "file" && event.file.id === second.id && event.file.state === "trashed")
    ) {
      event = await adaNext();
    }
    expect(event).toMatchObject({ kind: "file", file: { id: second.id, state: "trashed" } });
    graceStream.close();
    adaStream.close();
    expect(await graceNext()).toBe("ended");
  });

  it("tells nothing of a comment: no list of files shows it", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const stream = await cellar.live.openAccountStream({ callerId: grace.id });
    const iterator = stream.events[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ kind: "ready" });
    const next = iterator.next();
    await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Looks right" });
    const quiet = new Promise((resolve) => setTimeout(() => resolve("quiet"), 300).unref());
    expect(await Promise.race([next, quiet])).toBe("quiet");
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "After.csv" } });
    expect((await next).value).toMatchObject({ kind: "file", file: { name: "After.csv" } });
    stream.close();
  });

  it("resumes after the event a reader names, telling what changed meanwhile; resets on an id it cannot resume after", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const first = accountReader(await cellar.live.openAccountStream({ callerId: grace.id }));
    const ready = await first();
    if (ready === "ended") throw new Error("ended");
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Away.csv" } });
    const resumed = accountReader(await cellar.live.openAccountStream({ callerId: grace.id, lastEventId: ready.id }));
    expect(await resumed()).toMatchObject({ kind: "file", file: { name: "Away.csv" } });
    for (const lastEventId of ["nonsense", "999999999"]) {
      const reset = accountReader(await cellar.live.openAccountStream({ callerId: grace.id, lastEventId }));
      expect(await reset()).toEqual({ kind: "reset", id: expect.stringMatching(/^\d+$/) });
    }
  });

  it("stays open while the store cannot be read, and tells what it missed once it can", async () => {
    const { cellar, ada, grace, file } = await aWatchedFile();
    const next = accountReader(await cellar.live.openAccountStream({ callerId: grace.id }));
    expect(await next()).toMatchObject({ kind: "ready" });
    const activity = cellar.deps.activity;
    const listCommitted = activity.listCommitted.bind(activity);
    let failures = 0;
    let failing = true;
    activity.listCommitted = async (query) => {
      if (failing) {
        failures++;
        throw new Error("connection terminated");
      }
      return listCommitted(query);
    };
    const told = next();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "During.csv" } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(failures).toBeGreaterThan(0);
    failing = false;
    // It reads again by itself, a second after the failure at the latest.
    expect(await told).toMatchObject({ kind: "file", file: { id: file.id, name: "During.csv" } });
  });

  it("ends with the error when the store fails for another reason than being unavailable", async () => {
    const { cellar } = aCellar({
      isStorageUnavailable: (error) => (error as Error).message === "connection terminated",
    });
    const ada = (await signIn(cellar, "ada@example.com")).user;
    const file = await uploadCsv(cellar, ada.id);
    const next = accountReader(await cellar.live.openAccountStream({ callerId: ada.id }));
    expect(await next()).toMatchObject({ kind: "ready" });
    cellar.deps.activity.listCommitted = async () => {
      throw new TypeError("position is not a number");
    };
    const told = next();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Renamed.csv" } });
    await expect(told).rejects.toThrow("position is not a number");
  });

  it("is revoked at once for a session signed out before it opened, and refused to an account that is gone", async () => {
    const { cellar, grace, graceSession } = await aWatchedFile();
    await cellar.auth.signOut({ sessionId: graceSession.id });
    const next = accountReader(
      await cellar.live.openAccountStream({ callerId: grace.id, credential: { kind: "session", id: graceSession.id } }),
    );
    expect(await next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    expect(await next()).toBe("ended");
    await expect(cellar.live.openAccountStream({ callerId: "user_gone" })).rejects.toMatchObject({
      code: "unauthorized",
    });
  });

  it("ends with revoked when its session is signed out, and counts towards the account's 20 streams", async () => {
    const { cellar, grace, graceSession, file } = await aWatchedFile();
    const next = accountReader(
      await cellar.live.openAccountStream({ callerId: grace.id, credential: { kind: "session", id: graceSession.id } }),
    );
    await next();
    const fileStreams = [];
    for (let k = 0; k < 19; k++)
      fileStreams.push(await cellar.live.openFileStream({ callerId: grace.id, fileId: file.id }));
    await expect(cellar.live.openAccountStream({ callerId: grace.id })).rejects.toMatchObject({ code: "rate_limited" });
    for (const stream of fileStreams) stream.close();
    await cellar.auth.signOut({ sessionId: graceSession.id });
    expect(await next()).toEqual({ kind: "revoked", id: expect.stringMatching(/^\d+$/) });
    expect(await next()).toBe("ended");
  });
});
