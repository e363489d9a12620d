import { createFormulaEngine } from "@cellar/adapter-formulas";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import {
  type CellarConfig,
  createInMemoryCellar,
  type FileRecord,
  type FileRepository,
  type FormulaEngine,
  type WebhookTransport,
} from "@cellar/core";
import { createFakeClock, createRecordingWebhookTransport } from "@cellar/core/testing";
import Fastify, { type InjectOptions, type LightMyRequestResponse } from "fastify";
import {
  cellarApi,
  cellarOpenApi,
  cellarResponseHeaders,
  cellarSignInPage,
  type FileJson,
  frameworkErrorOptionsFor,
  lazySerializerOptions,
  requestIdOptions,
} from "../../src/index.js";
import { type FormPart, multipartBody } from "./multipart.js";

export const PUBLIC_URL = "https://cellar.example.org";

export interface TestAppOptions {
  readonly config?: Partial<CellarConfig>;
  readonly acceptingRequests?: () => boolean;
  readonly isStorageUnavailable?: (error: unknown) => boolean;
  /**
   * Hands out every file read as a frozen record, the same object while the row is
   * unchanged, as the SQLite adapter's read cache does: what core and the JSON made from
   * it remember per object then shows.
   */
  readonly frozenFileReads?: boolean;
  /** Workbooks compute (decisions §8): the reader and the edits get the formula engine. */
  readonly formulas?: boolean;
  /**
   * What sends webhook deliveries; null: a Cellar without webhooks (no `/webhooks` routes).
   * Default: `webhookReceiver`, a transport that records every delivery, answers 200 and
   * refuses hosts named `refused.example`.
   */
  readonly webhookTransport?: WebhookTransport | null;
}

/**
 * The API as the server builds it, on an in-memory Cellar and a fake clock, plus
 * helpers that speak HTTP to it through `inject` (no sockets).
 */
export async function buildTestApp(options: TestAppOptions = {}) {
  let engine: FormulaEngine | undefined;
  const formulaEngine = async (): Promise<FormulaEngine> => {
    engine ??= createFormulaEngine();
    return engine;
  };
  const clock = createFakeClock(new Date("2026-11-21T10:00:00.000Z"));
  const webhookReceiver = createRecordingWebhookTransport();
  const webhookTransport =
    options.webhookTransport === undefined ? webhookReceiver.transport : options.webhookTransport;
  const cellar = createInMemoryCellar({
    clock,
    spreadsheets: createSpreadsheetReader(options.formulas === true ? { loadEngine: formulaEngine } : {}),
    spreadsheetWriter: createSpreadsheetWriter(),
    ...(options.formulas === true ? { formulaEngine } : {}),
    ...(webhookTransport === null ? {} : { webhookTransport }),
    config: { publicUrl: PUBLIC_URL, maxUploadBytes: 64 * 1024, ...options.config },
  });
  if (options.frozenFileReads === true) freezeFileReads(cellar.deps.files);
  // Response serializers compiled on first use, as the server has them: compiling every
  // route's at start took most of a second for each test's app.
  const app = Fastify({
    ...requestIdOptions,
    ...frameworkErrorOptionsFor({ cellar }),
    ...lazySerializerOptions,
    logger: false,
  });
  await app.register(cellarResponseHeaders);
  await app.register(cellarOpenApi, { publicUrl: PUBLIC_URL });
  await app.register(cellarApi, {
    prefix: "/v1",
    cellar,
    publicUrl: PUBLIC_URL,
    ...(options.acceptingRequests === undefined ? {} : { acceptingRequests: options.acceptingRequests }),
    ...(options.isStorageUnavailable === undefined ? {} : { isStorageUnavailable: options.isStorageUnavailable }),
  });
  await app.register(cellarSignInPage);
  await app.ready();

  const inject = (request: InjectOptions) => app.inject(request);

  /** The token of the last sign-in link the in-memory mailer sent. */
  function lastMailedToken(): string {
    const mail = cellar.deps.mailer.sent.at(-1);
    if (mail === undefined) throw new Error("No sign-in mail was sent.");
    const token = new URL(mail.link).searchParams.get("token");
    if (token === null) throw new Error("The sign-in link has no token.");
    return token;
  }

  /** Signs `email` in through the API: POST /v1/sessions, then POST /v1/sessions/verify. */
  async function signIn(email: string) {
    const requested = await inject({ method: "POST", url: "/v1/sessions", payload: { email } });
    if (requested.statusCode !== 202) throw new Error(`POST /v1/sessions answered ${requested.statusCode}`);
    const verified = await inject({
      method: "POST",
      url: "/v1/sessions/verify",
      payload: { token: lastMailedToken() },
    });
    if (verified.statusCode !== 200) throw new Error(`POST /v1/sessions/verify answered ${verified.statusCode}`);
    const body = verified.json<{ jwt: string; user: { id: string; email: string; name: string } }>();
    return { ...body, headers: { authorization: `Bearer ${body.jwt}` } };
  }

  /** POST /v1/files with the given parts. */
  function upload(authorization: { authorization: string }, parts: readonly FormPart[]) {
    const { payload, headers } = multipartBody(parts);
    return inject({ method: "POST", url: "/v1/files", payload, headers: { ...headers, ...authorization } });
  }

  /** Uploads a small CSV and returns the file JSON. */
  async function uploadCsv(
    authorization: { authorization: string },
    options: { filename?: string; content?: string; name?: string; visibility?: string } = {},
  ): Promise<FileBody> {
    const parts: FormPart[] = [
      { name: "file", filename: options.filename ?? "data.csv", content: options.content ?? "a,b\n1,2\n" },
    ];
    if (options.name !== undefined) parts.push({ name: "name", value: options.name });
    if (options.visibility !== undefined) parts.push({ name: "visibility", value: options.visibility });
    const response = await upload(authorization, parts);
    if (response.statusCode !== 201) throw new Error(`Upload answered ${response.statusCode}: ${response.body}`);
    return response.json<FileBody>();
  }

  /** POST /v1/files/:id/permissions as the caller whose headers are given. */
  function share(
    authorization: { authorization: string },
    fileId: string,
    body: { email: string; role: string; notify?: boolean; message?: string },
  ) {
    return inject({ method: "POST", url: `/v1/files/${fileId}/permissions`, headers: authorization, payload: body });
  }

  return { app, cellar, clock, inject, signIn, upload, uploadCsv, share, lastMailedToken, webhookReceiver };
}

/** Makes `files.findWithRole` answer frozen records, one object per unchanged row. */
function freezeFileReads(files: FileRepository): void {
  const read = files.findWithRole.bind(files);
  const frozen = new Map<string, FileRecord>();
  files.findWithRole = async (query) => {
    const found = await read(query);
    if (found === null) return null;
    const key = JSON.stringify(found.file);
    let file = frozen.get(key);
    if (file === undefined) {
      file = Object.freeze({ ...found.file });
      frozen.set(key, file);
    }
    return { ...found, file };
  };
}

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

/** A file as the API answers it. */
export type FileBody = FileJson;

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown[] };
}

/** Asserts a JSON error response: its status, its code, and the error body's shape. */
export function expectError(response: LightMyRequestResponse, status: number, code: string): ErrorBody {
  const body = response.json<ErrorBody>();
  if (response.statusCode !== status || body.error?.code !== code) {
    throw new Error(`Expected ${status} ${code}, got ${response.statusCode}: ${response.body}`);
  }
  if (typeof body.error.message !== "string" || body.error.message.length === 0) {
    throw new Error(`The error has no message: ${response.body}`);
  }
  return body;
}

/** The file endpoints whose answers the access matrix decides. */
export type FileAction = "get" | "patch" | "delete" | "restore" | "download";

/** Sends `action` on file `id` as the caller whose headers are given. */
export function requestFileAction(t: TestApp, action: FileAction, id: string, headers: { authorization: string }) {
  switch (action) {
    case "get":
      return t.inject({ method: "GET", url: `/v1/files/${id}`, headers });
    case "patch":
      return t.inject({ method: "PATCH", url: `/v1/files/${id}`, headers, payload: { name: "renamed" } });
    case "delete":
      return t.inject({ method: "DELETE", url: `/v1/files/${id}`, headers });
    case "restore":
      return t.inject({ method: "POST", url: `/v1/files/${id}/restore`, headers });
    case "download":
      return t.inject({ method: "GET", url: `/v1/files/${id}/download`, headers });
  }
}
