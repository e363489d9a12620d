import { StorageUnreachableError } from "@cellar/core";
import { createLogger } from "./logger.js";
import { startServer } from "./server.js";
import { readSettings, SettingsError } from "./settings.js";

let logger = createLogger();

try {
  const settings = readSettings(process.env);
  logger = createLogger({ level: settings.logLevel });
  const server = await startServer({ settings, logger });
  const stop = (signal: NodeJS.Signals) => {
    server.app.log.info({ signal }, "shutting down: finishing in-flight requests");
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
} catch (error) {
  if (error instanceof SettingsError || error instanceof StorageUnreachableError) {
    // One clear line naming the setting or the engine, and nothing else.
    process.stderr.write(`cellar: ${error.message}\n`);
  } else {
    logger.fatal({ err: error }, "Cellar could not start");
  }
  process.exit(1);
}
