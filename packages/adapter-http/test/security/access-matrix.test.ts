import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  expectError,
  type FileAction,
  type FileBody,
  requestFileAction,
  type TestApp,
} from "../support/test-app.js";

/**
 * files.test.ts walks the API's access matrix status by status. This file adds what
 * an attacker probes next: that a 404 for a file they may not see is the very same answer,
 * byte for byte, as a 404 for an id that never existed, so nothing tells "exists, hidden"
 * from "absent"; and that listings show each file to its owner only, in the right list.
 */

type Action = FileAction;
type Actor = "owner" | "other";
type Visibility = "private" | "public";
type State = "active" | "trashed";

const ACTIONS: readonly Action[] = ["get", "patch", "delete", "restore", "download"];

interface Cell {
  readonly actor: Actor;
  readonly visibility: Visibility;
  readonly state: State;
  /** The status of each action, as docs/api.md gives it. */
  readonly statuses: Readonly<Record<Action, 200 | 403 | 404 | 409>>;
  /** Whether the file appears in the actor's `GET /files` and `GET /files?trashed=true`. */
  readonly listed: { readonly active: boolean; readonly trash: boolean };
}

const HIDDEN = { get: 404, patch: 404, delete: 404, restore: 404, download: 404 } as const;

/** The whole matrix: two users × private/public × active/trashed. */
const MATRIX: readonly Cell[] = [
  {
    actor: "owner",
    visibility: "private",
    state: "active",
    statuses: { get: 200, patch: 200, delete: 200, restore: 200, download: 200 },
    listed: { active: true, trash: false },
  },
  {
    actor: "owner",
    visibility: "public",
    state: "active",
    statuses: { get: 200, patch: 200, delete: 200, restore: 200, download: 200 },
    listed: { active: true, trash: false },
  },
  {
    actor: "owner",
    visibility: "private",
    state: "trashed",
    statuses: { get: 200, patch: 409, delete: 200, restore: 200, download: 409 },
    listed: { active: false, trash: true },
  },
  {
    actor: "owner",
    visibility: "public",
    state: "trashed",
    statuses: { get: 200, patch: 409, delete: 200, restore: 200, download: 409 },
    listed: { active: false, trash: true },
  },
  {
    actor: "other",
    visibility: "public",
    state: "active",
    statuses: { get: 200, patch: 403, delete: 403, restore: 403, download: 200 },
    listed: { active: false, trash: false },
  },
  { actor: "other", visibility: "private", state: "active", statuses: HIDDEN, listed: { active: false, trash: false } },
  { actor: "other", visibility: "public", state: "trashed", statuses: HIDDEN, listed: { active: false, trash: false } },
  {
    actor: "other",
    visibility: "private",
    state: "trashed",
    statuses: HIDDEN,
    listed: { active: false, trash: false },
  },
];

const ERROR_CODES = { 403: "forbidden", 404: "not_found", 409: "file_in_trash" } as const;

/** An id of the real shape that no file has. */
const NEVER_EXISTED = "file_aaaaaaaaaaaaaaaaaaaaaaaa";

/** What may differ between two answers to two requests: the request's own id and the budget left. */
const PER_REQUEST_HEADERS = new Set(["x-request-id", "x-ratelimit-remaining", "date"]);

function comparable(response: LightMyRequestResponse) {
  const headers = Object.entries(response.headers)
    .filter(([name]) => !PER_REQUEST_HEADERS.has(name))
    .sort(([a], [b]) => a.localeCompare(b));
  return { status: response.statusCode, body: response.rawPayload.toString("base64"), headers };
}

describe("the access matrix, as an attacker sees it", () => {
  let t: TestApp;
  const users: Record<Actor, { authorization: string }> = {} as Record<Actor, { authorization: string }>;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    users.owner = (await t.signIn("owner@example.com")).headers;
    users.other = (await t.signIn("other@example.com")).headers;
  });

  const request = (action: Action, id: string, actor: Actor) => requestFileAction(t, action, id, users[actor]);

  async function listed(actor: Actor, trashed: boolean): Promise<string[]> {
    const url = `/v1/files?per_page=100${trashed ? "&trashed=true" : ""}`;
    const response = await t.inject({ method: "GET", url, headers: users[actor] });
    expect(response.statusCode).toBe(200);
    return response.json<FileBody[]>().map((file) => file.id);
  }

  /** A fresh file in the cell's visibility and state, so no action sees another's effects. */
  async function fileFor({ visibility, state }: Cell): Promise<FileBody> {
    const file = await t.uploadCsv(users.owner, { visibility });
    if (state === "trashed") {
      const trashed = await request("delete", file.id, "owner");
      expect(trashed.statusCode).toBe(200);
    }
    return file;
  }

  const title = ({ actor, visibility, state }: Cell) =>
    `${actor === "owner" ? "the owner" : "someone else"}, a ${visibility} ${state} file`;

  it.each(MATRIX.map((cell) => [title(cell), cell] as const))("%s", async (_title, cell) => {
    // Listings: the file is in the owner's list for its state, and in no list of anyone else.
    const listedFile = await fileFor(cell);
    expect((await listed(cell.actor, false)).includes(listedFile.id), "in GET /files").toBe(cell.listed.active);
    expect((await listed(cell.actor, true)).includes(listedFile.id), "in GET /files?trashed=true").toBe(
      cell.listed.trash,
    );

    for (const action of ACTIONS) {
      const file = await fileFor(cell);
      const status = cell.statuses[action];
      const response = await request(action, file.id, cell.actor);
      if (status === 200) {
        expect(response.statusCode, `${action}: ${response.body}`).toBe(200);
        continue;
      }
      expectError(response, status, ERROR_CODES[status]);
      if (status !== 404) continue;
      // The same request on an id that never existed: indistinguishable, byte for byte.
      const missing = await request(action, NEVER_EXISTED, cell.actor);
      expect(comparable(response), `${action} on a hidden file vs a missing one`).toEqual(comparable(missing));
      expect(response.body).not.toContain(file.id);
    }
  });
});

describe("a purged file", () => {
  it("is answered exactly as one that never existed, to its owner and to anyone else", async () => {
    const t = await buildTestApp({ config: { jwtTtlSeconds: 60 * 86_400 } });
    const owner = (await t.signIn("owner@example.com")).headers;
    const other = (await t.signIn("other@example.com")).headers;
    const file = await t.uploadCsv(owner);
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: owner });
    t.clock.advance(31 * 86_400_000);
    expect((await t.cellar.files.purgeDue()).purged).toBe(1);
    for (const headers of [owner, other]) {
      for (const [method, suffix] of [
        ["GET", ""],
        ["PATCH", ""],
        ["DELETE", ""],
        ["POST", "/restore"],
        ["GET", "/download"],
      ] as const) {
        const payload = method === "PATCH" ? { name: "renamed" } : undefined;
        const purged = await t.inject({ method, url: `/v1/files/${file.id}${suffix}`, headers, payload });
        expectError(purged, 404, "not_found");
        const missing = await t.inject({ method, url: `/v1/files/${NEVER_EXISTED}${suffix}`, headers, payload });
        expect(comparable(purged)).toEqual(comparable(missing));
      }
    }
  });
});
