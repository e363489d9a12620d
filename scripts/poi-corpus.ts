/**
 * The apache/poi workbooks of the formula corpus (packages/test-engines/corpus/poi-spreadsheets.json),
 * put into `.cache/poi-corpus/` (or `CELLAR_POI_CORPUS_DIR`) from a git mirror of apache/poi,
 * each checked against the SHA-256 the manifest pins. Run by `scripts/poi-corpus`:
 *
 *   scripts/poi-corpus [git-dir]            extracts the manifest's files
 *   scripts/poi-corpus --update [git-dir]   chooses the files again at the mirror's HEAD, rewrites the manifest, extracts
 *
 * The mirror is the argument, else `POI_GIT_DIR`, else a git repository in (or right under)
 * a folder matching `.mirror/apache+poi*` beside the checkout. It exits with 1 when a file was skipped.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type PoiCorpusManifest,
  poiCorpusDir,
  poiCorpusFile,
  poiCorpusManifest,
  storedFormulaResults,
} from "@cellar/test-engines";

const MANIFEST = new URL("../packages/test-engines/corpus/poi-spreadsheets.json", import.meta.url);
/** Where a fetched mirror is put: `.mirror/` beside the checkout. */
const MIRRORS = fileURLToPath(new URL("../../.mirror", import.meta.url));
/** The workbooks the corpus is chosen from: those of this folder (not its subfolders). */
const FOLDER = "test-data/spreadsheet/";
const FUZZED = /^(clusterfuzz-testcase|crash-)/;

const update = process.argv.includes("--update");
const gitDir = findMirror(process.argv.slice(2).find((arg) => arg !== "--update") ?? process.env.POI_GIT_DIR);
if (update) writeManifest(await chooseFiles(gitDir));
process.exitCode = extract(gitDir, poiCorpusManifest());

function extract(gitDir: string, manifest: PoiCorpusManifest): number {
  if (!isCommitOf(gitDir, manifest.commit)) {
    console.error(`poi-corpus: ${gitDir} does not have apache/poi's commit ${manifest.commit}: fetch it first`);
    return 1;
  }
  const dir = poiCorpusDir();
  mkdirSync(dir, { recursive: true });
  let skipped = 0;
  for (const { path, sha256 } of manifest.files) {
    const file = poiCorpusFile(path);
    if (existsSync(file) && sha256Of(readFileSync(file)) === sha256) continue;
    const bytes = blob(gitDir, manifest.commit, path);
    const found = bytes && sha256Of(bytes);
    if (bytes === undefined || found !== sha256) {
      console.error(`poi-corpus: skipped ${path}: ${bytes ? `its SHA-256 is ${found}, not ${sha256}` : "not there"}`);
      skipped += 1;
      continue;
    }
    writeFileSync(file, bytes);
  }
  const kept = manifest.files.length - skipped;
  console.log(`poi-corpus: ${kept} of ${manifest.files.length} workbooks in ${dir} (apache/poi ${manifest.commit})`);
  return skipped === 0 ? 0 : 1;
}

/**
 * The workbooks of apache/poi's test-data/spreadsheet/ at the mirror's HEAD that have at
 * least one formula with a stored result; not those that are not zips (an encrypted workbook
 * is an OLE2 file), strict OOXML, or that cannot be read, nor the fuzzers' test cases, made
 * to break readers (one of them reads, though a part of it fails its CRC).
 */
async function chooseFiles(gitDir: string): Promise<PoiCorpusManifest> {
  const commit = git(gitDir, ["rev-parse", "HEAD"]).toString().trim();
  const paths = git(gitDir, ["ls-tree", "-z", "--name-only", commit, FOLDER])
    .toString()
    .split("\0")
    .filter((path) => /\.xls[xm]$/i.test(path))
    .sort();
  const files: PoiCorpusManifest["files"][number][] = [];
  const left: Record<string, string[]> = {};
  for (const path of paths) {
    const bytes = blob(gitDir, commit, path) as Buffer;
    const reason = FUZZED.test(path.slice(FOLDER.length)) ? "a fuzzer's test case" : await unusable(bytes);
    if (typeof reason === "string") {
      left[reason] = [...(left[reason] ?? []), path.slice(FOLDER.length)];
    } else {
      files.push({ path, sha256: sha256Of(bytes), formulas: reason.formulas });
    }
  }
  console.log(`poi-corpus: ${files.length} of ${paths.length} workbooks at apache/poi ${commit}; left out:`);
  for (const [reason, names] of Object.entries(left)) console.log(`  ${reason} (${names.length}): ${names.join(", ")}`);
  return { repository: "apache/poi", commit, files };
}

async function unusable(bytes: Buffer): Promise<string | { formulas: number }> {
  if (bytes.subarray(0, 4).equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0]))) return "an OLE2 file: encrypted";
  if (!bytes.subarray(0, 2).equals(Buffer.from("PK"))) return "not a zip";
  try {
    const results = await storedFormulaResults(bytes);
    if (!results.some(({ value }) => value !== null)) return "no formula with a stored result";
    return { formulas: results.length };
  } catch (error) {
    return (error as Error).message.startsWith("Strict OOXML")
      ? "strict OOXML"
      : `unreadable: ${(error as Error).message}`;
  }
}

function writeManifest(manifest: PoiCorpusManifest): void {
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
}

function findMirror(given: string | undefined): string {
  const mirrors = existsSync(MIRRORS) ? readdirSync(MIRRORS).filter((name) => name.startsWith("apache+poi")) : [];
  const folders = given !== undefined ? [given] : mirrors.map((name) => join(MIRRORS, name));
  const found = folders.flatMap((folder) => [folder, ...subfolders(folder)]).find(isGitDir);
  if (found !== undefined) return found;
  fail(
    given !== undefined
      ? `no git repository in ${given}`
      : `no git mirror of apache/poi: give its path (argument or POI_GIT_DIR), or put one in ${MIRRORS}/apache+poi*`,
  );
}

/** A clone's .git, or a mirror kept in a folder of its own. */
function subfolders(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const entries = readdirSync(folder, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(folder, entry.name));
}

function isGitDir(dir: string): boolean {
  return existsSync(dir) && spawnSync("git", ["--git-dir", dir, "rev-parse", "--git-dir"]).status === 0;
}

function isCommitOf(gitDir: string, commit: string): boolean {
  return spawnSync("git", ["--git-dir", gitDir, "cat-file", "-e", `${commit}^{commit}`]).status === 0;
}

function blob(gitDir: string, commit: string, path: string): Buffer | undefined {
  const result = spawnSync("git", ["--git-dir", gitDir, "cat-file", "blob", `${commit}:${path}`], {
    maxBuffer: 1 << 30,
  });
  return result.status === 0 ? result.stdout : undefined;
}

function git(gitDir: string, args: string[]): Buffer {
  const result = spawnSync("git", ["--git-dir", gitDir, ...args], { maxBuffer: 1 << 30 });
  if (result.status !== 0) fail(`git ${args.join(" ")}: ${result.stderr.toString().trim()}`);
  return result.stdout;
}

function sha256Of(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function fail(message: string): never {
  console.error(`poi-corpus: ${message}`);
  process.exit(1);
}
