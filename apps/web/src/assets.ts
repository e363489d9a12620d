/**
 * Where the built web app is, for the server that serves it: `app-dist/` beside this
 * package's package.json, as `vite build` (`scripts/pnpm build`) leaves it.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

function builtAppFolder(): string {
  // From src/ (the workspace's sources) or dist/src/ (compiled): one or two folders up.
  for (const relative of ["../app-dist/", "../../app-dist/"]) {
    const folder = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(folder)) return folder;
  }
  return fileURLToPath(new URL("../app-dist/", import.meta.url));
}

export const WEB_APP_FOLDER = builtAppFolder();
