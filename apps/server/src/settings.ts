import { isIP } from "node:net";

/**
 * The server's settings, read from the environment exactly as docs/api.md lists them.
 * A bad value stops start-up with one line that names the setting.
 */
export interface Settings {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  /** Unset: `http://{HOST}:{PORT}` once the port is known. */
  readonly publicUrl: string | undefined;
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** Unset: generated once and kept in `DATA_DIR`. */
  readonly jwtSecret: string | undefined;
  readonly jwtTtlSeconds: number;
  readonly magicLinkTtlSeconds: number;
  readonly maxUploadBytes: number;
  readonly rateLimitMax: number;
  readonly rateLimitWindowSeconds: number;
  readonly trashRetentionDays: number;
  readonly purgeIntervalSeconds: number;
  /** Mails telling people of a file shared with them that one account may send per hour. */
  readonly inviteRateMax: number;
  /** Days a version that is neither current nor kept is kept at least. */
  readonly versionRetentionDays: number;
  /** How many of a file's newest versions are kept whatever their age. */
  readonly versionRetentionCount: number;
  /** The wait before a failed webhook delivery is tried again, doubling after each failure. */
  readonly webhookRetryBaseSeconds: number;
  /** Webhooks may go to loopback and private addresses, over http:// too: for development only. */
  readonly webhookAllowPrivate: boolean;
  readonly logLevel: LogLevel;
  /**
   * Which proxies' `X-Forwarded-For` to believe when working out a client's address (the
   * key of per-client limits): none, all (`true`), the nearest N hops, or these addresses.
   */
  readonly trustProxy: boolean | number | string[];
  /** `postgres://…`: metadata in PostgreSQL. Unset: SQLite under `DATA_DIR`. Holds a password: never logged. */
  readonly databaseUrl: string | undefined;
  /** Connections this instance may open to `databaseUrl`. */
  readonly databasePoolMax: number;
  /**
   * The connection each instance keeps open to hear the others' changes (LISTEN); unset:
   * `databaseUrl`. Behind a pooler in transaction mode, a direct or session-mode one.
   */
  readonly databaseListenUrl: string | undefined;
  /** Where file bytes go: under `DATA_DIR`, or an S3-compatible bucket. */
  readonly blobStore: BlobStoreSetting;
  /** Where Prometheus metrics are served (`/metrics`), apart from the API. Unset: no metrics. */
  readonly metricsPort: number | undefined;
  readonly metricsHost: string;
}

export type BlobStoreSetting =
  | { readonly kind: "fs" }
  | {
      readonly kind: "s3";
      readonly bucket: string;
      /** Prepended to every object's key; "" for none. */
      readonly prefix: string;
      /** Unset: AWS. */
      readonly endpoint: string | undefined;
      readonly forcePathStyle: boolean;
    };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class SettingsError extends Error {
  override readonly name = "SettingsError";
}

export const MIN_JWT_SECRET_BYTES = 32;

type Env = Readonly<Record<string, string | undefined>>;

/** A whole number of at least `min`, or the default when unset or empty. */
function wholeNumber(env: Env, name: string, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`;
    throw new SettingsError(`${name} must be a whole number ${range}, not ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

function optional(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === "" ? undefined : value;
}

function absoluteUrl(name: string, value: string | undefined, protocols: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SettingsError(`${name} must be an absolute URL.`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new SettingsError(`${name} must start with ${protocols.map((p) => `${p}//`).join(" or ")}.`);
  }
  return value;
}

function trustProxy(env: Env): boolean | number | string[] {
  const value = optional(env, "TRUST_PROXY");
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  if (/^\d+$/.test(value)) return wholeNumber(env, "TRUST_PROXY", 0, 1, 100);
  const addresses = value.split(",").map((part) => part.trim());
  for (const address of addresses) {
    const [ip, prefix, ...rest] = address.split("/");
    const version = ip === undefined ? 0 : isIP(ip);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
    if (version === 0 || !prefixOk || rest.length > 0) {
      throw new SettingsError(
        `TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of IP addresses or CIDR ranges, not ${JSON.stringify(address)}.`,
      );
    }
  }
  return addresses;
}

/** `BLOB_STORE`: `fs`, or `s3://bucket` / `s3://bucket/prefix`, with `S3_ENDPOINT` and `S3_FORCE_PATH_STYLE`. */
function blobStore(env: Env): BlobStoreSetting {
  const value = optional(env, "BLOB_STORE") ?? "fs";
  if (value === "fs") return { kind: "fs" };
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (match === null) {
    throw new SettingsError(
      `BLOB_STORE must be fs, s3://<bucket> or s3://<bucket>/<prefix>, not ${JSON.stringify(value)}.`,
    );
  }
  const forcePathStyle = optional(env, "S3_FORCE_PATH_STYLE") ?? "false";
  if (forcePathStyle !== "true" && forcePathStyle !== "false") {
    throw new SettingsError(`S3_FORCE_PATH_STYLE must be true or false, not ${JSON.stringify(forcePathStyle)}.`);
  }
  return {
    kind: "s3",
    bucket: match[1] as string,
    prefix: (match[2] ?? "").replace(/^\/+|\/+$/g, ""),
    endpoint: absoluteUrl("S3_ENDPOINT", optional(env, "S3_ENDPOINT"), ["http:", "https:"]),
    forcePathStyle: forcePathStyle === "true",
  };
}

function logLevel(env: Env): LogLevel {
  const value = optional(env, "LOG_LEVEL") ?? "info";
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new SettingsError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, not ${JSON.stringify(value)}.`);
  }
  return value as LogLevel;
}

/** `true` or `false` (unset: false); anything else is refused rather than guessed. */
function flag(env: Env, name: string): boolean {
  const value = optional(env, name);
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new SettingsError(`${name} must be true or false, not ${JSON.stringify(value)}.`);
}

export function readSettings(env: Env = process.env): Settings {
  const jwtSecret = env.JWT_SECRET;
  if (jwtSecret !== undefined && Buffer.byteLength(jwtSecret, "utf8") < MIN_JWT_SECRET_BYTES) {
    throw new SettingsError(`JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes long.`);
  }
  const publicUrl = absoluteUrl("PUBLIC_URL", optional(env, "PUBLIC_URL"), ["http:", "https:"]);
  return {
    host: optional(env, "HOST") ?? "127.0.0.1",
    port: wholeNumber(env, "PORT", 3000, 0, 65_535),
    dataDir: optional(env, "DATA_DIR") ?? "./data",
    publicUrl: publicUrl?.replace(/\/+$/, ""),
    // The URL holds a password: it is checked here but never quoted back.
    smtpUrl: absoluteUrl("SMTP_URL", optional(env, "SMTP_URL"), ["smtp:", "smtps:"]),
    mailFrom: optional(env, "MAIL_FROM") ?? "Cellar <no-reply@localhost>",
    jwtSecret,
    jwtTtlSeconds: wholeNumber(env, "JWT_TTL_SECONDS", 604_800),
    magicLinkTtlSeconds: wholeNumber(env, "MAGIC_LINK_TTL_SECONDS", 600),
    maxUploadBytes: wholeNumber(env, "MAX_UPLOAD_BYTES", 104_857_600),
    rateLimitMax: wholeNumber(env, "RATE_LIMIT_MAX", 600),
    rateLimitWindowSeconds: wholeNumber(env, "RATE_LIMIT_WINDOW_SECONDS", 60),
    trashRetentionDays: wholeNumber(env, "TRASH_RETENTION_DAYS", 30),
    purgeIntervalSeconds: wholeNumber(env, "PURGE_INTERVAL_SECONDS", 3600),
    inviteRateMax: wholeNumber(env, "INVITE_RATE_MAX", 50),
    versionRetentionDays: wholeNumber(env, "VERSION_RETENTION_DAYS", 30),
    versionRetentionCount: wholeNumber(env, "VERSION_RETENTION_COUNT", 100),
    webhookRetryBaseSeconds: wholeNumber(env, "WEBHOOK_RETRY_BASE_S", 60),
    webhookAllowPrivate: flag(env, "WEBHOOK_ALLOW_PRIVATE"),
    logLevel: logLevel(env),
    trustProxy: trustProxy(env),
    // Like SMTP_URL, it holds a password: checked here, never quoted back.
    databaseUrl: absoluteUrl("DATABASE_URL", optional(env, "DATABASE_URL"), ["postgres:", "postgresql:"]),
    databasePoolMax: wholeNumber(env, "DATABASE_POOL_MAX", 10, 1, 1000),
    databaseListenUrl: absoluteUrl("DATABASE_LISTEN_URL", optional(env, "DATABASE_LISTEN_URL"), [
      "postgres:",
      "postgresql:",
    ]),
    blobStore: blobStore(env),
    metricsPort:
      optional(env, "METRICS_PORT") === undefined ? undefined : wholeNumber(env, "METRICS_PORT", 0, 0, 65_535),
    // Metrics tell about the server's traffic: on the loopback only, unless asked.
    metricsHost: optional(env, "METRICS_HOST") ?? "127.0.0.1",
  };
}
