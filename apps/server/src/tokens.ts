import type { Cellar, Mailer } from "@cellar/core";
import type { Logger } from "pino";
import type { InjectionToken } from "tsyringe";
import type { Settings } from "./settings.js";
import type { Storage } from "./storage.js";

/** Everything the container knows, by name. Only the composition root uses these. */
export const Tokens = {
  Settings: Symbol("Settings") as InjectionToken<Settings>,
  PublicUrl: Symbol("PublicUrl") as InjectionToken<string>,
  Logger: Symbol("Logger") as InjectionToken<Logger>,
  Storage: Symbol("Storage") as InjectionToken<Storage>,
  /** `JWT_SECRET`, or the key the storage keeps for every instance on it. */
  JwtSecret: Symbol("JwtSecret") as InjectionToken<string>,
  Mailer: Symbol("Mailer") as InjectionToken<Mailer & { close(): Promise<void> }>,
  Cellar: Symbol("Cellar") as InjectionToken<Cellar>,
} as const;
