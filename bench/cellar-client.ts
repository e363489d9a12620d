/** Talking to a Cellar server the benchmarks started: JSON calls, sign-in, a small upload. */
import type { RunningProcess } from "./processes.js";

export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function json<T>(
  url: string,
  init: RequestInit & { jwt?: string } = {},
): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.jwt !== undefined) headers.set("authorization", `Bearer ${init.jwt}`);
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers });
  } catch (error) {
    // The server closes a keep-alive connection idle for 5 s. After a long quiet spell (a
    // benchmark filling its database), a request may go out on one just as it is closed,
    // and fail before the server read it: sending it again on a new connection is safe.
    if ((error as { cause?: { code?: string } }).cause?.code !== "UND_ERR_SOCKET") throw error;
    response = await fetch(url, { ...init, headers });
  }
  return { status: response.status, body: (await response.json()) as T };
}

/** A complete sign-in through the API, reading the link from the dev-mode log line. */
export async function signIn(cellar: RunningProcess, email: string): Promise<{ jwt: string; user: { id: string } }> {
  await json(`${cellar.url}/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email }),
  });
  let link = cellar.takeLink(email);
  for (let i = 0; i < 500 && link === undefined; i++) {
    await settle(2);
    link = cellar.takeLink(email);
  }
  const token = new URL(link ?? "http://x/").searchParams.get("token");
  const verified = await json<{ jwt: string; user: { id: string } }>(`${cellar.url}/v1/sessions/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  if (verified.status !== 200) throw new Error(`sign-in failed: ${verified.status}`);
  return verified.body;
}

/** Uploads a two-line CSV and returns its id: the file the read benchmarks ask for. */
export async function uploadSmallCsv(cellar: RunningProcess, jwt: string): Promise<{ id: string }> {
  const form = new FormData();
  form.append("file", new Blob(["a,b\n1,2\n"]), "small.csv");
  const uploaded = await json<{ id: string }>(`${cellar.url}/v1/files`, { method: "POST", body: form, jwt });
  if (uploaded.status !== 201) throw new Error(`upload failed: ${uploaded.status}`);
  return uploaded.body;
}
