/** The name of the bearer-token security scheme in the OpenAPI document. */
export const BEARER_SCHEME = "bearerAuth";

/** `security` of a route that needs `Authorization: Bearer <jwt>`. */
export const BEARER_SECURITY = [{ [BEARER_SCHEME]: [] }];

/** `security` of a route anyone may call. */
export const NO_SECURITY = [];
