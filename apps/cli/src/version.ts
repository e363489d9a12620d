/** This package's version, from its package.json (two folders up from src/ and dist/src/). */
function packageVersion(): string {
  // See config.ts: node:fs is taken as Node's own module.
  const { readFileSync } = process.getBuiltinModule("node:fs");
  for (const relative of ["../package.json", "../../package.json"]) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === "@cellar/cli" && typeof manifest.version === "string") return manifest.version;
    } catch {
      // Not this one: the next.
    }
  }
  return "0.0.0";
}

export const VERSION = packageVersion();
