import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { multipartBody } from "../support/multipart.js";
import { filePartWithExactName, rawMultipartBody } from "../support/raw-multipart.js";
import { expectErrorShape, expectSafeContentDisposition, expectStorageConsistent } from "../support/security.js";
import { buildTestApp, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * Hostile client file names. Each is sent twice: as a browser would (HTML's form
 * encoding turns `"`, CR and LF into %22, %0D, %0A) and exactly, as an RFC 5987
 * `filename*` that the parser decodes back to the very code points, quotes, CR, LF and
 * NUL included. Either way the upload is refused in the error shape with nothing stored,
 * or stored under a safe name with its folders dropped; and every stored file downloads
 * with exactly one well-formed, ASCII-only Content-Disposition.
 */

/** What each encoding of a name must get: stored under exactly this name, or refused. */
type Outcome = { readonly stored: string } | { readonly refused: 400 | 415; readonly field?: string };

interface NameCase {
  readonly label: string;
  readonly fileName: string;
  readonly browser: Outcome;
  readonly exact: Outcome;
}

const LONG = `${"x".repeat(1000)}.csv`;

const CASES: readonly NameCase[] = [
  {
    label: "a Unix path climbing out",
    fileName: "../../x.csv",
    browser: { stored: "x.csv" },
    exact: { stored: "x.csv" },
  },
  {
    label: "a Windows path climbing out",
    fileName: "..\\..\\x.csv",
    browser: { stored: "x.csv" },
    exact: { stored: "x.csv" },
  },
  {
    label: "an absolute path",
    fileName: "/etc/cron.d/x.csv",
    browser: { stored: "x.csv" },
    exact: { stored: "x.csv" },
  },
  {
    label: "a NUL byte",
    fileName: "a\u0000b.csv",
    browser: { refused: 400, field: "file" },
    exact: { refused: 400, field: "file" },
  },
  {
    label: "1,000 characters",
    fileName: LONG,
    browser: { refused: 400, field: "file" },
    exact: { refused: 400, field: "file" },
  },
  {
    label: "a right-to-left override hiding .exe",
    fileName: "invoice\u202Ecsv.exe",
    browser: { refused: 415 },
    exact: { refused: 415 },
  },
  {
    label: "a right-to-left override before .csv",
    fileName: "x\u202E.csv",
    browser: { refused: 400, field: "file" },
    exact: { refused: 400, field: "file" },
  },
  { label: "nothing but the extension", fileName: ".csv", browser: { stored: ".csv" }, exact: { stored: ".csv" } },
  { label: "a double quote", fileName: 'a"b.csv', browser: { stored: "a%22b.csv" }, exact: { stored: 'a"b.csv' } },
  {
    label: "quotes that would close the header's string",
    fileName: 'x.csv"; filename="evil.exe',
    browser: { refused: 415 },
    exact: { refused: 415 },
  },
  {
    label: "a second filename parameter smuggled in",
    fileName: 'evil.exe"; filename="x.csv',
    browser: { stored: "evil.exe%22; filename=%22x.csv" },
    exact: { stored: 'evil.exe"; filename="x.csv' },
  },
  { label: "a semicolon", fileName: "a;b.csv", browser: { stored: "a;b.csv" }, exact: { stored: "a;b.csv" } },
  {
    label: "CR LF with a header after it",
    fileName: "a\r\nSet-Cookie: x=1.csv",
    browser: { stored: "a%0D%0ASet-Cookie: x=1.csv" },
    // The parser drops a part whose file name holds a line break: the form has no file.
    exact: { refused: 400, field: "file" },
  },
  {
    label: "a literal %0d%0a",
    fileName: "a%0d%0ab.csv",
    browser: { stored: "a%0d%0ab.csv" },
    exact: { stored: "a%0d%0ab.csv" },
  },
  { label: "a backslash only", fileName: "a\\", browser: { refused: 415 }, exact: { refused: 415 } },
  {
    label: "German and a euro sign",
    fileName: "Übersicht €.csv",
    browser: { stored: "Übersicht €.csv" },
    exact: { stored: "Übersicht €.csv" },
  },
  {
    label: "Chinese",
    fileName: "报告 2026.csv",
    browser: { stored: "报告 2026.csv" },
    exact: { stored: "报告 2026.csv" },
  },
  {
    label: "an emoji",
    fileName: "😀 budget.csv",
    browser: { stored: "😀 budget.csv" },
    exact: { stored: "😀 budget.csv" },
  },
  { label: "Arabic", fileName: "ميزانية.csv", browser: { stored: "ميزانية.csv" }, exact: { stored: "ميزانية.csv" } },
  {
    label: "upper-case extension and accents",
    fileName: "Résumé.CSV",
    browser: { stored: "Résumé.CSV" },
    exact: { stored: "Résumé.CSV" },
  },
];

/** What docs/api.md says the download offers: the name, plus `.csv` unless it already ends so. */
function offeredName(name: string): string {
  return name.toLowerCase().endsWith(".csv") ? name : `${name}.csv`;
}

/** A stored name is safe when it is trimmed, folder-free, control- and bidi-free, and 1–255 code points. */
function expectSafeName(name: string) {
  expect(name).toBe(name.trim());
  expect(name).not.toMatch(/[\\/]/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
  expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u);
  expect([...name].length).toBeGreaterThanOrEqual(1);
  expect([...name].length).toBeLessThanOrEqual(255);
}

describe("POST /v1/files with a hostile file name", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let aliceId: string;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = signedIn.headers;
    aliceId = signedIn.user.id;
  });

  function send(encoding: "browser" | "exact", fileName: string): Promise<LightMyRequestResponse> {
    const { payload, headers } =
      encoding === "browser"
        ? multipartBody([{ name: "file", filename: fileName, content: "a,b\n1,2\n" }])
        : rawMultipartBody([filePartWithExactName(fileName, "a,b\n1,2\n")]);
    return t.inject({ method: "POST", url: "/v1/files", payload, headers: { ...headers, ...alice } });
  }

  async function expectDownloadSafe(file: FileBody) {
    const download = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: alice });
    expect(download.statusCode).toBe(200);
    expect(download.body).toBe("a,b\n1,2\n");
    expectSafeContentDisposition(download.headers["content-disposition"], offeredName(file.name));
    // No header at all may carry a line break or NUL: none was injected.
    for (const [name, value] of Object.entries(download.headers)) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
      expect(String(value), name).not.toMatch(/[\r\n\u0000]/);
    }
  }

  it.each(
    CASES.flatMap((nameCase) =>
      (["browser", "exact"] as const).map((encoding) => [nameCase.label, encoding, nameCase] as const),
    ),
  )("%s, sent %s", async (_label, encoding, nameCase) => {
    const outcome = nameCase[encoding];
    const blobsBefore = t.cellar.deps.blobs.size;
    const response = await send(encoding, nameCase.fileName);

    if (response.statusCode === 201) {
      expect("refused" in outcome, `refused expected, stored: ${response.body}`).toBe(false);
      const file = response.json<FileBody>();
      if ("stored" in outcome) expect(file.name).toBe(outcome.stored);
      expectSafeName(file.name);
      await expectDownloadSafe(file);
    } else {
      expect("stored" in outcome, `stored expected, refused: ${response.body}`).toBe(false);
      const body = expectErrorShape(response);
      expect([400, 415]).toContain(response.statusCode);
      if ("refused" in outcome) {
        expect(response.statusCode).toBe(outcome.refused);
        if (outcome.field !== undefined) expect(body.error.details?.[0]).toMatchObject({ field: outcome.field });
      }
      expect(t.cellar.deps.blobs.size).toBe(blobsBefore);
    }
    await expectStorageConsistent(t, [aliceId]);
  });

  it.each([
    ['a"b'],
    ["semi;colon"],
    ["100% sure"],
    ["back\\slash"],
    ["Übersicht €"],
    ["😀"],
    ["تقرير"],
    ["\u200Bzero-width"],
    ["'single' (paren) *star*"],
  ])("serves a file renamed to %j with a well-formed Content-Disposition", async (name) => {
    const file = await t.uploadCsv(alice);
    const renamed = await t.inject({ method: "PATCH", url: `/v1/files/${file.id}`, headers: alice, payload: { name } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    await expectDownloadSafe(renamed.json<FileBody>());
  });
});
