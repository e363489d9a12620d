import { describe, expect, it } from "vitest";
import { readSettings, SettingsError } from "../src/settings.js";

describe("reading settings from the environment", () => {
  it("applies every documented default", () => {
    expect(readSettings({})).toEqual({
      host: "127.0.0.1",
      port: 3000,
      dataDir: "./data",
      publicUrl: undefined,
      smtpUrl: undefined,
      mailFrom: "Cellar <no-reply@localhost>",
      jwtSecret: undefined,
      jwtTtlSeconds: 604_800,
      magicLinkTtlSeconds: 600,
      maxUploadBytes: 104_857_600,
      rateLimitMax: 600,
      rateLimitWindowSeconds: 60,
      trashRetentionDays: 30,
      purgeIntervalSeconds: 3600,
      inviteRateMax: 50,
      versionRetentionDays: 30,
      versionRetentionCount: 100,
      webhookRetryBaseSeconds: 60,
      webhookAllowPrivate: false,
      logLevel: "info",
      trustProxy: false,
      databaseUrl: undefined,
      databasePoolMax: 10,
      blobStore: { kind: "fs" },
      metricsPort: undefined,
      metricsHost: "127.0.0.1",
    });
  });

  it("serves metrics only where METRICS_PORT says, on the loopback unless METRICS_HOST says otherwise", () => {
    expect(readSettings({ METRICS_PORT: "9464" })).toMatchObject({ metricsPort: 9464, metricsHost: "127.0.0.1" });
    expect(readSettings({ METRICS_PORT: "0", METRICS_HOST: "0.0.0.0" })).toMatchObject({
      metricsPort: 0,
      metricsHost: "0.0.0.0",
    });
    expect(() => readSettings({ METRICS_PORT: "http" })).toThrow(/^METRICS_PORT must be a whole number/);
  });

  it.each([
    ["true", true],
    ["false", false],
    ["2", 2],
    ["10.0.0.1", ["10.0.0.1"]],
    ["10.0.0.0/8, ::1", ["10.0.0.0/8", "::1"]],
  ])("reads TRUST_PROXY=%s", (value, expected) => {
    expect(readSettings({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it.each(["yes", "0", "10.0.0.0/99", "proxy.example.org", "10.0.0.1/8/2"])("stops on TRUST_PROXY=%s", (value) => {
    expect(() => readSettings({ TRUST_PROXY: value })).toThrow(/^TRUST_PROXY must be/);
  });

  it("takes a known LOG_LEVEL and refuses an unknown one", () => {
    expect(readSettings({ LOG_LEVEL: "debug" }).logLevel).toBe("debug");
    expect(() => readSettings({ LOG_LEVEL: "loud" })).toThrow(/^LOG_LEVEL must be one of fatal, error/);
  });

  it("takes every setting that is given", () => {
    const settings = readSettings({
      HOST: "0.0.0.0",
      PORT: "0",
      DATA_DIR: "/var/lib/cellar",
      PUBLIC_URL: "https://files.example.org/",
      SMTP_URL: "smtp://user:pass@mail.example.org:587",
      MAIL_FROM: "Files <files@example.org>",
      JWT_SECRET: "s".repeat(32),
      JWT_TTL_SECONDS: "3600",
      MAGIC_LINK_TTL_SECONDS: "300",
      MAX_UPLOAD_BYTES: "1048576",
      RATE_LIMIT_MAX: "100",
      RATE_LIMIT_WINDOW_SECONDS: "10",
      TRASH_RETENTION_DAYS: "7",
      PURGE_INTERVAL_SECONDS: "60",
      INVITE_RATE_MAX: "5",
      VERSION_RETENTION_DAYS: "90",
      VERSION_RETENTION_COUNT: "10",
      WEBHOOK_RETRY_BASE_S: "5",
      WEBHOOK_ALLOW_PRIVATE: "true",
    });
    expect(settings).toMatchObject({
      host: "0.0.0.0",
      port: 0,
      dataDir: "/var/lib/cellar",
      publicUrl: "https://files.example.org",
      smtpUrl: "smtp://user:pass@mail.example.org:587",
      mailFrom: "Files <files@example.org>",
      jwtTtlSeconds: 3600,
      magicLinkTtlSeconds: 300,
      maxUploadBytes: 1_048_576,
      rateLimitMax: 100,
      rateLimitWindowSeconds: 10,
      trashRetentionDays: 7,
      purgeIntervalSeconds: 60,
      inviteRateMax: 5,
      versionRetentionDays: 90,
      versionRetentionCount: 10,
      webhookRetryBaseSeconds: 5,
      webhookAllowPrivate: true,
    });
  });

  it("takes WEBHOOK_ALLOW_PRIVATE as true or false only", () => {
    expect(readSettings({ WEBHOOK_ALLOW_PRIVATE: "false" }).webhookAllowPrivate).toBe(false);
    expect(() => readSettings({ WEBHOOK_ALLOW_PRIVATE: "yes" })).toThrow(
      /^WEBHOOK_ALLOW_PRIVATE must be true or false, not "yes"\.$/,
    );
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "65536"],
    ["PORT", "-1"],
    ["JWT_TTL_SECONDS", "0"],
    ["MAGIC_LINK_TTL_SECONDS", "1.5"],
    ["MAX_UPLOAD_BYTES", "-5"],
    ["RATE_LIMIT_MAX", "lots"],
    ["RATE_LIMIT_WINDOW_SECONDS", "1e3"],
    ["TRASH_RETENTION_DAYS", "0"],
    ["PURGE_INTERVAL_SECONDS", "soon"],
    ["INVITE_RATE_MAX", "0"],
    ["INVITE_RATE_MAX", "fifty"],
    ["VERSION_RETENTION_DAYS", "0"],
    ["VERSION_RETENTION_COUNT", "-1"],
    ["WEBHOOK_RETRY_BASE_S", "0"],
  ])("stops on %s=%s with one line naming the setting", (name, value) => {
    expect(() => readSettings({ [name]: value })).toThrow(SettingsError);
    expect(() => readSettings({ [name]: value })).toThrow(new RegExp(`^${name} must be a whole number`));
  });

  it("stops on a JWT_SECRET shorter than 32 bytes", () => {
    expect(() => readSettings({ JWT_SECRET: "short" })).toThrow(/^JWT_SECRET must be at least 32 bytes/);
  });

  it("stops on a PUBLIC_URL that is not an absolute http(s) URL", () => {
    expect(() => readSettings({ PUBLIC_URL: "files.example.org" })).toThrow(/^PUBLIC_URL must be an absolute URL/);
    expect(() => readSettings({ PUBLIC_URL: "ftp://files.example.org" })).toThrow(/^PUBLIC_URL must start with http/);
  });

  it("stops on a bad SMTP_URL without quoting its password", () => {
    const attempt = () => readSettings({ SMTP_URL: "http://user:secret-password@mail.example.org" });
    expect(attempt).toThrow(/^SMTP_URL must start with smtp:\/\/ or smtps:\/\//);
    try {
      attempt();
    } catch (error) {
      expect(String(error)).not.toContain("secret-password");
    }
  });

  it("takes a PostgreSQL DATABASE_URL and its pool size, and refuses others without quoting the password", () => {
    expect(
      readSettings({ DATABASE_URL: "postgres://cellar:pw@db:5432/cellar", DATABASE_POOL_MAX: "25" }),
    ).toMatchObject({ databaseUrl: "postgres://cellar:pw@db:5432/cellar", databasePoolMax: 25 });
    expect(readSettings({ DATABASE_URL: "postgresql://db/cellar" }).databaseUrl).toBe("postgresql://db/cellar");
    const attempt = () => readSettings({ DATABASE_URL: "mysql://cellar:secret-password@db/cellar" });
    expect(attempt).toThrow(/^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//);
    expect(() => attempt()).not.toThrow(/secret-password/);
    expect(() => readSettings({ DATABASE_POOL_MAX: "0" })).toThrow(/^DATABASE_POOL_MAX must be a whole number from 1/);
    // The connection that hears other servers' changes: the same database unless told otherwise.
    expect(readSettings({ DATABASE_URL: "postgres://db/cellar" }).databaseListenUrl).toBeUndefined();
    expect(
      readSettings({ DATABASE_URL: "postgres://pgbouncer/cellar", DATABASE_LISTEN_URL: "postgres://db:5432/cellar" })
        .databaseListenUrl,
    ).toBe("postgres://db:5432/cellar");
    expect(() => readSettings({ DATABASE_LISTEN_URL: "http://cellar:secret-password@db/" })).toThrow(
      /^DATABASE_LISTEN_URL must start with postgres:\/\/ or postgresql:\/\//,
    );
  });

  it("takes BLOB_STORE as fs or an s3:// bucket with an optional prefix, and the S3 settings with it", () => {
    expect(readSettings({ BLOB_STORE: "fs" }).blobStore).toEqual({ kind: "fs" });
    expect(readSettings({ BLOB_STORE: "s3://cellar-files" }).blobStore).toEqual({
      kind: "s3",
      bucket: "cellar-files",
      prefix: "",
      endpoint: undefined,
      forcePathStyle: false,
    });
    expect(
      readSettings({
        BLOB_STORE: "s3://cellar-files/prod/blobs/",
        S3_ENDPOINT: "http://127.0.0.1:9000",
        S3_FORCE_PATH_STYLE: "true",
      }).blobStore,
    ).toEqual({
      kind: "s3",
      bucket: "cellar-files",
      prefix: "prod/blobs",
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
    });
    expect(() => readSettings({ BLOB_STORE: "gs://bucket" })).toThrow(/^BLOB_STORE must be fs, s3:\/\/<bucket>/);
    expect(() => readSettings({ BLOB_STORE: "s3://UPPER" })).toThrow(/^BLOB_STORE must be/);
    expect(() => readSettings({ BLOB_STORE: "s3://bucket", S3_FORCE_PATH_STYLE: "yes" })).toThrow(
      /^S3_FORCE_PATH_STYLE must be true or false/,
    );
    expect(() => readSettings({ BLOB_STORE: "s3://bucket", S3_ENDPOINT: "minio:9000" })).toThrow(
      /^S3_ENDPOINT must start with http:\/\/ or https:\/\//,
    );
  });

  it("treats empty values as unset", () => {
    expect(readSettings({ PORT: "", SMTP_URL: " ", PUBLIC_URL: "" })).toMatchObject({
      port: 3000,
      smtpUrl: undefined,
      publicUrl: undefined,
    });
  });
});

describe("the server's Node flags", () => {
  it("are the ones `pnpm start` runs the server with", async () => {
    const { readFileSync } = await import("node:fs");
    const { SERVER_NODE_FLAGS } = await import("../src/node-flags.js");
    const rootPackage = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      scripts: { start: string };
    };
    expect(rootPackage.scripts.start).toContain(`node ${SERVER_NODE_FLAGS.join(" ")} apps/server/dist/src/main.js`);
  });
});
