/**
 * The Node flags the standalone server runs with (`pnpm start` passes them; so do the
 * benchmarks, which measure the server as it is run).
 *
 * `--max-semi-space-size=4` caps V8's young generation at 4 MiB per semi-space instead of
 * 16. Start-up (schemas compiled, modules loaded) otherwise grows it to the maximum, and
 * those pages stay resident: about 10 MiB of idle memory for nothing. Requests allocate
 * little that lives long, so the smaller young generation is collected as cheaply, and
 * fits the CPU caches better.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=4"] as const;
