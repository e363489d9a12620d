/**
 * Preloaded (`--expose-gc --import`) into a server process by native-finalizers.test.ts:
 * keeps asking V8 for full garbage collections that run as tasks of their own, from the
 * event loop, outside any JavaScript turn — as V8's idle-time and memory-pressure
 * collections do. Native objects collected there (better-sqlite3's prepared statements
 * among them) are finalised with no JavaScript on the stack, which is where a native module
 * that still expects an environment aborts the whole process.
 */

type AsyncGc = (options: { type: "major"; execution: "async" }) => Promise<void>;

const gc = (globalThis as { gc?: AsyncGc }).gc;
if (gc === undefined) throw new Error("gc-outside-javascript needs node --expose-gc.");

const EVERY_MS = Number(process.env.CELLAR_TEST_GC_EVERY_MS ?? 10);
let collecting = false;
const timer = setInterval(() => {
  if (collecting) return;
  collecting = true;
  gc({ type: "major", execution: "async" }).finally(() => {
    collecting = false;
  });
}, EVERY_MS);
// The collections never keep the process alive: shutting down is the server's to decide.
timer.unref();
