import { type Cellar, createInMemoryCellar, type InMemoryCellarOptions } from "../../src/index.js";
import { createFakeClock } from "../../src/testing/index.js";

/** An in-memory Cellar on a fake clock, with a small upload limit so limits are cheap to hit. */
export function aCellar(options: InMemoryCellarOptions = {}) {
  const clock = createFakeClock();
  const cellar = createInMemoryCellar({
    clock,
    ...options,
    config: { maxUploadBytes: 1024 * 1024, ...options.config },
  });
  return { cellar, clock };
}

export async function* bytesOf(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? Buffer.from(part) : part;
}

/** The token from the last sign-in mail the in-memory mailer got. */
export function lastMailedToken(cellar: ReturnType<typeof aCellar>["cellar"]): string {
  const mail = cellar.deps.mailer.sent.at(-1);
  if (mail === undefined) throw new Error("No mail was sent.");
  const token = new URL(mail.link).searchParams.get("token");
  if (token === null) throw new Error("The mail's link has no token.");
  return token;
}

/** Signs `email` in through the whole magic-link flow. */
export async function signIn(cellar: ReturnType<typeof aCellar>["cellar"], email: string, clientAddress = "192.0.2.1") {
  await cellar.auth.requestSignInLink({ email });
  return cellar.auth.verifySignInLink({ token: lastMailedToken(cellar), clientAddress });
}

export async function uploadCsv(
  cellar: Cellar,
  ownerId: string,
  options: { name?: string; visibility?: string; clientFileName?: string; content?: string } = {},
) {
  return cellar.files.upload({
    ownerId,
    clientFileName: options.clientFileName ?? "data.csv",
    content: bytesOf(options.content ?? "a,b\n1,2\n"),
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.visibility === undefined ? {} : { visibility: options.visibility }),
  });
}
