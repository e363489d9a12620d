import "reflect-metadata";
import { join } from "node:path";
import { createOutboxMailer, createSmtpMailer } from "@cellar/adapter-mail";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import { createCellar } from "@cellar/core";
import type { Logger } from "pino";
import { container, type DependencyContainer, instanceCachingFactory } from "tsyringe";
import type { Settings } from "./settings.js";
import type { Storage } from "./storage.js";
import { Tokens } from "./tokens.js";

/**
 * The composition root: the one place that knows every package. Storage is opened
 * before (it is asynchronous) and handed in, with the JWT key; everything else is built on first use,
 * once, by factories. Core knows nothing of the container.
 */
export function createServerContainer(input: {
  settings: Settings;
  publicUrl: string;
  logger: Logger;
  storage: Storage;
  jwtSecret: string;
}): DependencyContainer {
  const scope = container.createChildContainer();
  scope.register(Tokens.Settings, { useValue: input.settings });
  scope.register(Tokens.PublicUrl, { useValue: input.publicUrl });
  scope.register(Tokens.Logger, { useValue: input.logger });
  scope.register(Tokens.Storage, { useValue: input.storage });
  scope.register(Tokens.JwtSecret, { useValue: input.jwtSecret });

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
      });
    }),
  });

  scope.register(Tokens.Cellar, {
    useFactory: instanceCachingFactory((c) => {
      const settings = c.resolve(Tokens.Settings);
      const storage = c.resolve(Tokens.Storage);
      return createCellar({
        files: storage.files,
        users: storage.users,
        sessions: storage.sessions,
        magicLinks: storage.magicLinks,
        blobs: storage.blobs,
        rateLimits: storage.rateLimits,
        spreadsheets: createSpreadsheetReader(),
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
        },
      });
    }),
  });
  return scope;
}
