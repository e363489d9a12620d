import {
  type ChangeFeed,
  type ChangeNotice,
  createCellar,
  createMemoryBlobStore,
  createMemoryMailer,
} from "@cellar/core";
import {
  aComment,
  aFile,
  anAccessToken,
  anActivityEntry,
  aPermission,
  aSession,
  aTrashedFile,
  at,
  aUser,
} from "@cellar/core/testing";
import { createTestDatabase, type TestDatabase } from "@cellar/test-engines";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { openPostgresStorage, type PostgresStorage } from "../src/index.js";

// Two storages on one database stand for two Cellar instances. Writes go to the first
// storage's repositories directly: nothing of Cellar runs after they commit, as when the
// process that wrote ends right then.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoInstances(): Promise<[PostgresStorage, PostgresStorage]> {
  const database: TestDatabase = await createTestDatabase(inject("postgresUrl"), "notices");
  cleanups.push(() => database.drop());
  const storages = await Promise.all([0, 1].map(() => openPostgresStorage({ url: database.url, poolMax: 2 })));
  for (const storage of storages) cleanups.push(() => storage.close());
  return storages as [PostgresStorage, PostgresStorage];
}

/** Every notice the feed's listeners are told, in order. */
function heard(feed: ChangeFeed): ChangeNotice[] {
  const notices: ChangeNotice[] = [];
  feed.subscribe((notice) => notices.push(notice));
  return notices;
}

const waitFor = <T>(check: () => T) => vi.waitFor(check, { timeout: 10_000, interval: 20 });

describe("the notice of a write on PostgreSQL", () => {
  it("reaches every instance from the write's own transaction, with nothing sent after the commit", async () => {
    const [writer, reader] = await twoInstances();
    const onReader = heard(reader.changeFeed);
    const owner = await writer.users.insertIfAbsent(aUser());
    const file = aFile(owner.id);

    await writer.files.insert({ file, activity: [anActivityEntry(file.id, owner.id, { action: "uploaded" })] });
    await waitFor(() => expect(onReader).toEqual([{ fileId: file.id }]));

    await writer.files.update({
      id: file.id,
      changes: { name: "Renamed.csv", updatedAt: at(1) },
      activity: [anActivityEntry(file.id, owner.id)],
    });
    await writer.comments.insert({
      comment: aComment(file.id, owner.id),
      limit: 10,
      activity: anActivityEntry(file.id, owner.id, { action: "commented", details: {} }),
    });
    await waitFor(() => expect(onReader).toEqual([{ fileId: file.id }, { fileId: file.id }, { fileId: file.id }]));
  });

  it("is sent by every write that changes a file's log, a purge and a token deleted", async () => {
    const [writer, reader] = await twoInstances();
    const owner = await writer.users.insertIfAbsent(aUser());
    const [file, trashed] = [aFile(owner.id), aTrashedFile(owner.id, at(1))];
    await writer.files.insert({ file, activity: [] });
    await writer.files.insert({ file: trashed, activity: [] });
    const onReader = heard(reader.changeFeed);
    const told = async (write: () => Promise<unknown>, notice: ChangeNotice = { fileId: file.id }) => {
      onReader.length = 0;
      await write();
      await waitFor(() => expect(onReader).toEqual([notice]));
    };
    const entry = () => anActivityEntry(file.id, owner.id);
    const permission = aPermission(file.id);
    const comment = aComment(file.id, owner.id);
    const token = anAccessToken(owner.id);
    await writer.accessTokens.insertWithinLimit({ token, max: 10 });

    await told(() =>
      writer.permissions.upsert({ permission, limit: 10, activity: { shared: entry(), roleChanged: entry() } }),
    );
    await told(() =>
      writer.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "editor",
        updatedAt: at(1),
        activity: entry(),
      }),
    );
    await told(() => writer.permissions.remove({ fileId: file.id, id: permission.id, activity: entry() }));
    await told(() => writer.comments.insert({ comment, limit: 10, activity: entry() }));
    await told(() =>
      writer.comments.update({
        fileId: file.id,
        id: comment.id,
        resolved: true,
        updatedAt: at(1),
        activity: [entry()],
      }),
    );
    await told(() => writer.comments.remove({ fileId: file.id, id: comment.id, activity: entry() }));
    await told(() =>
      writer.files.replaceContent({
        id: file.id,
        expectedSha256: null,
        content: { blobKey: "blob_new", size: 1, sha256: "e".repeat(64) },
        at: at(1),
        authorId: owner.id,
        activity: [entry()],
      }),
    );
    await told(() => writer.files.removeDueForPurge({ now: at(2), limit: 10 }), { fileId: trashed.id });
    await told(() => writer.accessTokens.delete({ id: token.id, userId: owner.id }), { fileId: null });
  });

  it("is not sent for a write rolled back", async () => {
    const [writer, reader] = await twoInstances();
    const onReader = heard(reader.changeFeed);
    const owner = await writer.users.insertIfAbsent(aUser());
    const [rolledBack, written] = [aFile(owner.id), aFile(owner.id)];
    await writer.files.insert({ file: rolledBack, activity: [] });
    await writer.files.insert({ file: written, activity: [] });
    await writer.comments.insertCopy(aComment(rolledBack.id, owner.id, { range: "A1" }));

    // The content's row is written (and its notice asked for) before the comments move:
    // the move fails, and the transaction rolls back.
    const replacing = writer.files.replaceContent({
      id: rolledBack.id,
      expectedSha256: null,
      content: { blobKey: "blob_new", size: 1, sha256: "e".repeat(64) },
      at: at(1),
      authorId: owner.id,
      activity: [anActivityEntry(rolledBack.id, owner.id, { action: "cells_edited", details: {} })],
      moveCommentRanges: () => {
        throw new Error("the move failed");
      },
    });
    await expect(replacing).rejects.toThrow("the move failed");
    await writer.files.update({
      id: written.id,
      changes: { name: "Renamed.csv", updatedAt: at(2) },
      activity: [anActivityEntry(written.id, owner.id)],
    });

    // Notices come in the order their transactions committed: the later write's is heard,
    // and nothing before it.
    await waitFor(() => expect(onReader).toContainEqual({ fileId: written.id }));
    expect(onReader).toEqual([{ fileId: written.id }]);
  });

  it("of a session revoked tells every instance that any file may have changed", async () => {
    const [writer, reader] = await twoInstances();
    const onReader = heard(reader.changeFeed);
    const owner = await writer.users.insertIfAbsent(aUser());
    const session = aSession(owner.id);
    await writer.sessions.insert(session);

    expect(await writer.sessions.revoke({ id: session.id, at: at(1) })).toBe(true);
    await waitFor(() => expect(onReader).toEqual([{ fileId: null }]));
  });

  it("is sent once: Cellar does not announce again what the storage's writes told", async () => {
    const [writer, reader] = await twoInstances();
    expect(writer.changeFeed.announcesWrites).toBe(true);
    const onReader = heard(reader.changeFeed);
    const announced: ChangeNotice[] = [];
    const cellar = createCellar({
      ...writer,
      blobs: createMemoryBlobStore(),
      mailer: createMemoryMailer(),
      changeFeed: {
        ...writer.changeFeed,
        announce: (notice) => announced.push(notice),
      },
      config: { jwtSecret: "s".repeat(32), publicUrl: "http://cellar.test" },
    });
    const owner = await writer.users.insertIfAbsent(aUser());
    const [file, other] = [aFile(owner.id), aFile(owner.id)];
    await writer.files.insert({ file, activity: [] });
    await writer.files.insert({ file: other, activity: [] });

    await cellar.files.update({ callerId: owner.id, fileId: file.id, changes: { name: "Renamed.csv" } });
    await writer.files.update({
      id: other.id,
      changes: { name: "Renamed.csv", updatedAt: at(2) },
      activity: [anActivityEntry(other.id, owner.id)],
    });
    await waitFor(() => expect(onReader).toContainEqual({ fileId: other.id }));
    expect(onReader).toEqual([{ fileId: file.id }, { fileId: other.id }]);
    expect(announced).toEqual([]);
  });
});
