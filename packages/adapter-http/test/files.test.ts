import { beforeAll, describe, expect, it } from "vitest";
import {
  buildTestApp,
  expectError,
  type FileAction,
  type FileBody,
  PUBLIC_URL,
  requestFileAction,
  type TestApp,
} from "./support/test-app.js";

const DAY = 86_400_000;

describe("GET /v1/files", () => {
  it("lists only the caller's active files, newest first", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const bob = await t.signIn("bob@example.com");
    const first = await t.uploadCsv(alice.headers, { name: "first" });
    t.clock.advance(1000);
    const second = await t.uploadCsv(alice.headers, { name: "second" });
    await t.uploadCsv(bob.headers, { name: "bob's", visibility: "public" });
    t.clock.advance(1000);
    const trashed = await t.uploadCsv(alice.headers, { name: "trashed" });
    await t.inject({ method: "DELETE", url: `/v1/files/${trashed.id}`, headers: alice.headers });

    const response = await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json<FileBody[]>().map((file) => file.name)).toEqual([second.name, first.name]);
    expect(response.headers["x-total-count"]).toBe("2");
  });

  it("lists the caller's trash with trashed=true, and the links keep it", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    await t.uploadCsv(alice.headers, { name: "kept" });
    const trashed = await t.uploadCsv(alice.headers, { name: "binned" });
    await t.inject({ method: "DELETE", url: `/v1/files/${trashed.id}`, headers: alice.headers });

    const response = await t.inject({ method: "GET", url: "/v1/files?trashed=true", headers: alice.headers });
    expect(response.json<FileBody[]>().map((file) => [file.name, file.state])).toEqual([["binned", "trashed"]]);
    expect(response.headers.link).toBe(
      `<${PUBLIC_URL}/v1/files?trashed=true&page=1&per_page=25>; rel="first", <${PUBLIC_URL}/v1/files?trashed=true&page=1&per_page=25>; rel="last"`,
    );
    const active = await t.inject({ method: "GET", url: "/v1/files?trashed=false", headers: alice.headers });
    expect(active.json<FileBody[]>().map((file) => file.name)).toEqual(["kept"]);
  });

  it("answers an empty array with zero totals and no Link header when there is nothing", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expect(response.json()).toEqual([]);
    expect(response.headers).toMatchObject({
      "x-total-count": "0",
      "x-total-pages": "0",
      "x-page": "1",
      "x-per-page": "25",
    });
    expect(response.headers).not.toHaveProperty("link");
  });

  describe("pagination over five files", () => {
    let t: TestApp;
    let headers: { authorization: string };
    const link = (page: number, perPage: number) => `<${PUBLIC_URL}/v1/files?page=${page}&per_page=${perPage}>`;

    beforeAll(async () => {
      t = await buildTestApp();
      headers = (await t.signIn("alice@example.com")).headers;
      for (let i = 1; i <= 5; i++) {
        await t.uploadCsv(headers, { name: `file ${i}` });
        t.clock.advance(1000);
      }
    });

    it("serves a middle page with first, prev, next and last links and the totals", async () => {
      const response = await t.inject({ method: "GET", url: "/v1/files?page=2&per_page=2", headers });
      expect(response.json<FileBody[]>().map((file) => file.name)).toEqual(["file 3", "file 2"]);
      expect(response.headers).toMatchObject({
        "x-total-count": "5",
        "x-total-pages": "3",
        "x-page": "2",
        "x-per-page": "2",
      });
      expect(response.headers.link).toBe(
        `${link(1, 2)}; rel="first", ${link(1, 2)}; rel="prev", ${link(3, 2)}; rel="next", ${link(3, 2)}; rel="last"`,
      );
    });

    it("gives the first page no prev link and the last page no next link", async () => {
      const first = await t.inject({ method: "GET", url: "/v1/files?per_page=2", headers });
      expect(first.headers.link).toBe(
        `${link(1, 2)}; rel="first", ${link(2, 2)}; rel="next", ${link(3, 2)}; rel="last"`,
      );
      const last = await t.inject({ method: "GET", url: "/v1/files?page=3&per_page=2", headers });
      expect(last.json<FileBody[]>().map((file) => file.name)).toEqual(["file 1"]);
      expect(last.headers.link).toBe(
        `${link(1, 2)}; rel="first", ${link(2, 2)}; rel="prev", ${link(3, 2)}; rel="last"`,
      );
    });

    it("answers a page past the end with an empty array, linking back to the last page", async () => {
      const response = await t.inject({ method: "GET", url: "/v1/files?page=9&per_page=2", headers });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([]);
      expect(response.headers["x-page"]).toBe("9");
      expect(response.headers.link).toBe(
        `${link(1, 2)}; rel="first", ${link(3, 2)}; rel="prev", ${link(3, 2)}; rel="last"`,
      );
    });

    it("serves a per_page above 100 as 100, and says so", async () => {
      const response = await t.inject({ method: "GET", url: "/v1/files?per_page=500", headers });
      expect(response.headers["x-per-page"]).toBe("100");
      expect(response.headers.link).toContain("per_page=100");
      expect(response.json()).toHaveLength(5);
    });

    it.each(["1000000000", "999999999999999"])("serves a per_page of %s as 100", async (perPage) => {
      const response = await t.inject({ method: "GET", url: `/v1/files?per_page=${perPage}`, headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers["x-per-page"]).toBe("100");
      expect(response.headers.link).toBe(`${link(1, 100)}; rel="first", ${link(1, 100)}; rel="last"`);
      expect(response.json()).toHaveLength(5);
    });

    it.each(["1000000000", "999999999999999"])(
      "answers page %s with an empty page past the end, its totals intact",
      async (page) => {
        const response = await t.inject({ method: "GET", url: `/v1/files?page=${page}&per_page=2`, headers });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual([]);
        expect(response.headers).toMatchObject({
          "x-total-count": "5",
          "x-total-pages": "3",
          "x-page": page,
          "x-per-page": "2",
        });
        expect(response.headers.link).toBe(
          `${link(1, 2)}; rel="first", ${link(3, 2)}; rel="prev", ${link(3, 2)}; rel="last"`,
        );
      },
    );

    it("answers the largest page of the largest per_page with an empty page past the end", async () => {
      const response = await t.inject({
        method: "GET",
        url: "/v1/files?page=999999999999999&per_page=999999999999999",
        headers,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([]);
      expect(response.headers).toMatchObject({ "x-total-count": "5", "x-total-pages": "1", "x-per-page": "100" });
    });

    it.each([
      "page=0",
      "page=-1",
      "page=1.5",
      "page=abc",
      "page=",
      "page=01",
      "page=1000000000000000",
      "per_page=0",
      "per_page=007",
      "per_page=1e2",
      "per_page=%201",
      "per_page=99999999999999999999",
      "page=1&page=2",
      "trashed=yes",
      "sort=Name",
      "sort=%2Bname",
      "sort=--name",
      "sort=id",
      "sort=",
      "sort=name&sort=size",
      "q=",
      `q=${"x".repeat(101)}`,
      "q=a&q=b",
      "q=tab%09in",
    ])("answers 400 validation_error for ?%s", async (query) => {
      const response = await t.inject({ method: "GET", url: `/v1/files?${query}`, headers });
      const body = expectError(response, 400, "validation_error");
      expect(body.error.details?.length).toBeGreaterThan(0);
    });

    it("names the field and the rule for a bad page number", async () => {
      const response = await t.inject({ method: "GET", url: "/v1/files?page=0", headers });
      expect(expectError(response, 400, "validation_error").error.details).toEqual([
        { field: "page", message: "must be a whole number of at least 1, without leading zeros" },
      ]);
    });

    it("names the field and the length rule for a page number of 16 digits", async () => {
      const response = await t.inject({ method: "GET", url: "/v1/files?page=1000000000000000", headers });
      expect(expectError(response, 400, "validation_error").error.details).toEqual([
        { field: "page", message: "must be at most 15 characters" },
      ]);
    });
  });
});

describe("finding files with GET /v1/files?q=…&sort=…", () => {
  let t: TestApp;
  let headers: { authorization: string };
  const byName: Record<string, FileBody> = {};

  beforeAll(async () => {
    t = await buildTestApp();
    headers = (await t.signIn("alice@example.com")).headers;
    const bob = await t.signIn("bob@example.com");
    await t.uploadCsv(bob.headers, { name: "ÄRGER bob.csv", visibility: "public" });
    const names = ["ÄRGER im Amt.csv", "Notes.csv", "ärger notes.csv", "Plan.csv", "Ärger-Liste.csv", "Straße.csv"];
    for (const [i, name] of names.entries()) {
      // Sizes that order the files otherwise than their names or times.
      const file = await t.uploadCsv(headers, { name, content: `a,b\n${"1,2\n".repeat((i * 5) % 7)}` });
      byName[name] = file;
      t.clock.advance(1000);
    }
  });

  const list = (query: string) => t.inject({ method: "GET", url: `/v1/files?${query}`, headers });
  const namesOf = (response: Awaited<ReturnType<typeof list>>) => response.json<FileBody[]>().map((f) => f.name);

  it("keeps the caller's files whose name contains q, ignoring case in any script, newest first", async () => {
    const response = await list(`q=${encodeURIComponent("ärger")}`);
    expect(response.statusCode).toBe(200);
    expect(namesOf(response)).toEqual(["Ärger-Liste.csv", "ärger notes.csv", "ÄRGER im Amt.csv"]);
    expect(response.headers["x-total-count"]).toBe("3");
    expect(namesOf(await list("q=STRASSE"))).toEqual(["Straße.csv"]);
    expect(namesOf(await list("q=notes"))).toEqual(["ärger notes.csv", "Notes.csv"]);
  });

  it("answers an empty page with zero totals and no Link when q finds nothing", async () => {
    const response = await list("q=nothing%20here");
    expect(response.json()).toEqual([]);
    expect(response.headers).toMatchObject({ "x-total-count": "0", "x-total-pages": "0" });
    expect(response.headers).not.toHaveProperty("link");
  });

  it("sorts by name ignoring case, by size, and by either date, each both ways", async () => {
    // By key, code point by code point: "ä" (U+00E4) after every ASCII letter, " " before "-".
    const byKey = ["Notes.csv", "Plan.csv", "Straße.csv", "ÄRGER im Amt.csv", "ärger notes.csv", "Ärger-Liste.csv"];
    expect(namesOf(await list("sort=name"))).toEqual(byKey);
    expect(namesOf(await list("sort=-name"))).toEqual([...byKey].reverse());
    const sizes = (response: Awaited<ReturnType<typeof list>>) => response.json<FileBody[]>().map((f) => f.size);
    const ascending = sizes(await list("sort=size"));
    expect(ascending).toEqual([...ascending].sort((a, b) => a - b));
    expect(sizes(await list("sort=-size"))).toEqual([...ascending].reverse());
    const uploaded = Object.keys(byName);
    expect(namesOf(await list("sort=created_at"))).toEqual(uploaded);
    expect(namesOf(await list("sort=-created_at"))).toEqual([...uploaded].reverse());
    expect(namesOf(await list("sort=updated_at"))).toEqual(uploaded);
    expect(namesOf(await list("sort=-updated_at"))).toEqual(namesOf(await list("")));
  });

  it("finds and sorts the trash too", async () => {
    const local = await buildTestApp();
    const alice = await local.signIn("alice@example.com");
    for (const name of ["b report.csv", "A report.csv", "notes.csv"]) {
      const file = await local.uploadCsv(alice.headers, { name });
      await local.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    }
    await local.uploadCsv(alice.headers, { name: "active report.csv" });
    const response = await local.inject({
      method: "GET",
      url: "/v1/files?trashed=true&q=REPORT&sort=name",
      headers: alice.headers,
    });
    expect(response.json<FileBody[]>().map((f) => [f.name, f.state])).toEqual([
      ["A report.csv", "trashed"],
      ["b report.csv", "trashed"],
    ]);
    expect(response.headers.link).toBe(
      `<${PUBLIC_URL}/v1/files?trashed=true&q=REPORT&sort=name&page=1&per_page=25>; rel="first", <${PUBLIC_URL}/v1/files?trashed=true&q=REPORT&sort=name&page=1&per_page=25>; rel="last"`,
    );
  });

  it("keeps q and sort in every Link, and following next gives the next page of the same listing", async () => {
    const response = await list(`q=${encodeURIComponent("ärger ")}&sort=-name&per_page=1&page=2`);
    expect(namesOf(response)).toEqual(["ÄRGER im Amt.csv"]);
    expect(response.headers).toMatchObject({ "x-total-count": "2", "x-total-pages": "2", "x-page": "2" });
    const link = (page: number) => `<${PUBLIC_URL}/v1/files?q=%C3%A4rger+&sort=-name&page=${page}&per_page=1>`;
    expect(response.headers.link).toBe(`${link(1)}; rel="first", ${link(1)}; rel="prev", ${link(2)}; rel="last"`);
    const first = /<([^>]+)>; rel="first"/.exec(String(response.headers.link))?.[1] as string;
    const followed = await t.inject({ method: "GET", url: first.slice(PUBLIC_URL.length), headers });
    expect(namesOf(followed)).toEqual(["ärger notes.csv"]);
    expect(followed.headers.link).toContain(`${link(2)}; rel="next"`);
  });

  it("names q and sort, each with its rule, in the details of a 400", async () => {
    const response = await list(`q=&sort=NAME`);
    expect(expectError(response, 400, "validation_error").error.details).toEqual([
      { field: "q", message: "must not be empty" },
      {
        field: "sort",
        message:
          "must be one of 'created_at', '-created_at', 'updated_at', '-updated_at', 'name', '-name', 'size', '-size'",
      },
    ]);
    const tooLong = await list(`q=${"é".repeat(101)}`);
    expect(expectError(tooLong, 400, "validation_error").error.details).toEqual([
      { field: "q", message: "must be at most 100 characters" },
    ]);
    expect((await list(`q=${encodeURIComponent("\u{1F4CA}".repeat(100))}`)).statusCode).toBe(200);
    const control = await list("q=a%00b");
    expect(expectError(control, 400, "validation_error").error.details).toEqual([
      { field: "q", message: "must not contain control characters" },
    ]);
  });
});

describe("GET /v1/files/:id", () => {
  it("returns the File object with every field in snake_case", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const uploaded = await t.uploadCsv(alice.headers, { filename: "budget.csv", content: "a,b\n" });
    const response = await t.inject({ method: "GET", url: `/v1/files/${uploaded.id}`, headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: uploaded.id,
      name: "budget.csv",
      visibility: "private",
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      size: 4,
      content_type: "text/csv",
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      owner_id: alice.user.id,
      state: "active",
      trashed_at: null,
      purge_at: null,
      role: "owner",
      version: 1,
    });
  });

  it("answers 404 not_found for an id that does not exist", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({
      method: "GET",
      url: "/v1/files/file_aaaaaaaaaaaaaaaaaaaaaaaa",
      headers: alice.headers,
    });
    expectError(response, 404, "not_found");
  });
});

describe("PATCH /v1/files/:id", () => {
  it("renames the file, trimming the name, and moves updated_at on", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    t.clock.advance(5000);
    const response = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice.headers,
      payload: { name: "  Q3 numbers  " },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      name: "Q3 numbers",
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:05.000Z",
    });
  });

  it("changes visibility", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    const response = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice.headers,
      payload: { visibility: "public" },
    });
    expect(response.json()).toMatchObject({ visibility: "public", name: file.name });
  });

  describe("refuses", () => {
    let t: TestApp;
    let headers: { authorization: string };
    let file: FileBody;

    beforeAll(async () => {
      t = await buildTestApp();
      headers = (await t.signIn("alice@example.com")).headers;
      file = await t.uploadCsv(headers, { name: "unchanged" });
    });

    const patch = (payload: string, contentType = "application/json") =>
      t.inject({
        method: "PATCH",
        url: `/v1/files/${file.id}`,
        headers: { ...headers, "content-type": contentType },
        payload,
      });

    it.each(["id", "owner_id", "size", "state", "sha256", "created_at", "constructor", "__proto__"])(
      "the field %s with 400 validation_error naming it",
      async (field) => {
        const response = await patch(`{"name":"x",${JSON.stringify(field)}:"x"}`);
        const body = expectError(response, 400, "validation_error");
        expect(body.error.details).toContainEqual({ field, message: "is not a known field" });
      },
    );

    it("a prototype-polluting key nested anywhere with 400", async () => {
      const response = await patch('{"name":{"__proto__":{"admin":true}}}');
      expectError(response, 400, "validation_error");
      expect(({} as Record<string, unknown>).admin).toBeUndefined();
    });

    it.each([
      ["an empty object", "{}"],
      ["an empty body", ""],
      ["a JSON array", "[]"],
      ["a JSON string", '"name"'],
      ["null", "null"],
      ["a number for name", '{"name":1}'],
      ["an unknown visibility", '{"visibility":"friends"}'],
      ["an empty name", '{"name":"   "}'],
      ["a name with a control character", '{"name":"a\\u0007b"}'],
      ["a name of 256 characters", JSON.stringify({ name: "x".repeat(256) })],
    ])("%s with 400 validation_error", async (_case, payload) => {
      expectError(await patch(payload), 400, "validation_error");
    });

    it("malformed JSON with 400 validation_error", async () => {
      const body = expectError(await patch('{"name": "x"'), 400, "validation_error");
      expect(body.error.message).toBe("The request body is not valid JSON.");
    });

    it("a JSON body over 1 MiB with 413 payload_too_large", async () => {
      expectError(await patch(JSON.stringify({ name: "x".repeat(1_048_576) })), 413, "payload_too_large");
    });

    it.each(["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"])(
      "a body sent as %s with 415 unsupported_media_type",
      async (contentType) => {
        expectError(await patch('{"name":"x"}', contentType), 415, "unsupported_media_type");
      },
    );

    it("all of the above without changing the file", async () => {
      const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers });
      expect(response.json()).toMatchObject({ name: "unchanged", updated_at: file.updated_at });
    });
  });
});

describe("DELETE /v1/files/:id and POST /v1/files/:id/restore", () => {
  it("moves the file to the trash with trashed_at and purge_at 30 days on", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    t.clock.advance(1000);
    const response = await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: file.id,
      state: "trashed",
      trashed_at: "2026-11-21T10:00:01.000Z",
      purge_at: new Date(Date.parse("2026-11-21T10:00:01.000Z") + 30 * DAY).toISOString(),
    });
  });

  it("answers 200 and changes nothing when a trashed file is deleted again", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    const trashed = await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    t.clock.advance(1000);
    const again = await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(trashed.json());
  });

  it("brings a trashed file back, active with no trash dates", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    const response = await t.inject({ method: "POST", url: `/v1/files/${file.id}/restore`, headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ state: "active", trashed_at: null, purge_at: null });
  });

  it("accepts a Content-Type of application/json with no body, as some clients send", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    const headers = { ...alice.headers, "content-type": "application/json" };
    expect((await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers })).statusCode).toBe(200);
    expect((await t.inject({ method: "POST", url: `/v1/files/${file.id}/restore`, headers })).statusCode).toBe(200);
  });
});

type Action = FileAction;
type Visibility = "private" | "public";
type State = "active" | "trashed";

interface AccessCase {
  readonly actor: "owner" | "other";
  readonly visibility: Visibility;
  readonly state: State;
  readonly action: Action;
  readonly status: number;
}

const ACTIONS: readonly Action[] = ["get", "patch", "delete", "restore", "download"];
const VISIBILITIES: readonly Visibility[] = ["private", "public"];

/** What the owner of a trashed file may do: look, trash again, restore; not edit or download. */
const OWNER_TRASHED: Record<Action, number> = { get: 200, patch: 409, delete: 200, restore: 200, download: 409 };
/** What anyone else may do to a public, active file: look and download. */
const OTHER_PUBLIC_ACTIVE: Record<Action, number> = { get: 200, patch: 403, delete: 403, restore: 403, download: 200 };

/** The access table (docs/api.md and core's file-access.ts), over HTTP: every actor × file × action. */
const ACCESS_MATRIX: readonly AccessCase[] = ACTIONS.flatMap((action) => [
  ...VISIBILITIES.flatMap((visibility) => [
    { actor: "owner", visibility, state: "active", action, status: 200 } as const,
    { actor: "owner", visibility, state: "trashed", action, status: OWNER_TRASHED[action] } as const,
  ]),
  { actor: "other", visibility: "public", state: "active", action, status: OTHER_PUBLIC_ACTIVE[action] } as const,
  { actor: "other", visibility: "public", state: "trashed", action, status: 404 } as const,
  { actor: "other", visibility: "private", state: "active", action, status: 404 } as const,
  { actor: "other", visibility: "private", state: "trashed", action, status: 404 } as const,
]);

const VERBS: Record<Action, string> = {
  get: "reads",
  patch: "renames",
  delete: "trashes",
  restore: "restores",
  download: "downloads",
};

function describeCase({ actor, visibility, state, action, status }: AccessCase): string {
  return `${actor === "owner" ? "the owner" : "someone else"} ${VERBS[action]} a ${visibility}, ${state} file: ${status}`;
}

const ERROR_CODES: Record<number, string> = { 403: "forbidden", 404: "not_found", 409: "file_in_trash" };

describe("who may do what to a file", () => {
  let t: TestApp;
  let owner: { authorization: string };
  let other: { authorization: string };

  beforeAll(async () => {
    t = await buildTestApp();
    owner = (await t.signIn("owner@example.com")).headers;
    other = (await t.signIn("other@example.com")).headers;
  });

  const request = (action: Action, id: string, headers: { authorization: string }) =>
    requestFileAction(t, action, id, headers);

  it.each(ACCESS_MATRIX.map((accessCase) => [describeCase(accessCase), accessCase] as const))(
    "%s",
    async (_title, { actor, visibility, state, action, status }) => {
      const file = await t.uploadCsv(owner, { visibility });
      if (state === "trashed") await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: owner });
      const response = await request(action, file.id, actor === "owner" ? owner : other);
      const code = ERROR_CODES[status];
      if (code === undefined) expect(response.statusCode, response.body).toBe(status);
      else expectError(response, status, code);
    },
  );

  it("never lists someone else's files, even public ones", async () => {
    await t.uploadCsv(owner, { visibility: "public", name: "shared" });
    const response = await t.inject({ method: "GET", url: "/v1/files?per_page=100", headers: other });
    expect(response.json<FileBody[]>()).toEqual([]);
  });
});
