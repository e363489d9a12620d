import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { CliError } from "./exit-codes.js";

/** What `cellar login` keeps between runs. */
export interface CliConfig {
  /** The server signed in to, without `/v1`. */
  readonly server?: string;
  /** The session's JWT: sent to `server` only. */
  readonly token?: string;
  readonly email?: string;
}

/** `$XDG_CONFIG_HOME/cellar/config.json`, or `~/.config/cellar/config.json`. */
export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : join(env.HOME ?? homedir(), ".config");
  return join(base, "cellar", "config.json");
}

// Read and written at once, through node:fs taken as Node's own module: an ES import of
// node:fs or node:fs/promises loads their every lazy part (the promise API, readline, the
// file watchers, streams), 6–8 ms of every command's start, for a file of a few hundred bytes.

export async function readConfig(env: NodeJS.ProcessEnv): Promise<CliConfig> {
  const path = configPath(env);
  let text: string;
  try {
    text = process.getBuiltinModule("node:fs").readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new CliError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    const { server, token, email } = parsed as Record<string, unknown>;
    return {
      ...(typeof server === "string" ? { server } : {}),
      ...(typeof token === "string" ? { token } : {}),
      ...(typeof email === "string" ? { email } : {}),
    };
  } catch {
    throw new CliError(`${path} is not a cellar configuration (JSON): remove it and run \`cellar login\`.`);
  }
}

/**
 * Writes the configuration readable by its owner only (0600, in a 0700 folder): it holds
 * a session token. Written beside and renamed over, so a crash never leaves half a file.
 */
export async function writeConfig(env: NodeJS.ProcessEnv, config: CliConfig): Promise<void> {
  const path = configPath(env);
  const { chmodSync, mkdirSync, renameSync, writeFileSync } = process.getBuiltinModule("node:fs");
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // A folder made before (by hand, or by another tool) is tightened too.
  chmodSync(dirname(path), 0o700);
  const staged = `${path}.${process.pid}.tmp`;
  writeFileSync(staged, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFile is masked by the umask and ignored for an existing file.
  chmodSync(staged, 0o600);
  renameSync(staged, path);
}
