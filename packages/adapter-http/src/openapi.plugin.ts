import fastifySwagger from "@fastify/swagger";
import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { BEARER_SCHEME } from "./shared/openapi.js";

export interface CellarOpenApiOptions {
  /** Where clients reach the server (`PUBLIC_URL`): the document's server is this plus `apiPrefix`. */
  readonly publicUrl: string;
  /** Where `cellarApi` is registered. Default `/v1`. */
  readonly apiPrefix?: string;
  /** Where the document is served. Default `/openapi.json`. */
  readonly documentPath?: string;
}

const DESCRIPTION = `Cellar hosts spreadsheet files (.csv, .xlsx, .sheet): upload, list, rename, share (with people by email address, or with everyone signed in), trash, restore and download them.

**Roles.** A file's owner may give a person a role on it: \`viewer\`, \`commenter\` or \`editor\`, each allowing what the one before allows and more; anyone signed in is a viewer of a public, active file. Every file object carries the caller's \`role\`. A caller who may see a file but whose role does not allow what they ask gets 403 \`forbidden\`; one who may not see it gets 404, exactly as for a file that does not exist.

**Authentication.** Every operation except \`POST /sessions\` and \`POST /sessions/verify\` needs \`Authorization: Bearer <jwt>\`. Ask for a sign-in link with \`POST /sessions\`, then exchange the link's token for a JWT with \`POST /sessions/verify\`. \`DELETE /sessions\` revokes it.

**Errors** are \`{"error":{"code":"…","message":"…"}}\`; \`validation_error\` may add \`details\`, a list of \`{field, message}\`. The code is stable; the message is for people.

**Rate limits.** Every response carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds). Over the limit: 429 \`rate_limited\` with \`Retry-After\`. The budget is per account, or per client address for requests without a valid token.

**Pagination.** \`GET /files\` and the lists under a file (\`/activity\`, \`/versions\`, \`/comments\`, \`/find\`) take \`page\` (default 1) and \`per_page\` (default 25, at most 100) and answer with \`X-Total-Count\`, \`X-Total-Pages\`, \`X-Page\`, \`X-Per-Page\` and an RFC 8288 \`Link\` header.

**Requests.** JSON bodies are at most 1 MiB, with \`Content-Type: application/json\`; unknown fields are refused. Every response carries \`X-Request-Id\`: the client's own when it sends a sane one (\`[A-Za-z0-9._:-]{1,128}\`).`;

/** Headers every /v1 response carries, described once and referenced from each response. */
const COMMON_RESPONSE_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per window.", schema: { type: "integer", minimum: 1 } },
  "X-RateLimit-Remaining": {
    description: "Requests left in the current window.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Reset": {
    description: "When the current window ends, in Unix seconds.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-Request-Id": {
    description: "The request's id, as in the server's log: the client's `X-Request-Id` when it sent a sane one.",
    schema: { type: "string" },
  },
} as const;

const TAGS = [
  { name: "Files", description: "Spreadsheet files: upload, list, read, rename, share, trash, restore, download." },
  {
    name: "People",
    description: "Who else holds a role on a file (viewer, commenter, editor), given by its owner by email address.",
  },
  { name: "Activity", description: "What happened to a file, who did it and when." },
  {
    name: "Comments",
    description: "What people say about a file and its cells, in threads; `@address` mentions tell people by mail.",
  },
  { name: "Versions", description: "Every version of a file's content: listing, keeping and restoring them." },
  { name: "Users", description: "The signed-in user's profile." },
  {
    name: "Sessions",
    description:
      "Passwordless sign-in by emailed link, where you are signed in, and signing out (one device or this one).",
  },
  {
    name: "Access tokens",
    description:
      "Tokens with a scope for scripts and services that cannot follow a mail link; made and deleted from a session.",
  },
  {
    name: "Webhooks",
    description:
      "Signed POSTs of your files' events to another service, retried until delivered; made, changed and deleted from a session. Served by servers that deliver webhooks.",
  },
];

const openApiPlugin: FastifyPluginAsync<CellarOpenApiOptions> = async (app, options) => {
  const apiPrefix = options.apiPrefix ?? "/v1";
  const serverUrl = `${options.publicUrl.replace(/\/+$/, "")}${apiPrefix}`;
  await app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Cellar",
        version: "1.0.0",
        description: DESCRIPTION,
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [{ url: serverUrl, description: "This Cellar server's API, version 1." }],
      tags: TAGS,
      components: {
        securitySchemes: {
          [BEARER_SCHEME]: {
            type: "http",
            scheme: "bearer",
            bearerFormat: "JWT",
            description:
              "A session: the `jwt` returned by `POST /sessions/verify`. Or an access token (`cellar_pat_…`, from `POST /tokens`): `read` allows GET and HEAD, `write` every call but managing tokens, sessions and webhooks; anything else is 403 `insufficient_scope`.",
          },
        },
      },
    },
    hideUntagged: true,
    // Paths are written relative to the server URL, which already ends in the prefix.
    stripBasePath: false,
    transform: ({ schema, url }) => ({
      schema,
      url: url.startsWith(`${apiPrefix}/`) ? url.slice(apiPrefix.length) : url,
    }),
    transformObject: (documentObject) =>
      "openapiObject" in documentObject
        ? withCommonResponseHeaders(documentObject.openapiObject)
        : documentObject.swaggerObject,
    refResolver: {
      // Shared schemas keep their own names (File, User, Error) in components.
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === "string" ? json.$id : `def-${index}`,
    },
  });

  app.get(options.documentPath ?? "/openapi.json", { schema: { hide: true } }, async (_request, reply) => {
    reply.header("cache-control", "no-cache");
    return app.swagger();
  });
};

/**
 * The OpenAPI 3.1 document of the /v1 API, served at `GET /openapi.json`. Wrapped in
 * fastify-plugin, and registered before `cellarApi`, so that it sees every API route.
 * Routes without tags (health checks, the sign-in page) are left out.
 */
export const cellarOpenApi = fastifyPlugin(openApiPlugin, { name: "cellar-openapi", fastify: "5.x" });

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Adds the headers of every response to each response of each operation, by reference. */
function withCommonResponseHeaders<T extends object>(document: T): T {
  const root = document as Record<string, unknown>;
  const components = asRecord(root.components) ?? {};
  components.headers = { ...asRecord(components.headers), ...COMMON_RESPONSE_HEADERS };
  root.components = components;
  const references = Object.fromEntries(
    Object.keys(COMMON_RESPONSE_HEADERS).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  for (const pathItem of Object.values(asRecord(root.paths) ?? {})) {
    for (const operation of Object.values(asRecord(pathItem) ?? {})) {
      for (const response of Object.values(asRecord(asRecord(operation)?.responses) ?? {})) {
        const responseObject = asRecord(response);
        if (responseObject === undefined) continue;
        responseObject.headers = { ...asRecord(responseObject.headers), ...references };
      }
    }
  }
  return document;
}
