export { MoveError, type MoveReport, moveEmbeddedStorage } from "./move-storage.js";
export { SERVER_NODE_FLAGS } from "./node-flags.js";
export {
  buildHttpApp,
  DEFAULT_HTTP_TIMEOUTS,
  type HttpTimeouts,
  type RunningServer,
  SHUTDOWN_GRACE_MS,
  startServer,
} from "./server.js";
export { readSettings, type Settings, SettingsError } from "./settings.js";
export { openServerStorage, type ServerStorage } from "./storage.js";
