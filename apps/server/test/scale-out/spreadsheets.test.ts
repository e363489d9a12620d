import { readFileSync } from "node:fs";
import { createPostgresPool } from "@cellar/adapter-postgres";
import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { eventually, type FileJson, signIn, upload } from "../support/cellar-http.js";
import { objectsIn, s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("spreadsheets");

const fixture = (name: string) =>
  readFileSync(new URL(`../../../../packages/adapter-sheets/test/fixtures/${name}`, import.meta.url));
const workbook = fixture("libreoffice-book.xlsx");

describe("spreadsheets on PostgreSQL and S3, two server processes", () => {
  it("a workbook uploaded through one is read, windowed and converted through the other; its purge leaves nothing", async () => {
    const database = await createTestDatabase(inject("postgresUrl"), "sheets");
    scratch.onCleanup(() => database.drop());
    const store = inject("s3");
    const bucket = await createTestBucket(store, "sheets");
    const env = { DATABASE_URL: database.url, ...s3Env(store, `s3://${bucket}/cellar`) };
    const dataDir = scratch.dataDir();
    const one = await scratch.startProcess({ DATA_DIR: dataDir, ...env });
    const other = await scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env });
    const ada = await signIn({ requestAt: one.url, dataDir }, "ada@example.com");
    const auth = { authorization: `Bearer ${ada.jwt}` };

    const answer = await upload(one.url, ada.jwt, "book.xlsx", workbook);
    expect(answer.status).toBe(201);
    const file = JSON.parse(answer.text) as FileJson;
    const sheets = await (await fetch(`${other.url}/v1/files/${file.id}/sheets`, { headers: auth })).json();
    expect((sheets as { name: string }[]).map((sheet) => sheet.name)).toEqual(["Budget", "Données 'été' 📊", "Empty"]);
    const window = await fetch(`${other.url}/v1/files/${file.id}/values?range=${encodeURIComponent("Budget!A2:C3")}`, {
      headers: auth,
    });
    expect(await window.json()).toEqual({
      range: "Budget!A2:C3",
      values: [
        ["Rent", 1200, "2026-01-31"],
        ["Food & “drinks”", 300.5, "1999-12-31"],
      ],
    });
    // Found through the other process, case aside, on every sheet, the page's headers given.
    const found = await fetch(`${other.url}/v1/files/${file.id}/find?q=RENT`, { headers: auth });
    expect(found.status).toBe(200);
    const cells = (await found.json()) as { range: string; value: unknown; text: string }[];
    expect(cells[0]).toEqual({ range: "Budget!A2", value: "Rent", text: "Rent" });
    expect(found.headers.get("x-total-count")).toBe(String(cells.length));
    const csv = await (await fetch(`${one.url}/v1/files/${file.id}/download?format=csv`, { headers: auth })).text();
    expect(csv.split("\r\n")[0]).toBe("Item,Amount,Due,Paid,Double");

    // The workbook's bytes and the rows its reader wrote sit side by side in the bucket.
    const keys = (await objectsIn(store, bucket)).map((object) => object.key).sort();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(`${keys[0]}_rows`);

    // Trashed and due: the purge of a process starting now removes the row, the index and both objects.
    expect((await fetch(`${one.url}/v1/files/${file.id}`, { method: "DELETE", headers: auth })).status).toBe(200);
    const client = createPostgresPool({ connectionString: database.url, max: 1 });
    try {
      await client.query("UPDATE files SET purge_at = now() - interval '1 minute' WHERE id = $1", [file.id]);
      const third = await scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env });
      await eventually(
        "the start-up purge",
        () => third.logs().some((line) => line.msg === "maintenance done"),
        20_000,
      );
      expect((await client.query("SELECT count(*)::int AS n FROM sheet_indexes")).rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
    expect(await objectsIn(store, bucket)).toEqual([]);
  }, 60_000);

  it("a workbook's structure changed through one is read through the other; of two changes of one version, one lands", async () => {
    const database = await createTestDatabase(inject("postgresUrl"), "structure");
    scratch.onCleanup(() => database.drop());
    const store = inject("s3");
    const bucket = await createTestBucket(store, "structure");
    const env = { DATABASE_URL: database.url, ...s3Env(store, `s3://${bucket}/cellar`) };
    const dataDir = scratch.dataDir();
    const [one, other] = await Promise.all([
      scratch.startProcess({ DATA_DIR: dataDir, ...env }),
      scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
    ]);
    const ada = await signIn({ requestAt: one.url, dataDir }, "ada@example.com");
    const headers = { authorization: `Bearer ${ada.jwt}`, "content-type": "application/json" };
    const answer = await upload(one.url, ada.jwt, "budget.xlsx", fixture("libreoffice-budget.xlsx"));
    expect(answer.status).toBe(201);
    const file = JSON.parse(answer.text) as FileJson;

    const change = (server: typeof one, operations: unknown[]) =>
      fetch(`${server.url}/v1/files/${file.id}/structure`, {
        method: "POST",
        headers: { ...headers, "if-match": `"${file.sha256}"` },
        body: JSON.stringify({ operations }),
      });
    const [first, second] = await Promise.all([
      change(one, [{ insert: "rows", sheet: "Budget", before: 3, count: 2 }]),
      change(other, [{ delete: "rows", sheet: "Budget", from: 2, count: 1 }]),
    ]);
    const statuses = [first.status, second.status].sort();
    expect(statuses).toEqual([200, 412]);
    const inserted = first.status === 200;

    // Read through the other process: the summary's formulas follow, and are computed again.
    const read = (server: typeof one, range: string, render: string) =>
      fetch(`${server.url}/v1/files/${file.id}/values?range=${encodeURIComponent(range)}&render=${render}`, {
        headers,
      }).then(async (response) => ((await response.json()) as { values: unknown[][] }).values);
    const reader = inserted ? other : one;
    expect(await read(reader, "Summary!A1:A2", "formula")).toEqual(
      inserted ? [["=Budget!B8"], ["=SUM(Budget!B2:B7)"]] : [["=Budget!B5"], ["=SUM(Budget!B2:B4)"]],
    );
    expect(await read(reader, "Summary!A1:A2", "raw")).toEqual(inserted ? [[1700], [1700]] : [[500], [500]]);

    // The sheets changed through the other: added, renamed, moved, one deleted; read through the first.
    const current = (await (await fetch(`${one.url}/v1/files/${file.id}`, { headers })).json()) as FileJson;
    const sheetsChanged = await fetch(`${reader.url}/v1/files/${file.id}/structure`, {
      method: "POST",
      headers: { ...headers, "if-match": `"${current.sha256}"` },
      body: JSON.stringify({
        operations: [
          { add_sheet: "Notes", index: 0 },
          { rename_sheet: "Budget", to: "Q1 Budget" },
          { move_sheet: "Summary", to: 0 },
          { delete_sheet: "Notes" },
        ],
      }),
    });
    expect(sheetsChanged.status).toBe(200);
    const elsewhere = reader === one ? other : one;
    const names = (await (await fetch(`${elsewhere.url}/v1/files/${file.id}/sheets`, { headers })).json()) as {
      name: string;
    }[];
    expect(names.map((sheet) => sheet.name)).toEqual(["Summary", "Q1 Budget"]);
    expect(await read(elsewhere, "Summary!A1", "formula")).toEqual([
      [inserted ? "='Q1 Budget'!B8" : "='Q1 Budget'!B5"],
    ]);
  }, 90_000);
});
