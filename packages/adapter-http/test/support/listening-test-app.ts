/**
 * The test app (`buildTestApp`) as a process of its own, listening on a free port of
 * 127.0.0.1: for tests whose client must not share the server's event loop, as no real
 * client does. Signs a user in and uploads a small CSV, then writes one JSON line:
 * `{"url", "authorization", "fileId"}`. Its one argument is `maxUploadBytes`.
 *
 * Run as `node --conditions=@cellar/source --import tsx listening-test-app.ts 1048576`.
 */
import { buildTestApp } from "./test-app.js";

const maxUploadBytes = Number(process.argv[2] ?? 64 * 1024);
const t = await buildTestApp({ config: { maxUploadBytes } });
const url = await t.app.listen({ host: "127.0.0.1", port: 0 });
const alice = await t.signIn("alice@example.com");
const file = await t.uploadCsv(alice.headers);
process.stdout.write(`${JSON.stringify({ url, authorization: alice.headers.authorization, fileId: file.id })}\n`);
