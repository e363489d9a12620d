import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { openDatabase } from "../src/index.js";

/** A fresh database file in its own temp folder, and how to throw both away. */
export function tempDatabase(): { dir: string; path: string; db: Database; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), "cellar-sqlite-"));
  const path = join(dir, "cellar.db");
  const db = openDatabase(path);
  return {
    dir,
    path,
    db,
    close() {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
