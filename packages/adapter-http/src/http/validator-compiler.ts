import type { FieldProblem } from "@cellar/core";
import { Ajv, type AnySchema, type ValidateFunction } from "ajv";
import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import { WHOLE_NUMBER_PATTERN } from "../files/file.schemas.js";

export const MULTIPART_FORM_DATA = "multipart/form-data";
export const OCTET_STREAM = "application/octet-stream";

/**
 * The validator of the /v1 routes: every error reported (so a client fixes all its
 * fields at once), nothing coerced (a number where a string belongs is a 400, not a
 * silent conversion) and nothing removed (an unknown field is a 400, not ignored).
 * Query strings need no coercion: their schemas check the text and handlers convert it.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const ajv = new Ajv({
    allErrors: true,
    removeAdditional: false,
    coerceTypes: false,
    useDefaults: false,
    strict: true,
    // A cell is one of several types: `type: ["string", "number", "boolean", "null"]`.
    allowUnionTypes: true,
    // Addresses are checked (after trimming) by core, which owns the rule; the format
    // is there for the OpenAPI document.
    formats: { email: true },
  });
  return ({ schema, httpPart, contentType }) => {
    // Upload forms and raw content are streamed and checked by their handler; their
    // schema only documents them.
    if (httpPart === "body" && (contentType === MULTIPART_FORM_DATA || contentType === OCTET_STREAM)) {
      return () => true;
    }
    // Compiled when a request first needs it, not when the app starts: most routes see no
    // request in a server's first minutes, and compiling every validator at start was
    // about 2 MiB of its idle memory (`idle_rss_mib`, docs/performance.md). Fastify reads
    // `errors` off the function it was given, so they are handed on.
    let validate: ValidateFunction | undefined;
    const validateLazily = (data: unknown): boolean => {
      validate ??= ajv.compile(schema as AnySchema);
      const valid = validate(data);
      validateLazily.errors = validate.errors;
      return valid;
    };
    validateLazily.errors = null as ValidateFunction["errors"];
    return validateLazily;
  };
}

/** At most this many problems are reported: a body of a million unknown keys gets a short answer. */
const MAX_DETAILS = 20;

/**
 * Turns a schema's complaints into `details` entries named as the client named the
 * fields (`name`, `per_page`), in words rather than schema keywords.
 */
export function validationDetails(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): FieldProblem[] {
  // De-duplicated through a Set, stopping at MAX_DETAILS. (Security fix: the former
  // filter/findIndex pass was quadratic in the number of errors, so one 1 MiB body of
  // ~100,000 distinct unknown keys, even on the anonymous POST /sessions, held the event
  // loop for many seconds. The answer is unchanged: the first 20 distinct problems.)
  const seen = new Set<string>();
  const unique: FieldProblem[] = [];
  for (const error of errors) {
    const detail = describeProblem(error, context ?? "request");
    const key = `${detail.field}\u0000${detail.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    unique.push(detail);
    if (unique.length === MAX_DETAILS) break;
  }
  return unique;
}

function describeProblem(error: FastifySchemaValidationError, context: string): FieldProblem {
  const path = error.instancePath.split("/").filter(Boolean).join(".");
  const child = (name: unknown) => [path, String(name)].filter(Boolean).join(".");
  switch (error.keyword) {
    case "required":
      return { field: child(error.params.missingProperty), message: "is required" };
    case "additionalProperties":
      return { field: child(error.params.additionalProperty), message: "is not a known field" };
    case "type":
      if (path === "" && context === "body") return { field: "body", message: "must be a JSON object" };
      return { field: path || context, message: `must be ${articled(error.params.type)}` };
    case "pattern":
      if (error.params.pattern === WHOLE_NUMBER_PATTERN) {
        // Its length has a rule (and a message) of its own: `maxLength`.
        return { field: path, message: "must be a whole number of at least 1, without leading zeros" };
      }
      return { field: path || context, message: "has the wrong format" };
    case "enum": {
      const allowed = Array.isArray(error.params.allowedValues) ? error.params.allowedValues : [];
      return { field: path || context, message: `must be one of ${allowed.map((v) => `'${String(v)}'`).join(", ")}` };
    }
    case "minProperties":
      return { field: path || context, message: "must have at least one field" };
    case "maxLength":
      return { field: path || context, message: `must be at most ${String(error.params.limit)} characters` };
    case "minLength":
      return { field: path || context, message: "must not be empty" };
    default:
      return { field: path || context, message: error.message ?? "is invalid" };
  }
}

function articled(type: unknown): string {
  const name = String(type);
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
