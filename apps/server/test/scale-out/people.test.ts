import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { call, type FileJson, signIn, upload } from "../support/cellar-http.js";
import { s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("people");

/** A file as the API returns it to someone it is shared with. */
interface SharedFileJson extends FileJson {
  readonly role: string | null;
}

interface PermissionJson {
  readonly id: string;
  readonly email: string;
  readonly role: string;
  readonly user: { readonly id: string } | null;
  readonly notified?: boolean;
}

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

/**
 * Two server processes, A and B, on one fresh PostgreSQL database and one fresh bucket of
 * s3rver, each with a DATA_DIR (and so a dev outbox) of its own. No account limit in the way.
 */
async function twoInstances(): Promise<[ServerProcess, ServerProcess]> {
  const database = await createTestDatabase(inject("postgresUrl"), "people");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "people");
  const env = {
    DATABASE_URL: database.url,
    RATE_LIMIT_MAX: "100000",
    INVITE_RATE_MAX: "1000",
    ...s3Env(store, `s3://${bucket}/cellar`),
  };
  return (await Promise.all([
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
  ])) as [ServerProcess, ServerProcess];
}

/** Signs `email` in through `server` alone: link asked for, read from its outbox and spent there. */
const signInAt = (server: ServerProcess, email: string) =>
  signIn({ requestAt: server.url, dataDir: dataDirOf(server) }, email);

async function uploadCsv(server: ServerProcess, jwt: string, name: string): Promise<FileJson> {
  const answer = await upload(server.url, jwt, name, new TextEncoder().encode("a,b\n1,2\n"));
  expect(answer.status).toBe(201);
  return JSON.parse(answer.text) as FileJson;
}

/** The ids of the files listed by `GET /files?shared=true` for `jwt` (one page of 100). */
async function sharedIds(server: ServerProcess, jwt: string): Promise<string[]> {
  const listed = await call<SharedFileJson[]>(`${server.url}/v1/files?shared=true&per_page=100`, jwt);
  expect(listed.status).toBe(200);
  return listed.body.map((file) => file.id);
}

describe("people on a file, two server processes on one PostgreSQL and one bucket", () => {
  it("a lower role or a removal made through one instance is refused through the other from the moment it is answered", async () => {
    const [a, b] = await twoInstances();
    const owner = await signInAt(a, "ada@example.com");
    const bo = await signInAt(b, "bo@example.com");
    const file = await uploadCsv(a, owner.jwt, "budget.csv");
    const fileUrl = (server: ServerProcess) => `${server.url}/v1/files/${file.id}`;
    const permissionsUrl = `${a.url}/v1/files/${file.id}/permissions`;

    // Before any share, B does not show Bo the file.
    expect((await call(fileUrl(b), bo.jwt)).status).toBe(404);

    const shared = await call<PermissionJson>(permissionsUrl, owner.jwt, "POST", {
      email: "bo@example.com",
      role: "editor",
      notify: false,
    });
    expect(shared.status).toBe(201);
    expect(shared.body).toMatchObject({ email: "bo@example.com", role: "editor", user: { id: bo.userId } });
    const permissionUrl = `${permissionsUrl}/${shared.body.id}`;

    // Bo, an editor, renames through B.
    const renamed = await call<SharedFileJson>(fileUrl(b), bo.jwt, "PATCH", { name: "renamed by Bo.csv" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: "renamed by Bo.csv", role: "editor" });

    // Editor, then viewer, round after round: B's request leaves right after A's answer.
    for (let round = 0; round < 6; round++) {
      const raised = await call<PermissionJson>(permissionUrl, owner.jwt, "PATCH", { role: "editor" });
      expect(raised.status).toBe(200);
      const allowed = await call(fileUrl(b), bo.jwt, "PATCH", { name: `round ${round}.csv` });
      expect(allowed.status, `round ${round}: a rename through B after A raised Bo to editor`).toBe(200);

      const lowered = await call<PermissionJson>(permissionUrl, owner.jwt, "PATCH", { role: "viewer" });
      expect(lowered.status).toBe(200);
      expect(lowered.body.role).toBe("viewer");
      const refused = await call<{ error: { code: string } }>(fileUrl(b), bo.jwt, "PATCH", {
        name: `too late ${round}.csv`,
      });
      expect(refused.status, `round ${round}: a rename through B after A lowered Bo to viewer`).toBe(403);
      expect(refused.body.error.code).toBe("forbidden");
    }
    // The viewer still sees the file through B, under the last name an editor gave it, as a viewer.
    const seen = await call<SharedFileJson>(fileUrl(b), bo.jwt);
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ name: "round 5.csv", role: "viewer" });

    // Shared, seen through B, taken away through A; the next read through B no longer sees
    // it. The two reads take turns at going first.
    let permissionId = shared.body.id;
    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        const again = await call<PermissionJson>(permissionsUrl, owner.jwt, "POST", {
          email: "bo@example.com",
          role: "viewer",
          notify: false,
        });
        expect(again.status).toBe(201);
        permissionId = again.body.id;
      }
      expect((await call(fileUrl(b), bo.jwt)).status).toBe(200);
      expect(await sharedIds(b, bo.jwt)).toEqual([file.id]);

      const removed = await call(`${permissionsUrl}/${permissionId}`, owner.jwt, "DELETE");
      expect(removed.status).toBe(204);
      const readFile = async () => {
        const answer = await call<{ error: { code: string } }>(fileUrl(b), bo.jwt);
        expect(answer.status, `round ${round}: GET through B after A removed Bo`).toBe(404);
        expect(answer.body.error.code).toBe("not_found");
      };
      const readList = async () =>
        expect(await sharedIds(b, bo.jwt), `round ${round}: the shared list through B after A removed Bo`).toEqual([]);
      if (round % 2 === 0) {
        await readFile();
        await readList();
      } else {
        await readList();
        await readFile();
      }
      // Nor may Bo rename or download it through B.
      expect((await call(fileUrl(b), bo.jwt, "PATCH", { name: "gone.csv" })).status).toBe(404);
      expect((await fetch(`${fileUrl(b)}/download`, { headers: { authorization: `Bearer ${bo.jwt}` } })).status).toBe(
        404,
      );
    }
    // The owner's file is as Bo last left it.
    expect((await call<FileJson>(fileUrl(b), owner.jwt)).body.name).toBe("round 5.csv");
  }, 90_000);

  it("a role given through one instance to an address with no account is seen at its first sign-in through the other", async () => {
    const [a, b] = await twoInstances();
    const owner = await signInAt(a, "ada@example.com");
    const file = await uploadCsv(a, owner.jwt, "invitation.csv");

    const invited = await call<PermissionJson>(`${a.url}/v1/files/${file.id}/permissions`, owner.jwt, "POST", {
      email: "Cy@Example.com",
      role: "commenter",
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: "cy@example.com", role: "commenter", user: null, notified: true });

    // Cy's first sign-in, through B: the file is there at once, in the list and by its id.
    const cy = await signInAt(b, "cy@example.com");
    const listed = await call<SharedFileJson[]>(`${b.url}/v1/files?shared=true`, cy.jwt);
    expect(listed.status).toBe(200);
    expect(listed.body.map((shared) => [shared.id, shared.role])).toEqual([[file.id, "commenter"]]);
    const read = await call<SharedFileJson>(`${b.url}/v1/files/${file.id}`, cy.jwt);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: file.id, name: "invitation.csv", role: "commenter" });

    // Both instances show the permission attached to Cy's new account.
    for (const server of [a, b]) {
      const people = await call<PermissionJson[]>(`${server.url}/v1/files/${file.id}/permissions`, owner.jwt);
      expect(people.body).toMatchObject([{ email: "cy@example.com", role: "commenter", user: { id: cy.userId } }]);
    }
  }, 60_000);

  it("makes exactly 100 people on one file of concurrent shares through both instances; the rest are 409 limit_reached", async () => {
    const [a, b] = await twoInstances();
    const owner = await signInAt(a, "ada@example.com");
    const file = await uploadCsv(a, owner.jwt, "crowded.csv");
    const asked = 110;
    const answers = await Promise.all(
      Array.from({ length: asked }, (_, i) =>
        call<PermissionJson & { error: { code: string } }>(
          `${(i % 2 === 0 ? a : b).url}/v1/files/${file.id}/permissions`,
          owner.jwt,
          "POST",
          { email: `person${i}@example.com`, role: "viewer", notify: false },
        ),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.filter((status) => status === 409)).toHaveLength(asked - 100);
    for (const answer of answers.filter((refused) => refused.status === 409)) {
      expect(answer.body.error.code).toBe("limit_reached");
    }
    // Exactly the 100 made are on the file, whichever instance is asked; a 111th is refused too.
    const made = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.email);
    for (const server of [a, b]) {
      const people = await call<PermissionJson[]>(`${server.url}/v1/files/${file.id}/permissions`, owner.jwt);
      expect(people.status).toBe(200);
      expect(people.body.map((person) => person.email).sort()).toEqual([...made].sort());
    }
    const more = await call<{ error: { code: string } }>(
      `${b.url}/v1/files/${file.id}/permissions`,
      owner.jwt,
      "POST",
      {
        email: "one-more@example.com",
        role: "viewer",
        notify: false,
      },
    );
    expect(more.status).toBe(409);
    expect(more.body.error.code).toBe("limit_reached");
    // An address already on the file only changes its role: no room is needed.
    const changed = await call<PermissionJson>(`${a.url}/v1/files/${file.id}/permissions`, owner.jwt, "POST", {
      email: made[0],
      role: "editor",
      notify: false,
    });
    expect(changed.status).toBe(200);
    expect(changed.body.role).toBe("editor");
  }, 90_000);
});
