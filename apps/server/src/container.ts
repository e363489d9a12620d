import "reflect-metadata";
import { join } from "node:path";
import { createWebhookTransport } from "@cellar/adapter-http";
import { createOutboxMailer, createSmtpMailer } from "@cellar/adapter-mail";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { type BlobStorage, createCellar, type FormulaEngine } from "@cellar/core";
import type { Logger } from "pino";
import { container, type DependencyContainer, instanceCachingFactory } from "tsyringe";
import type { Settings } from "./settings.js";
import { type ServerMetadataStorage, Tokens } from "./tokens.js";

/**
 * The composition root: the one place that knows every package. The container chooses
 * the adapters from the settings — SQLite or PostgreSQL for metadata, the disk or a
 * bucket for bytes, SMTP or the dev outbox for mail — and builds each on first use, once.
 * An engine's adapter is loaded only when chosen: the AWS SDK and pg weigh megabytes a
 * server that does not use them never loads. Core knows nothing of the container.
 */
export function createServerContainer(input: { settings: Settings; logger: Logger }): DependencyContainer {
  const scope = container.createChildContainer();
  scope.register(Tokens.Settings, { useValue: input.settings });
  scope.register(Tokens.Logger, { useValue: input.logger });
  // One formula engine for reading and editing, loaded when a workbook first needs it.
  let engine: Promise<FormulaEngine> | undefined;
  const formulaEngine = () => {
    engine ??= import("@cellar/adapter-formulas").then(({ createFormulaEngine }) => createFormulaEngine());
    return engine;
  };

  scope.register(Tokens.MetadataStorage, {
    useFactory: instanceCachingFactory(async (c): Promise<ServerMetadataStorage> => {
      const settings = c.resolve(Tokens.Settings);
      if (settings.databaseUrl === undefined) {
        const { openSqliteStorage } = await import("@cellar/adapter-sqlite");
        return openSqliteStorage({ dataDir: settings.dataDir });
      }
      const { openPostgresStorage } = await import("@cellar/adapter-postgres");
      const logger = c.resolve(Tokens.Logger);
      return openPostgresStorage({
        url: settings.databaseUrl,
        poolMax: settings.databasePoolMax,
        ...(settings.databaseListenUrl === undefined ? {} : { listenUrl: settings.databaseListenUrl }),
        // Failures it recovers from by itself (a reconnect, a lost heartbeat): worth a line, not an error.
        onChangeFeedError: (error) => logger.warn({ err: error }, "the change feed recovered from a failure"),
      });
    }),
  });

  scope.register(Tokens.BlobStorage, {
    useFactory: instanceCachingFactory(async (c): Promise<BlobStorage> => {
      const { dataDir, blobStore } = c.resolve(Tokens.Settings);
      if (blobStore.kind === "fs") {
        const { openFsBlobStore } = await import("@cellar/adapter-fs-storage");
        return openFsBlobStore({ dataDir });
      }
      const { openS3BlobStore } = await import("@cellar/adapter-s3-storage");
      return openS3BlobStore({
        bucket: blobStore.bucket,
        prefix: blobStore.prefix,
        forcePathStyle: blobStore.forcePathStyle,
        ...(blobStore.endpoint === undefined ? {} : { endpoint: blobStore.endpoint }),
      });
    }),
  });

  scope.register(Tokens.Mailer, {
    useFactory: instanceCachingFactory((c) => {
      const settings = c.resolve(Tokens.Settings);
      // With SMTP_URL set, mail goes only to the SMTP server: never to the outbox or the log.
      if (settings.smtpUrl !== undefined) {
        return createSmtpMailer({ smtpUrl: settings.smtpUrl, from: settings.mailFrom });
      }
      const logger = c.resolve(Tokens.Logger);
      return createOutboxMailer({
        dir: join(settings.dataDir, "outbox"),
        from: settings.mailFrom,
        log: (message, fields) => logger.warn(fields, message),
        // A sign-in link on a plain line of its own for whoever started the server, beside the JSON log.
        announce: (text) => process.stderr.write(text),
      });
    }),
  });

  scope.register(Tokens.Cellar, {
    useFactory: instanceCachingFactory(async (c) => {
      const settings = c.resolve(Tokens.Settings);
      const metadata = await c.resolve(Tokens.MetadataStorage);
      const blobStorage = await c.resolve(Tokens.BlobStorage);
      const { blobs } = blobStorage;
      return createCellar({
        files: metadata.files,
        sheetIndexes: metadata.sheetIndexes,
        users: metadata.users,
        sessions: metadata.sessions,
        accessTokens: metadata.accessTokens,
        magicLinks: metadata.magicLinks,
        permissions: metadata.permissions,
        activity: metadata.activity,
        versions: metadata.versions,
        streamLeases: metadata.streamLeases,
        comments: metadata.comments,
        webhooks: metadata.webhooks,
        // Every attempt checks its destination after DNS (decisions §10).
        webhookTransport: createWebhookTransport({ allowPrivate: settings.webhookAllowPrivate }),
        rateLimits: metadata.rateLimits,
        blobs,
        // Reaches every server on this storage, whatever process or machine it runs in.
        changeFeed: metadata.changeFeed,
        isStorageUnavailable: (error) => metadata.isUnavailable(error) || blobStorage.isUnavailable(error),
        // The formula engine is loaded with the first workbook read through or edited (decisions §8).
        spreadsheets: createSpreadsheetReader({ loadEngine: formulaEngine }),
        formulaEngine,
        spreadsheetWriter: createSpreadsheetWriter(),
        mailer: c.resolve(Tokens.Mailer),
        config: {
          publicUrl: c.resolve(Tokens.PublicUrl),
          jwtSecret: c.resolve(Tokens.JwtSecret),
          jwtTtlSeconds: settings.jwtTtlSeconds,
          magicLinkTtlSeconds: settings.magicLinkTtlSeconds,
          maxUploadBytes: settings.maxUploadBytes,
          rateLimitMax: settings.rateLimitMax,
          rateLimitWindowSeconds: settings.rateLimitWindowSeconds,
          trashRetentionDays: settings.trashRetentionDays,
          inviteRateMax: settings.inviteRateMax,
          webhookRetryBaseSeconds: settings.webhookRetryBaseSeconds,
          versionRetentionDays: settings.versionRetentionDays,
          versionRetentionCount: settings.versionRetentionCount,
        },
      });
    }),
  });
  return scope;
}
