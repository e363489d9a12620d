/** One event of a Server-Sent Events stream: its id when it has one, its name, its data parsed. */
export interface StreamEvent {
  readonly id?: string;
  readonly event: string;
  readonly data: unknown;
}

/**
 * Opens `GET …/events` as a browser's fetch would, and reads its events one at a time
 * (comment lines skipped, and `presence` events unless asked for). `close` aborts the request.
 */
export async function openEventStream(
  url: string,
  jwt: string,
  lastEventId?: string,
  options: { presence?: boolean } = {},
) {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: {
      authorization: `Bearer ${jwt}`,
      ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }),
    },
    signal: controller.signal,
  });
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  // One read at a time, kept across calls: a read left waiting by a timeout still brings
  // its chunk to the next call.
  let reading: Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }> | undefined;
  return {
    response,
    /** The next event, or "ended" when the stream ended; throws when none comes within `timeoutMs`. */
    async next(timeoutMs = 5000): Promise<StreamEvent | "ended"> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (!line.startsWith(":")) fields.set(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2));
          }
          const event = fields.get("event");
          if (event === undefined || (event === "presence" && options.presence !== true)) continue;
          const id = fields.get("id");
          return { ...(id === undefined ? {} : { id }), event, data: JSON.parse(fields.get("data") ?? "null") };
        }
        if (reader === undefined) return "ended";
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        reading ??= reader.read().catch(() => ({ done: true as const, value: undefined }));
        const chunk = await Promise.race([
          reading,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), left);
          }),
        ]).finally(() => clearTimeout(timer));
        reading = undefined;
        if (chunk.done) return "ended";
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    close: () => controller.abort(),
  };
}
