/**
 * `fetch` that sends a request again when the server answers 429 or 503 with a
 * `Retry-After` it can wait for, at most `max` times. Only requests without a body or
 * with a JSON one are retried.
 */
export function retryingFetch(
  fetch: typeof globalThis.fetch,
  options: { max?: number; maxWaitSeconds?: number } = {},
): typeof globalThis.fetch {
  const max = options.max ?? 2;
  const maxWait = options.maxWaitSeconds ?? 30;
  return async (input, init) => {
    const request = new Request(input, init);
    // No body, or a JSON one (small, held in memory): a clone can be sent again. Any
    // other body may be a stream that a clone would buffer whole.
    const replayable =
      request.body === null || (request.headers.get("content-type") ?? "").startsWith("application/json");
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(replayable ? request.clone() : request);
      // Only a wait the server named, in whole seconds: without one (a 503 mail_unavailable,
      // say) a retry would come at once and count against the same limits again.
      const retryAfter = response.headers.get("retry-after") ?? "";
      const wait = Number(retryAfter);
      const retry =
        (response.status === 429 || response.status === 503) &&
        replayable &&
        attempt < max &&
        /^\d+$/.test(retryAfter) &&
        wait <= maxWait;
      if (!retry) return response;
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
}
