import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Fastify's own response serializers (fast-json-stringify, with the schemas added by
 * `addSchema`), each compiled when a response first needs it instead of when the app
 * starts. Fastify compiles one per route and status: a route's success and each error
 * status it documents, most of which an idle server never answers. Compiled at start,
 * they were about 16 MiB of the server's idle memory (`idle_rss_mib` 120 → 104 MiB,
 * docs/performance.md); the first response of each kind pays its compilation once (a
 * millisecond or so). What is sent is unchanged.
 */
const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((document: unknown) => string) | undefined;
    return (document) => {
      serialize ??= compile(route);
      return serialize(document);
    };
  };
};

/** Fastify server options for the above: `Fastify({ ...lazySerializerOptions, … })`. */
export const lazySerializerOptions = {
  schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
} as const;
