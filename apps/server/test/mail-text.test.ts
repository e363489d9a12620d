import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOutboxMailer } from "@cellar/adapter-mail";
import { afterEach, describe, expect, it } from "vitest";
import { signInLinkIn } from "./support/mail-text.js";

let root: string | undefined;
afterEach(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

/** The tests read every sign-in link through this helper, so a misread token fails them at random. */
describe("the sign-in link the tests read from a mail", () => {
  it("is the link sent, even when its token starts with what reads as a quoted-printable escape", async () => {
    root = await mkdtemp(join(tmpdir(), "cellar-mail-text-"));
    const mailer = createOutboxMailer({ dir: root, from: "Cellar <no-reply@localhost>", log: () => undefined });
    // `=41` decodes to `A`, `=3D` to `=`: a whole-message decoder reads other tokens.
    for (const token of ["41Zq_x-9", "3DabcDEF", "zz41AAAA"]) {
      const link = `http://127.0.0.1:3000/sign-in?token=${token}`;
      await mailer.sendSignInLink({ to: "ada@example.com", link, expiresAt: new Date(), validForSeconds: 900 });
      const [file] = (await readdir(root)).filter((name) => name.endsWith(".eml"));
      const raw = await readFile(join(root, file ?? ""), "utf8");
      await rm(join(root, file ?? ""));
      expect((await signInLinkIn(raw)).href).toBe(link);
    }
  });
});
