/**
 * `prepack` of every published package: puts the repository's LICENSE beside the
 * package.json being packed, so that each tarball carries the licence text (the copies
 * are not kept in git).
 */
import { copyFileSync } from "node:fs";

copyFileSync(new URL("../LICENSE", import.meta.url), `${process.cwd()}/LICENSE`);
