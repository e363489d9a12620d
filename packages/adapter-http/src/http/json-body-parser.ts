import { CellarError, ErrorCode } from "@cellar/core";
import type { FastifyInstance } from "fastify";

/** JSON bodies larger than this are refused with 413. */
export const JSON_BODY_LIMIT_BYTES = 1_048_576;

/** Keys that could reach an object's prototype if a body were ever merged into one. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Replaces Fastify's JSON parser inside the API's context, for two reasons: an empty
 * body (some clients send `Content-Type: application/json` with every DELETE) is no
 * body at all rather than an error, so routes that need one say so through validation;
 * and a prototype-polluting key is named in a `validation_error` like any unknown field.
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    "application/json",
    { parseAs: "string", bodyLimit: JSON_BODY_LIMIT_BYTES },
    (_request, body: string | Buffer, done) => {
      const text = typeof body === "string" ? body : body.toString("utf8");
      if (text.trim() === "") {
        done(null, undefined);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        done(new CellarError(ErrorCode.validation_error, "The request body is not valid JSON."), undefined);
        return;
      }
      const forbidden = findForbiddenKey(parsed);
      if (forbidden !== undefined) {
        done(
          new CellarError(ErrorCode.validation_error, `${forbidden}: is not a known field`, {
            details: [{ field: forbidden, message: "is not a known field" }],
          }),
          undefined,
        );
        return;
      }
      done(null, parsed);
    },
  );
}

/** Walks the parsed body without recursion: a deeply nested body must not exhaust the stack. */
function findForbiddenKey(root: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value: root, path: "" }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value, path } = next;
    if (typeof value !== "object" || value === null) continue;
    for (const [key, child] of Object.entries(value)) {
      const childPath = path === "" ? key : `${path}.${key}`;
      if (FORBIDDEN_KEYS.has(key)) return childPath;
      pending.push({ value: child, path: childPath });
    }
  }
  return undefined;
}
