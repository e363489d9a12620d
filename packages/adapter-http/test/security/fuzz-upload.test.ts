import { createHash } from "node:crypto";
import { buildZip, WORKBOOK_ENTRIES, workbook } from "@cellar/core/testing";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { fuzzParameters } from "../support/fuzz.js";
import { extValue, type RawPart, rawMultipartBody } from "../support/raw-multipart.js";
import { expectErrorShape, expectStorageConsistent } from "../support/security.js";
import { buildTestApp, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * The multipart stream of POST /v1/files, fuzzed: random parts (file, name, visibility,
 * unknown), in random order, of random sizes (now and then over the limit), with hostile
 * file names and contents (NUL bytes, real workbooks, ZIP bombs), and now and then a
 * truncated or malformed body. Whatever arrives: never a 500; every refusal in the error
 * shape with a documented status; a form that is plainly valid is accepted; what is
 * accepted is exactly the one file part's bytes; and storage stays consistent, every row
 * with its blob and every blob with its row.
 */

const NUM_RUNS = 300;
const MAX_UPLOAD_BYTES = 2048;

const GiB = 1024 ** 3;
const WORKBOOK = workbook();

type ContentClass = "text" | "bytes" | "nul" | "workbook" | "bomb" | "empty" | "at-limit" | "over-limit";

interface FilePart {
  readonly kind: "file";
  readonly field: string;
  readonly base: string;
  readonly extension: string;
  /** How the file name travels: as a browser writes it, as an exact RFC 5987 `filename*`, or not at all. */
  readonly encoding: "browser" | "exact" | "none";
  readonly content: Uint8Array;
  readonly contentClass: ContentClass;
}

interface TextPart {
  readonly kind: "text";
  readonly field: string;
  readonly value: string;
}

type Part = FilePart | TextPart;

/** File-name bases that any rule accepts, for the forms that must succeed. */
const SAFE_BASES = ["data", "Budget 2026", "报告", "😀 plan", "Übersicht"];
const HOSTILE_BASES = [
  "../../etc/passwd",
  "..\\..\\windows\\win",
  "C:\\reports\\q3",
  "/abs/path/",
  "a\u0000b",
  "a\u0007b",
  "  padded  ",
  "x".repeat(300),
  "",
  ".",
  "..",
  "\u202Eevil",
  'q"uote',
  "semi;colon",
  "100%",
  "line\r\nbreak",
];
const VALID_EXTENSIONS = [".csv", ".CSV", ".xlsx", ".XLSX", ".sheet", ".Sheet"];
const OTHER_EXTENSIONS = [".txt", "", ".csv.exe", ".xlsx.", ".exe", "csv"];

const SAFE_NAMES = ["Q3 report", "  padded name  ", "报告", "x".repeat(255)];

const otherField = fc.oneof(
  fc.constantFrom("owner_id", "files", "file[]", "Name", "__proto__", "constructor", ""),
  fc.string({ maxLength: 8 }),
);

const content: fc.Arbitrary<{ bytes: Uint8Array; contentClass: ContentClass }> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .string({ minLength: 1, maxLength: 400 })
      .map((text) => ({ bytes: Buffer.from(text), contentClass: "text" as const })),
  },
  {
    weight: 2,
    arbitrary: fc.uint8Array({ maxLength: 2600 }).map((bytes) => ({ bytes, contentClass: "bytes" as const })),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ maxLength: 100 })
      .map((text) => ({ bytes: Buffer.from(`${text}\u0000${text}`), contentClass: "nul" as const })),
  },
  { weight: 3, arbitrary: fc.constant({ bytes: WORKBOOK, contentClass: "workbook" as const }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        buildZip(WORKBOOK_ENTRIES, { zip64: true, declaredEntries: 100_000 }),
        buildZip([...WORKBOOK_ENTRIES, { name: "xl/bomb.xml", declaredSize: 3 * GiB }]),
        buildZip([{ name: "readme.txt", data: "not a workbook" }]),
        WORKBOOK.subarray(0, WORKBOOK.length - 10),
      )
      .map((bytes) => ({ bytes, contentClass: "bomb" as const })),
  },
  { weight: 1, arbitrary: fc.constant({ bytes: new Uint8Array(), contentClass: "empty" as const }) },
  {
    weight: 1,
    arbitrary: fc.constant({ bytes: Buffer.alloc(MAX_UPLOAD_BYTES, "a"), contentClass: "at-limit" as const }),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: MAX_UPLOAD_BYTES + 1, max: MAX_UPLOAD_BYTES + 3000 })
      .map((size) => ({ bytes: Buffer.alloc(size, "a"), contentClass: "over-limit" as const })),
  },
);

const filePart: fc.Arbitrary<FilePart> = fc
  .record({
    field: fc.oneof({ weight: 8, arbitrary: fc.constant("file") }, fc.constantFrom("name", "visibility"), otherField),
    base: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...SAFE_BASES) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_BASES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
    ),
    extension: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...VALID_EXTENSIONS) },
      { weight: 1, arbitrary: fc.constantFrom(...OTHER_EXTENSIONS) },
    ),
    encoding: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom("browser" as const, "exact" as const) },
      { weight: 1, arbitrary: fc.constant("none" as const) },
    ),
    content,
  })
  .map(({ content: { bytes, contentClass }, ...rest }) => ({ kind: "file", ...rest, content: bytes, contentClass }));

const textPart: fc.Arbitrary<TextPart> = fc.record({
  kind: fc.constant("text" as const),
  field: fc.oneof({ weight: 4, arbitrary: fc.constantFrom("name", "visibility") }, fc.constant("file"), otherField),
  value: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom("private", "public", ...SAFE_NAMES) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "PUBLIC",
        "",
        "  ",
        "x".repeat(256),
        "x".repeat(5000),
        "a\u0007b",
        "\u202Eabc",
        "a\u0000b",
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  ),
});

/** Content that fits each type, for the forms built to be (nearly) valid. */
const fittingContent = {
  csv: fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 400 })
        .map((text) => ({ bytes: Buffer.from(text), contentClass: "text" as const })),
    },
    {
      weight: 1,
      arbitrary: fc.constant({ bytes: Buffer.alloc(MAX_UPLOAD_BYTES, "a"), contentClass: "at-limit" as const }),
    },
  ),
  xlsx: fc.constant({ bytes: WORKBOOK, contentClass: "workbook" as const }),
  sheet: fc.uint8Array({ minLength: 1, maxLength: 1500 }).map((bytes) => ({ bytes, contentClass: "bytes" as const })),
};

/**
 * A form close to what a real client sends: one `file` part whose extension and content
 * agree (now and then they do not, or the name is hostile), and an optional `name` and
 * `visibility`, mostly valid, the file part anywhere among them.
 */
const nearlyValidParts: fc.Arbitrary<Part[]> = fc
  .constantFrom("csv" as const, "xlsx" as const, "sheet" as const)
  .chain((kind) =>
    fc.record({
      base: fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...SAFE_BASES) },
        { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_BASES) },
      ),
      extension: fc.constantFrom(`.${kind}`, `.${kind.toUpperCase()}`),
      encoding: fc.constantFrom("browser" as const, "exact" as const),
      content: fc.oneof({ weight: 6, arbitrary: fittingContent[kind] }, { weight: 1, arbitrary: content }),
    }),
  )
  .chain(({ content: { bytes, contentClass }, ...rest }) => {
    const file: FilePart = { kind: "file", field: "file", ...rest, content: bytes, contentClass };
    const value = (valid: fc.Arbitrary<string>) =>
      fc.option(
        fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: textPart.map((part) => part.value) }),
        {
          nil: undefined,
        },
      );
    return fc
      .record({
        name: value(fc.constantFrom(...SAFE_NAMES)),
        visibility: value(fc.constantFrom("private", "public")),
        nameFirst: fc.boolean(),
        at: fc.nat(),
      })
      .map(({ name, visibility, nameFirst, at }) => {
        const texts: Part[] = [];
        if (name !== undefined) texts.push({ kind: "text", field: "name", value: name });
        if (visibility !== undefined) texts.push({ kind: "text", field: "visibility", value: visibility });
        if (!nameFirst) texts.reverse();
        texts.splice(at % (texts.length + 1), 0, file);
        return texts;
      });
  });

const randomParts: fc.Arbitrary<Part[]> = fc.array(
  fc.oneof({ weight: 3, arbitrary: filePart }, { weight: 2, arbitrary: textPart }),
  { maxLength: 5 },
);

type BodyShape = "complete" | "truncated" | "unclosed" | "wrong-boundary" | "no-boundary";

const form = fc.record({
  parts: fc.oneof({ weight: 1, arbitrary: nearlyValidParts }, { weight: 1, arbitrary: randomParts }),
  shape: fc.oneof(
    { weight: 8, arbitrary: fc.constant<BodyShape>("complete") },
    { weight: 2, arbitrary: fc.constantFrom<BodyShape>("truncated", "unclosed", "wrong-boundary", "no-boundary") },
  ),
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
});

/** Quotes a parameter as browsers do: `"`, CR and LF percent-encoded, everything else as is. */
const browserQuoted = (value: string) => `"${value.replace(/"/g, "%22").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}"`;

function toRawPart(part: Part): RawPart {
  if (part.kind === "text") {
    return { headers: [`Content-Disposition: form-data; name=${browserQuoted(part.field)}`], content: part.value };
  }
  const fileName = `${part.base}${part.extension}`;
  const disposition =
    part.encoding === "browser"
      ? `form-data; name=${browserQuoted(part.field)}; filename=${browserQuoted(fileName)}`
      : part.encoding === "exact"
        ? `form-data; name=${browserQuoted(part.field)}; filename*=${extValue(fileName)}`
        : `form-data; name=${browserQuoted(part.field)}`;
  return {
    headers: [`Content-Disposition: ${disposition}`, "Content-Type: application/octet-stream"],
    content: part.content,
  };
}

const KIND_OF: Record<string, "csv" | "xlsx" | "sheet"> = { ".csv": "csv", ".xlsx": "xlsx", ".sheet": "sheet" };
const CONTENT_TYPE_OF = {
  csv: "text/csv",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  sheet: "application/octet-stream",
} as const;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/**
 * docs/api.md, for the forms whose fate is beyond doubt: a complete body, one `file`
 * part with a plain name and an accepted extension, content that fits its type and the
 * limit, and besides it only valid `name`/`visibility` fields, each at most once. Such a
 * form must be stored, named and typed as predicted; for any other no prediction is made.
 */
function predictAccepted(parts: readonly Part[], shape: BodyShape) {
  if (shape !== "complete") return undefined;
  const files = parts.filter((part): part is FilePart => part.kind === "file");
  const texts = parts.filter((part): part is TextPart => part.kind === "text");
  const [file] = files;
  if (files.length !== 1 || file === undefined || file.field !== "file" || file.encoding === "none") return undefined;
  if (!SAFE_BASES.includes(file.base)) return undefined;
  const kind = KIND_OF[file.extension.toLowerCase()];
  if (kind === undefined) return undefined;
  const size = file.content.length;
  if (size < 1 || size > MAX_UPLOAD_BYTES) return undefined;
  if (kind === "csv" && file.content.includes(0)) return undefined;
  if (kind === "xlsx" && file.content !== WORKBOOK) return undefined;
  const fields = new Map<string, string>();
  for (const text of texts) {
    if (fields.has(text.field)) return undefined;
    fields.set(text.field, text.value);
  }
  for (const [field, value] of fields) {
    if (field === "name" && !SAFE_NAMES.includes(value)) return undefined;
    if (field === "visibility" && value !== "private" && value !== "public") return undefined;
    if (field !== "name" && field !== "visibility") return undefined;
  }
  return {
    name: (fields.get("name") ?? `${file.base}${file.extension}`).trim(),
    visibility: fields.get("visibility") ?? "private",
    size,
    sha256: sha256(file.content),
    content_type: CONTENT_TYPE_OF[kind],
  };
}

describe("fuzzing the upload form", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let aliceId: string;

  beforeAll(async () => {
    t = await buildTestApp({ config: { maxUploadBytes: MAX_UPLOAD_BYTES, rateLimitMax: 1_000_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = signedIn.headers;
    aliceId = signedIn.user.id;
  });

  it("never answers 500, accepts what is plainly valid, stores exactly the file part, and keeps storage consistent", async () => {
    await fc.assert(
      fc.asyncProperty(form, async ({ parts, shape, cut }) => {
        const built = rawMultipartBody(parts.map(toRawPart), { closed: shape !== "unclosed" });
        const payload =
          shape === "truncated" ? built.payload.subarray(0, Math.floor(built.payload.length * cut)) : built.payload;
        const contentType =
          shape === "wrong-boundary"
            ? "multipart/form-data; boundary=not-the-boundary"
            : shape === "no-boundary"
              ? "multipart/form-data"
              : built.headers["content-type"];
        const response = await t.inject({
          method: "POST",
          url: "/v1/files",
          headers: { ...alice, "content-type": contentType },
          payload,
        });

        expect([201, 400, 413, 415, 429, 503], `${response.statusCode} ${response.body}`).toContain(
          response.statusCode,
        );
        const prediction = predictAccepted(parts, shape);
        if (prediction !== undefined) expect(response.statusCode, response.body).toBe(201);

        if (response.statusCode === 201) {
          const file = response.json<FileBody>();
          // What is stored is exactly the bytes of the one part named `file`.
          const fileParts = parts.filter((part) => part.kind === "file" && part.field === "file");
          expect(fileParts).toHaveLength(1);
          const sent = (fileParts[0] as FilePart).content;
          expect({ size: file.size, sha256: file.sha256 }).toEqual({ size: sent.length, sha256: sha256(sent) });
          if (prediction !== undefined) expect(file).toMatchObject(prediction);
          const download = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: alice });
          expect(download.statusCode).toBe(200);
          expect(sha256(download.rawPayload)).toBe(file.sha256);
        } else {
          expectErrorShape(response);
        }
        await expectStorageConsistent(t, [aliceId]);
      }),
      fuzzParameters(NUM_RUNS),
    );
  });
});
