import { FILE_SORTS, fileNameKey } from "@cellar/core";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeComponent, fuzzParameters, percentEncodeAll } from "../support/fuzz.js";
import { expectErrorShape } from "../support/security.js";
import { buildTestApp, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * Every query string on GET /v1/files: the real parameters and others, repeated keys,
 * percent-encoded and raw, huge and negative numbers, searches and sorts, empty parts and
 * stray separators. The server never answers 500; it answers 200 or 400, the 400 in the
 * error shape. When the query is plainly encoded, docs/api.md's rules predict the answer
 * exactly, and a 200 serves only the caller's own files of the asked state that the search
 * finds, in pages as the headers say.
 */

const NUM_RUNS = 400;

const KNOWN = ["page", "per_page", "trashed", "q", "sort"] as const;

const key = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("PAGE", "page[]", "per-page", "order", "Q", "", "__proto__", "constructor", "toString"),
  },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
);

const value = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      "1",
      "2",
      "3",
      "25",
      "100",
      "101",
      "true",
      "false",
      "TRUE",
      "yes",
      "0",
      "-1",
      "01",
      "1.0",
      "1e2",
      " 1",
      "1 ",
      "+1",
      "0x10",
      "",
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 200 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ...FILE_SORTS,
      "NAME",
      "+name",
      "--size",
      "file",
      "FILE 1",
      "ILE",
      " ",
      "\u00C4",
      "x".repeat(101),
    ),
  },
  { weight: 2, arbitrary: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "999999999999999",
      "1000000000000000",
      String(Number.MAX_SAFE_INTEGER),
      "1e308",
      "Infinity",
      "NaN",
    ),
  },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 10 }) },
);

/** One `key=value` pair, plainly encoded: its meaning is unambiguous. */
const pair = fc.record({ key, value, plain: fc.constant(true as const) });

/** The same pair written in other ways: every byte percent-encoded, keys too; or left raw where the URL allows. */
const oddlyWritten = fc
  .tuple(key, value, fc.constantFrom("all-encoded", "raw"))
  .map(([k, v, how]) =>
    how === "all-encoded"
      ? `${percentEncodeAll(k)}=${percentEncodeAll(v)}`
      : `${k.replace(/[^\x21-\x7e]|#|&/g, (c) => encodeComponent(c))}=${v.replace(/[^\x21-\x7e]|#|&/g, (c) => encodeComponent(c))}`,
  );

const debris = fc.constantFrom(
  "",
  "&",
  "=",
  "==",
  "page",
  "per_page=",
  "%",
  "%2",
  "%zz",
  "%00",
  "%E0%A4%A",
  "+",
  "page=%31",
  "trashed=tru%65",
  ";",
  "?",
  "page=1;per_page=2",
);

const segment = fc.oneof(
  { weight: 6, arbitrary: pair },
  { weight: 2, arbitrary: oddlyWritten },
  { weight: 1, arbitrary: debris },
);

const query = fc.array(segment, { maxLength: 5 });

type Segment = string | { key: string; value: string; plain: true };

const write = (segments: readonly Segment[]) =>
  segments.map((s) => (typeof s === "string" ? s : `${encodeComponent(s.key)}=${encodeComponent(s.value)}`)).join("&");

const WHOLE_NUMBER = /^[1-9][0-9]{0,14}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const FORBIDDEN_IN_NAMES = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** docs/api.md's rules for a plainly encoded query: whether it is valid, and what it asks. */
function expected(segments: readonly Segment[]) {
  const pairs = segments.filter((s): s is Exclude<Segment, string> => typeof s !== "string");
  if (pairs.length !== segments.length) return undefined; // written oddly: no exact prediction
  const seen = new Map<string, string>();
  let valid = true;
  for (const { key: k, value: v } of pairs) {
    // A lone surrogate travels as U+FFFD: either way no known key or valid value holds one.
    if (seen.has(k) || !(KNOWN as readonly string[]).includes(k)) valid = false;
    seen.set(k, v);
  }
  const page = seen.get("page");
  const perPage = seen.get("per_page");
  const trashed = seen.get("trashed");
  const q = seen.get("q")?.toWellFormed();
  const sort = seen.get("sort");
  if (page !== undefined && !WHOLE_NUMBER.test(page)) valid = false;
  if (perPage !== undefined && !WHOLE_NUMBER.test(perPage)) valid = false;
  if (trashed !== undefined && trashed !== "true" && trashed !== "false") valid = false;
  if (q !== undefined && ([...q].length < 1 || [...q].length > 100 || FORBIDDEN_IN_NAMES.test(q))) valid = false;
  if (sort !== undefined && !(FILE_SORTS as readonly string[]).includes(sort)) valid = false;
  return {
    valid,
    page: Number(page ?? "1"),
    perPage: Math.min(Number(perPage ?? "25"), 100),
    trashed: trashed === "true",
    q,
  };
}

describe("fuzzing GET /v1/files query strings", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let aliceId: string;
  const counts = { active: 7, trashed: 3 };
  const names = { active: [] as string[], trashed: [] as string[] };

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 1_000_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = signedIn.headers;
    aliceId = signedIn.user.id;
    const bob = await t.signIn("bob@example.com");
    for (let i = 0; i < counts.active + counts.trashed; i++) {
      const file = await t.uploadCsv(alice, { name: `file ${i}` });
      names[i >= counts.active ? "trashed" : "active"].push(file.name);
      if (i >= counts.active) await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice });
      await t.uploadCsv(bob.headers, { visibility: "public" });
      t.clock.advance(1000);
    }
  });

  it("answers 200 or 400, never 500; exactly as docs/api.md predicts; a 200 shows only the caller's files", async () => {
    await fc.assert(
      fc.asyncProperty(query, async (segments) => {
        const queryString = write(segments);
        const response = await t.inject({ method: "GET", url: `/v1/files?${queryString}`, headers: alice });
        expect([200, 400], `${response.statusCode} ${response.body}`).toContain(response.statusCode);
        const prediction = expected(segments);
        if (prediction !== undefined) expect(response.statusCode === 200, response.body).toBe(prediction.valid);
        if (response.statusCode === 400) {
          expect(expectErrorShape(response).error.code).toBe("validation_error");
          return;
        }
        const files = response.json<FileBody[]>();
        const perPage = Number(response.headers["x-per-page"]);
        const page = Number(response.headers["x-page"]);
        expect(perPage).toBeGreaterThanOrEqual(1);
        expect(perPage).toBeLessThanOrEqual(100);
        expect(files.length).toBeLessThanOrEqual(perPage);
        const state = files[0]?.state;
        for (const file of files) {
          expect(file.owner_id).toBe(aliceId);
          expect(file.state).toBe(state);
        }
        const total = Number(response.headers["x-total-count"]);
        expect(total).toBeLessThanOrEqual(Math.max(counts.active, counts.trashed));
        expect(files.length).toBe(Math.max(0, Math.min(perPage, total - (page - 1) * perPage)));
        if (prediction !== undefined) {
          const { q } = prediction;
          const listed = names[prediction.trashed ? "trashed" : "active"];
          const found = q === undefined ? listed : listed.filter((name) => fileNameKey(name).includes(fileNameKey(q)));
          expect({ page, perPage, total }).toEqual({
            page: prediction.page,
            perPage: prediction.perPage,
            total: found.length,
          });
          for (const file of files) expect(found).toContain(file.name);
        }
      }),
      fuzzParameters(NUM_RUNS),
    );
  });
});
