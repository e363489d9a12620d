import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { openDatabase } from "@cellar/adapter-sqlite";
import { signInLinkIn } from "./mail-text.js";

/** A file as the API returns it (the fields these tests look at). */
export interface FileJson {
  readonly id: string;
  readonly name: string;
  readonly size: number;
  readonly sha256: string;
  /** The caller's role: `owner`, the one given, or null for a public file's passer-by. */
  readonly role?: string | null;
}

export const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** `items[index]`, which must exist. */
export function nth<T>(items: readonly T[], index: number): T {
  if (index < 0 || index >= items.length) throw new RangeError(`No item ${index} in ${items.length}.`);
  return items[index] as T;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling every 25 ms; throws with `what` after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Not true within ${timeoutMs} ms: ${what}`);
    await sleep(25);
  }
}

const postJson = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

/**
 * The newest sign-in token mailed to `email` in the dev outbox (`DATA_DIR/outbox`,
 * used when SMTP_URL is unset), or undefined when there is none.
 */
export async function outboxTokenFor(dataDir: string, email: string): Promise<string | undefined> {
  const outbox = join(dataDir, "outbox");
  if (!existsSync(outbox)) return undefined;
  const to = new RegExp(`^To: ${email.replace(/[.]/g, "\\.")}\\r?$`, "m");
  const mail = readdirSync(outbox)
    .filter((name) => name.endsWith(".eml"))
    .sort()
    .reverse()
    .map((name) => readFileSync(join(outbox, name), "utf8"))
    .find((raw) => to.test(raw));
  return mail === undefined ? undefined : ((await signInLinkIn(mail)).searchParams.get("token") ?? undefined);
}

/**
 * Signs `email` in over real HTTP in dev-outbox mode: asks `requestAt` for a link, reads
 * the token from the outbox, and exchanges it at `verifyAt` (another process on the same
 * DATA_DIR may verify a token the first one issued).
 */
export async function signIn(
  input: { requestAt: string; verifyAt?: string; dataDir: string },
  email: string,
): Promise<{ jwt: string; userId: string }> {
  const requested = await postJson(`${input.requestAt}/v1/sessions`, { email });
  if (requested.status !== 202) throw new Error(`POST /v1/sessions: ${requested.status} ${await requested.text()}`);
  const token = await outboxTokenFor(input.dataDir, email);
  if (token === undefined) throw new Error(`No sign-in mail to ${email} in the outbox.`);
  const verified = await postJson(`${input.verifyAt ?? input.requestAt}/v1/sessions/verify`, { token });
  if (verified.status !== 200) throw new Error(`POST /v1/sessions/verify: ${verified.status} ${await verified.text()}`);
  const { jwt, user } = (await verified.json()) as { jwt: string; user: { id: string } };
  return { jwt, userId: user.id };
}

const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

/** A request as `jwt`, with a JSON body or raw CSV text: the status and the parsed answer (undefined for none). */
export async function call<T = unknown>(
  url: string,
  jwt: string,
  method = "GET",
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const raw = typeof body === "string";
  const response = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${jwt}`,
      ...(body === undefined ? {} : { "content-type": raw ? "text/csv" : "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: raw ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as T };
}

/** Uploads `content` as `fileName` with fetch and FormData: the status and the body's text. */
export async function upload(baseUrl: string, jwt: string, fileName: string, content: Uint8Array) {
  const form = new FormData();
  form.append("file", new Blob([content]), fileName);
  const response = await fetch(`${baseUrl}/v1/files`, { method: "POST", headers: bearer(jwt), body: form });
  return { response, status: response.status, text: await response.text() };
}

/** Every active file of the caller, all pages read. */
export async function listAll(baseUrl: string, jwt: string): Promise<FileJson[]> {
  const files: FileJson[] = [];
  for (let page = 1; ; page++) {
    const response = await fetch(`${baseUrl}/v1/files?per_page=100&page=${page}`, { headers: bearer(jwt) });
    if (response.status !== 200) throw new Error(`GET /v1/files: ${response.status} ${await response.text()}`);
    const batch = (await response.json()) as FileJson[];
    if (batch.length === 0) return files;
    files.push(...batch);
  }
}

/** The bytes of a file as downloaded. */
export async function download(baseUrl: string, jwt: string, id: string): Promise<Buffer> {
  const response = await fetch(`${baseUrl}/v1/files/${id}/download`, { headers: bearer(jwt) });
  if (response.status !== 200) throw new Error(`download ${id}: ${response.status} ${await response.text()}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Paths of the regular files under `dir`, relative to it; [] when `dir` does not exist. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** The blob keys stored under `DATA_DIR/blobs` (blob files are named by their key). */
export function blobKeysIn(dataDir: string): string[] {
  return filesUnder(join(dataDir, "blobs"))
    .map((path) => path.split("/").at(-1) ?? "")
    .sort();
}

/** What is in `DATA_DIR/tmp`: uploads being written, or left behind. */
export const tempFilesIn = (dataDir: string) => filesUnder(join(dataDir, "tmp"));

/**
 * Runs `query` on a connection of its own to `DATA_DIR/cellar.db`, next to any server
 * using it, and closes it. It only reads (opening an up-to-date database migrates nothing).
 */
export function inDatabase<T>(dataDir: string, query: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(join(dataDir, "cellar.db"));
  try {
    return query(db);
  } finally {
    db.close();
  }
}

/** The blob keys of every file row, whatever its state. */
export const rowBlobKeys = (dataDir: string) =>
  inDatabase(dataDir, (db) =>
    (db.prepare("SELECT blob_key FROM files ORDER BY blob_key").pluck().all() as string[]).sort(),
  );
