import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import type { FileJson } from "../src/files/file.json.js";
import { buildTestApp, expectError } from "./support/test-app.js";

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

interface EditedJson {
  readonly file: FileJson;
  readonly updated_range: string | string[];
  readonly updated_cells: number;
}

/** Ada's CSV, shared with Bob (editor) and Carol (viewer). */
async function aSharedCsv(content = "name,qty\napples,3\npears,5\n", maxUploadBytes?: number) {
  const t = await buildTestApp(maxUploadBytes === undefined ? {} : { config: { maxUploadBytes } });
  const ada = await t.signIn("ada@example.com");
  const bob = await t.signIn("bob@example.com");
  const carol = await t.signIn("carol@example.com");
  const file = await t.uploadCsv(ada.headers, { name: "Stock.csv", content });
  await t.share(ada.headers, file.id, { email: "bob@example.com", role: "editor", notify: false });
  await t.share(ada.headers, file.id, { email: "carol@example.com", role: "viewer", notify: false });
  return { t, ada, bob, carol, file };
}

const patchValues = (t: TestApp, fileId: string, headers: Record<string, string>, payload: unknown) =>
  t.inject({ method: "PATCH", url: `/v1/files/${fileId}/values`, headers, payload: payload as object });

/** Reads a range's raw values of a file, as the caller whose headers are given. */
const valuesOf = (t: TestApp, fileId: string, headers: Record<string, string>) => async (range: string) =>
  (
    await t.inject({
      method: "GET",
      url: `/v1/files/${fileId}/values?range=${encodeURIComponent(range)}`,
      headers,
    })
  ).json<{ values: unknown[][] }>().values;

async function bytesOf(t: TestApp, fileId: string, headers: Record<string, string>) {
  return (await t.inject({ method: "GET", url: `/v1/files/${fileId}/download`, headers })).body;
}

describe("PATCH /v1/files/:id/values", () => {
  it("writes a range as the next version, based on If-Match, and answers the file, the range and the count", async () => {
    const { t, bob, file } = await aSharedCsv();
    const answer = await patchValues(
      t,
      file.id,
      { ...bob.headers, "if-match": `"${file.sha256}"` },
      { range: "B2", values: [[4], ["=SUM(B2:B3)"]] },
    );
    expect(answer.statusCode).toBe(200);
    const edited = answer.json<EditedJson>();
    expect(edited).toMatchObject({
      updated_range: "Sheet1!B2:B3",
      updated_cells: 2,
      file: { version: 2, role: "editor" },
    });
    expect(answer.headers.etag).toBe(`"${edited.file.sha256}"`);
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,4\npears,=SUM(B2:B3)\n");
  });

  it("writes several ranges as one version, and grows the sheet as needed", async () => {
    const { t, bob, file } = await aSharedCsv();
    const answer = await patchValues(
      t,
      file.id,
      { ...bob.headers, "if-match": "*" },
      {
        data: [
          { range: "A2", values: [["green apples"]] },
          { range: "C1:C2", values: [["note"], ["a, b"]] },
          { range: "A5", values: [[true, null, 1.5]] },
        ],
      },
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json<EditedJson>()).toMatchObject({
      updated_range: ["Sheet1!A2", "Sheet1!C1:C2", "Sheet1!A5:C5"],
      updated_cells: 6,
      file: { version: 2 },
    });
    expect(await bytesOf(t, file.id, bob.headers)).toBe('name,qty,note\ngreen apples,3,"a, b"\npears,5\n\nTRUE,,1.5\n');
    const versions = await t.inject({ method: "GET", url: `/v1/files/${file.id}/versions`, headers: bob.headers });
    expect(versions.json<unknown[]>()).toHaveLength(2);
  });

  it("needs If-Match or an expect for every range (428), and refuses a stale If-Match (412)", async () => {
    const { t, bob, file } = await aSharedCsv();
    expectError(
      await patchValues(t, file.id, bob.headers, { range: "A1", values: [["x"]] }),
      428,
      "precondition_required",
    );
    expectError(
      await patchValues(t, file.id, bob.headers, {
        data: [
          { range: "A1", values: [["x"]], expect: [["name"]] },
          { range: "B1", values: [["y"]] },
        ],
      }),
      428,
      "precondition_required",
    );
    const first = await patchValues(
      t,
      file.id,
      { ...bob.headers, "if-match": `"${file.sha256}"` },
      { range: "A1", values: [["x"]] },
    );
    expect(first.statusCode).toBe(200);
    expectError(
      await patchValues(
        t,
        file.id,
        { ...bob.headers, "if-match": `"${file.sha256}"` },
        { range: "A1", values: [["y"]] },
      ),
      412,
      "precondition_failed",
    );
    expect(await bytesOf(t, file.id, bob.headers)).toBe("x,qty\napples,3\npears,5\n");
  });

  it("applies an edit whose expected cells still hold, whatever else changed; names each cell that differs otherwise", async () => {
    const { t, ada, bob, file } = await aSharedCsv();
    // Ada changes B2; Bob, who read the file before, changes B3 expecting what he saw.
    const adas = await patchValues(t, file.id, ada.headers, { range: "B2", values: [[30]], expect: [["3"]] });
    expect(adas.statusCode).toBe(200);
    const bobs = await patchValues(t, file.id, bob.headers, { range: "B3", values: [[50]], expect: [["5"]] });
    expect(bobs.statusCode).toBe(200);
    expect(bobs.json<EditedJson>().file.version).toBe(3);
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,30\npears,50\n");
    // Bob edits B2 too, still expecting 3: Ada's 30 is there now.
    const conflict = await patchValues(t, file.id, bob.headers, {
      range: "A2:B2",
      values: [["plums", 4]],
      expect: [["apples", "3"]],
    });
    expectError(conflict, 412, "precondition_failed");
    expect(conflict.json<{ error: { details: unknown[] } }>().error.details).toEqual([
      { field: "expect", message: 'Sheet1!B2 holds "30", not "3"', cell: "Sheet1!B2", value: "30" },
    ]);
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,30\npears,50\n");
  });

  it("checks every expect given, with If-Match too: * does not wave them through", async () => {
    const { t, bob, file } = await aSharedCsv();
    for (const ifMatch of ["*", `"${file.sha256}"`]) {
      expectError(
        await patchValues(
          t,
          file.id,
          { ...bob.headers, "if-match": ifMatch },
          {
            range: "B2",
            values: [[9]],
            expect: [["not what it holds"]],
          },
        ),
        412,
        "precondition_failed",
      );
    }
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,3\npears,5\n");
  });

  it("refuses, before writing, a row so far past the end that its empty rows would pass MAX_UPLOAD_BYTES", async () => {
    const { t, bob, file } = await aSharedCsv();
    expectError(
      await patchValues(t, file.id, { ...bob.headers, "if-match": "*" }, { range: "A100000000", values: [["x"]] }),
      413,
      "payload_too_large",
    );
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(1);
  });

  it("expects null of empty cells, also past the sheet's end", async () => {
    const { t, bob, file } = await aSharedCsv();
    const answer = await patchValues(t, file.id, bob.headers, { range: "C4", values: [["new"]], expect: [[null]] });
    expect(answer.statusCode).toBe(200);
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,3\npears,5\n,,new\n");
  });

  it("refuses what is not a cell or a rectangle of the values' shape, ragged rows, other values and unknown sheets", async () => {
    const { t, bob, file } = await aSharedCsv();
    const headers = { ...bob.headers, "if-match": "*" };
    for (const body of [
      { range: "A1:B2", values: [["x"]] },
      { range: "A:B", values: [["x", "y"]] },
      { range: "A1", values: [["x", "y"], ["z"]] },
      { range: "A1", values: [[{ formula: "=1" }]] },
      { range: "A1", values: [] },
      { range: "Other!A1", values: [["x"]] },
      { range: "A1", values: [["x"]], expect: [["x", "y"]] },
      { range: "A1", values: [["x"]], data: [{ range: "A1", values: [["x"]] }] },
    ]) {
      expectError(await patchValues(t, file.id, headers, body), 400, "validation_error");
    }
    const tooMany = Array.from({ length: 501 }, () => new Array(100).fill(1));
    expectError(await patchValues(t, file.id, headers, { range: "A1", values: tooMany }), 400, "validation_error");
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(1);
  });

  it("takes 50,000 cells of text in one request, a body larger than other JSON bodies", async () => {
    const { t, bob, file } = await aSharedCsv(undefined, 4 * 1024 * 1024);
    const values = Array.from({ length: 5000 }, (_, r) =>
      Array.from({ length: 10 }, (_, c) => `row ${r} column ${c}, some longer text`),
    );
    const answer = await patchValues(t, file.id, { ...bob.headers, "if-match": "*" }, { range: "A1", values });
    expect(answer.statusCode).toBe(200);
    expect(answer.json<EditedJson>()).toMatchObject({ updated_range: "Sheet1!A1:J5000", updated_cells: 50_000 });
  });

  it("refuses an edit whose new content would be over MAX_UPLOAD_BYTES (413), and keeps the file as it was", async () => {
    const { t, bob, file } = await aSharedCsv();
    const values = Array.from({ length: 100 }, () => ["x".repeat(1000)]);
    expectError(
      await patchValues(t, file.id, { ...bob.headers, "if-match": "*" }, { range: "A1", values }),
      413,
      "payload_too_large",
    );
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(1);
  });

  it("is for editors: a viewer gets 403; a .sheet file gets 422", async () => {
    const { t, ada, carol, file } = await aSharedCsv();
    expectError(
      await patchValues(t, file.id, { ...carol.headers, "if-match": "*" }, { range: "A1", values: [["x"]] }),
      403,
      "forbidden",
    );
    const upload = await t.upload(ada.headers, [{ name: "file", filename: "notes.sheet", content: "anything" }]);
    const sheet = upload.json<FileJson>();
    expectError(
      await patchValues(t, sheet.id, { ...ada.headers, "if-match": "*" }, { range: "A1", values: [["x"]] }),
      422,
      "unreadable_spreadsheet",
    );
  });

  it("writes a workbook's cells, on the sheet the range names, and reads them back", async () => {
    const t = await buildTestApp({ config: { maxUploadBytes: 1024 * 1024 } });
    const ada = await t.signIn("ada@example.com");
    const bytes = readFileSync(new URL("../../adapter-sheets/test/fixtures/readxl/deaths.xlsx", import.meta.url));
    const file = (
      await t.upload(ada.headers, [{ name: "file", filename: "deaths.xlsx", content: bytes }])
    ).json<FileJson>();
    const read = valuesOf(t, file.id, ada.headers);
    const [otherRow] = await read("other!A5:C5");
    const [artsRow] = await read("arts!A1:B1");
    const answer = await patchValues(t, file.id, ada.headers, {
      data: [
        { range: "other!B5", values: [["Cellar"]], expect: [[otherRow?.[1] ?? null]] },
        { range: "arts!A1", values: [[42, true]], expect: [artsRow ?? [null, null]] },
      ],
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json<EditedJson>()).toMatchObject({ updated_range: ["other!B5", "arts!A1:B1"], updated_cells: 3 });
    expect(await read("other!A5:C5")).toEqual([[otherRow?.[0] ?? null, "Cellar", otherRow?.[2] ?? null]]);
    expect(await read("arts!A1:B1")).toEqual([[42, true]]);
    const conflict = await patchValues(t, file.id, ada.headers, { range: "arts!A1", values: [[1]], expect: [[41]] });
    expectError(conflict, 412, "precondition_failed");
    expect(conflict.json<{ error: { details: unknown[] } }>().error.details).toEqual([
      expect.objectContaining({ cell: "arts!A1", value: 42 }),
    ]);
  });

  it("stores a workbook's later edits as the segments of its sheet they touch, formula results included; every version reads as it was", async () => {
    // 30,000 rows, each with a formula over its row, and a total over them all: about 4
    // MiB of sheet XML, several segments once written.
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet("Data");
    sheet.addRow(["Total", { formula: "SUM(D2:D30001)" }]);
    for (let row = 2; row <= 30_001; row++) {
      sheet.addRow([`item ${row}`, row, row % 7, { formula: `B${row}*C${row}` }]);
    }
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 16 * 1024 ** 2 } });
    const ada = await t.signIn("ada@example.com");
    const headers = { ...ada.headers, "if-match": "*" };
    const file = (
      await t.upload(ada.headers, [
        { name: "file", filename: "rows.xlsx", content: Buffer.from(await book.xlsx.writeBuffer()) },
      ])
    ).json<FileJson>();
    const read = valuesOf(t, file.id, ada.headers);
    const storedSize = async (n: number) => {
      const key = (await t.cellar.deps.versions.find({ fileId: file.id, number: n }))?.blobKey;
      for await (const blob of t.cellar.deps.blobs.list()) if (blob.key === key) return blob.size;
      return null;
    };
    const total = (await read("B1"))[0]?.[0] as number;
    expect(total).toBeGreaterThan(0);
    // The first edit writes the sheet whole; the next two only the segments they fall in:
    // their row's, and the first (the total's result).
    for (const [row, value] of [
      [5, 1],
      [20_001, 1000],
      [25_001, 2000],
    ] as const) {
      const answer = await patchValues(t, file.id, headers, { range: `B${row}`, values: [[value]] });
      expect(answer.statusCode).toBe(200);
    }
    // Each edit changes its row's product, B × C, and so the total.
    const last = total + (1 - 5) * (5 % 7) + (1000 - 20_001) * (20_001 % 7) + (2000 - 25_001) * (25_001 % 7);
    expect(await read("B1")).toEqual([[last]]);
    expect(await read("B20001:D20001")).toEqual([[1000, 20_001 % 7, 1000 * (20_001 % 7)]]);
    expect(await read("B25001:D25001")).toEqual([[2000, 25_001 % 7, 2000 * (25_001 % 7)]]);
    const whole = (await storedSize(2)) as number;
    expect(whole).toBeGreaterThan(300 * 1024);
    expect(await storedSize(3)).toBeLessThan(whole / 3);
    expect(await storedSize(4)).toBeLessThan(whole / 3);

    const listed = (await t.inject({ method: "GET", url: `/v1/files/${file.id}/versions`, headers: ada.headers })).json<
      { version: number; sha256: string; size: number }[]
    >();
    expect(listed).toHaveLength(4);
    for (const version of listed) {
      const bytes = (
        await t.inject({
          method: "GET",
          url: `/v1/files/${file.id}/versions/${version.version}/download`,
          headers: ada.headers,
        })
      ).rawPayload;
      expect(version).toMatchObject({ size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
      if (version.version !== 4) continue;
      // Another program reads the last version whole: its values, and formulas with their results.
      const written = new ExcelJS.Workbook();
      await written.xlsx.load(bytes as unknown as ArrayBuffer);
      const data = written.getWorksheet("Data") as ExcelJS.Worksheet;
      expect(data.getCell("B20001").value).toBe(1000);
      expect(data.getCell("D25001").value).toEqual({ formula: "B25001*C25001", result: 2000 * (25_001 % 7) });
      expect(data.getCell("B1").value).toEqual({ formula: "SUM(D2:D30001)", result: last });
      expect(data.getCell("A30001").value).toBe("item 30001");
    }
  }, 120_000);

  it("reads back what it wrote through /values at once", async () => {
    const { t, bob, file } = await aSharedCsv();
    await patchValues(t, file.id, { ...bob.headers, "if-match": "*" }, { range: "A3", values: [["quinces", 8]] });
    const values = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/values?range=A1:B3`,
      headers: bob.headers,
    });
    expect(values.json<{ values: unknown[][] }>().values).toEqual([
      ["name", "qty"],
      ["apples", "3"],
      ["quinces", "8"],
    ]);
  });
});

describe("POST /v1/files/:id/rows", () => {
  const append = (t: TestApp, fileId: string, headers: Record<string, string>, payload: unknown) =>
    t.inject({ method: "POST", url: `/v1/files/${fileId}/rows`, headers, payload: payload as object });

  it("adds rows after the last row with a value, without If-Match", async () => {
    const { t, bob, file } = await aSharedCsv("name,qty\napples,3\n,\n");
    const answer = await append(t, file.id, bob.headers, {
      values: [
        ["pears", 5],
        ["plums", 7],
      ],
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toMatchObject({ updated_range: "Sheet1!A3:B4", file: { version: 2 } });
    expect(await bytesOf(t, file.id, bob.headers)).toBe("name,qty\napples,3\npears,5\nplums,7\n");
  });

  it("lands every one of concurrent appends", async () => {
    const { t, bob, ada, file } = await aSharedCsv();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, k) =>
        append(t, file.id, k % 2 === 0 ? bob.headers : ada.headers, { values: [[`row ${k}`, k]] }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(new Array(8).fill(200));
    const lines = (await bytesOf(t, file.id, bob.headers)).trimEnd().split("\n");
    expect(lines).toHaveLength(11);
    expect(lines.slice(3).sort()).toEqual(Array.from({ length: 8 }, (_, k) => `row ${k},${k}`).sort());
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(9);
  });

  it("stores an append as its rows (and the short rows appended just before), the rest pieces of the stored bytes; every version reads as it was, also after a restore", async () => {
    // Longer than a piece worth referring to (MIN_PIECE_BYTES): the appends refer to it.
    const upload = `name,qty\n${Array.from({ length: 8000 }, (_, k) => `item ${k},${k}\n`).join("")}`;
    const { t, bob, file } = await aSharedCsv(upload, 1024 * 1024);
    const versionBytes = async (n: number) =>
      (await t.inject({ method: "GET", url: `/v1/files/${file.id}/versions/${n}/download`, headers: bob.headers }))
        .body;
    const blobOf = async (n: number) =>
      (await t.cellar.deps.versions.find({ fileId: file.id, number: n }))?.blobKey as string;
    const storedSize = async (key: string) => {
      for await (const blob of t.cellar.deps.blobs.list()) if (blob.key === key) return blob.size;
      return null;
    };
    await append(t, file.id, bob.headers, { values: [["pears", 5]] });
    await append(t, file.id, bob.headers, { values: [["plums", 7]] });
    // Each append's blob holds its row, and the short run of rows appended before it: the
    // upload's bytes are referred to, never copied.
    expect(await storedSize(await blobOf(1))).toBe(upload.length);
    expect(await storedSize(await blobOf(2))).toBe("pears,5\n".length);
    expect(await storedSize(await blobOf(3))).toBe("pears,5\nplums,7\n".length);
    expect(await versionBytes(1)).toBe(upload);
    expect(await versionBytes(2)).toBe(`${upload}pears,5\n`);
    expect(await versionBytes(3)).toBe(`${upload}pears,5\nplums,7\n`);
    const listed = (await t.inject({ method: "GET", url: `/v1/files/${file.id}/versions`, headers: bob.headers })).json<
      { version: number; sha256: string; size: number }[]
    >();
    expect(listed).toHaveLength(3);
    for (const version of listed) {
      const bytes = Buffer.from(await versionBytes(version.version));
      expect(version).toMatchObject({ size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") });
    }
    // Version 1 again, and a row after it: pieces of the upload's blob and the new row's.
    const restored = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/versions/1/restore`,
      headers: { ...bob.headers, "if-match": "*" },
    });
    expect(restored.statusCode).toBe(200);
    const after = await append(t, file.id, bob.headers, { values: [["figs", 2]] });
    expect(after.json()).toMatchObject({ updated_range: "Sheet1!A8002:B8002", file: { version: 5 } });
    expect(await storedSize(await blobOf(5))).toBe("figs,2\n".length);
    expect(await versionBytes(5)).toBe(`${upload}figs,2\n`);
    expect(await versionBytes(3)).toBe(`${upload}pears,5\nplums,7\n`);
    const cells = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/values?range=A8000:B8002`,
      headers: bob.headers,
    });
    expect(cells.json()).toMatchObject({
      values: [
        ["item 7998", "7998"],
        ["item 7999", "7999"],
        ["figs", "2"],
      ],
    });
  });

  it("lets at most 64 changes of one file wait their turn on a server; more get 503 with Retry-After", async () => {
    const { t, bob, file } = await aSharedCsv();
    const changes = Array.from({ length: 70 }, (_, k) =>
      t.cellar.edits.appendRows({ callerId: bob.user.id, fileId: file.id, precondition: undefined, values: [[k]] }),
    );
    const settled = await Promise.allSettled(changes);
    expect(settled.filter((change) => change.status === "fulfilled")).toHaveLength(64);
    const refused = settled.filter((change) => change.status === "rejected");
    expect(refused.map((change) => (change as PromiseRejectedResult).reason)).toEqual(
      new Array(6).fill(expect.objectContaining({ code: "unavailable", retryAfterSeconds: 1 })),
    );
    // Once they are through, the file takes changes again.
    const later = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/rows`,
      headers: bob.headers,
      payload: { values: [["later"]] },
    });
    expect(later.statusCode).toBe(200);
  });

  it("honours an If-Match given, and is for editors", async () => {
    const { t, bob, carol, file } = await aSharedCsv();
    await append(t, file.id, bob.headers, { values: [["x", 1]] });
    expectError(
      await append(t, file.id, { ...bob.headers, "if-match": `"${file.sha256}"` }, { values: [["y", 2]] }),
      412,
      "precondition_failed",
    );
    expectError(await append(t, file.id, carol.headers, { values: [["z", 3]] }), 403, "forbidden");
    expectError(await append(t, file.id, bob.headers, { sheet: "Nope", values: [["z", 3]] }), 400, "validation_error");
  });
});
