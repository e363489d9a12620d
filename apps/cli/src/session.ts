import { type CellarClient, createCellarClient } from "@cellar/client";
import { type CliConfig, readConfig } from "./config.js";
import { CliError, EXIT } from "./exit-codes.js";
import { unreachable } from "./failure.js";
import type { CliIo } from "./io.js";

/** The server a run talks to when nothing names one: the standalone server's default. */
export const DEFAULT_SERVER = "http://127.0.0.1:3000";

/** The server and token of a run, and a client for them. */
export interface Session {
  readonly server: string;
  readonly token: string | undefined;
  readonly config: CliConfig;
  readonly client: CellarClient;
}

/** `https://files.example.org/` → `https://files.example.org`; anything but an http(s) URL is a usage error. */
export function serverUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${value} is not a server URL (such as ${DEFAULT_SERVER}).`, EXIT.usage);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new CliError(`${value} is not an http(s) URL.`, EXIT.usage);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * The server: `--server`, else `CELLAR_SERVER`, else the one signed in to, else the
 * default. The token: `CELLAR_TOKEN`, else the saved one — and the saved one only for
 * the server it came from, so it is never sent to another.
 */
export async function openSession(io: CliIo, serverOption: string | undefined): Promise<Session> {
  const config = await readConfig(io.env);
  const server = serverUrl(serverOption ?? io.env.CELLAR_SERVER ?? config.server ?? DEFAULT_SERVER);
  const envToken = io.env.CELLAR_TOKEN?.trim();
  const token = envToken
    ? checkedToken(envToken, "CELLAR_TOKEN")
    : config.server === server && config.token !== undefined
      ? checkedToken(config.token, "The saved session token")
      : undefined;
  return { server, token, config, client: clientFor(io, server, token) };
}

/**
 * A token as Cellar issues it: a session's JWT (three base64url parts) or an access token
 * (`cellar_pat_…`, from `cellar token create`). Anything else is refused before it goes
 * into a header, and never printed (a header error would quote it).
 */
export function checkedToken(token: string, what: string): string {
  const jwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
  const accessToken = /^cellar_pat_[A-Za-z0-9_-]+$/;
  if (!jwt.test(token) && !accessToken.test(token)) {
    throw new CliError(
      `${what} is neither a session nor an access token: sign in with \`cellar login\`.`,
      EXIT.signedOut,
    );
  }
  return token;
}

/** A client for `server`, whose every request stops on Ctrl-C (the run's signal). */
export function clientFor(io: CliIo, server: string, token: string | undefined): CellarClient {
  const fetch = io.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return createCellarClient({
    baseUrl: server,
    ...(token === undefined ? {} : { token }),
    fetch: async (input, init) => {
      // The client passes some requests as a Request whose signal is its own (an event
      // stream's, to end one connection): kept beside the run's.
      const own = init?.signal ?? (input instanceof Request ? input.signal : undefined);
      try {
        return await fetch(input, { ...init, signal: own ? AbortSignal.any([own, io.signal]) : io.signal });
      } catch (error) {
        throw (io.signal.aborted ? undefined : unreachable(server, error)) ?? error;
      }
    },
  });
}

/**
 * Stops with exit status 4 when there is no token to send — once the server has answered,
 * so that a server that does not exist is reported as such (exit status 1), not as a
 * missing sign-in.
 */
export async function requireToken(session: Session): Promise<string> {
  if (session.token === undefined) {
    // Any answer will do: it says the server is there.
    await session.client.api.GET("/users/me");
    throw new CliError(`Not signed in to ${session.server}: run \`cellar login\`.`, EXIT.signedOut);
  }
  return session.token;
}
