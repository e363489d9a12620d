/** Talking to a Cellar server the benchmarks started: JSON calls, sign-in, a small upload. */
import type { RunningProcess } from "./processes.js";

export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `fetch`, sent once more on a new connection when the first attempt meets a keep-alive
 * connection the server is closing. The server closes one idle for 5 s; after a long quiet
 * spell (a benchmark filling its database) a request may go out on it just as it closes,
 * and fail before the server read it (the other side closed, or reset the connection as
 * the request reached a socket it had closed), so sending it again is safe.
 */
export async function fetchOnFreshConnection(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== "UND_ERR_SOCKET" && code !== "ECONNRESET") throw error;
    return await fetch(url, init);
  }
}

export async function json<T>(
  url: string,
  init: RequestInit & { jwt?: string } = {},
): Promise<{ status: number; body: T }> {
  const headers = new Headers(init.headers);
  if (init.jwt !== undefined) headers.set("authorization", `Bearer ${init.jwt}`);
  const response = await fetchOnFreshConnection(url, { ...init, headers });
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
