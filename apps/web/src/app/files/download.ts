import type { CellarFile } from "@cellar/client";
import { client } from "../session.js";

/** Saves a file the way a link would, with the session's token (a plain link cannot send it). */
export async function download(file: Pick<CellarFile, "id">): Promise<void> {
  const answer = await client.value.download(file.id);
  const parts: BlobPart[] = [];
  for await (const chunk of answer.body) parts.push(chunk as Uint8Array<ArrayBuffer>);
  const blob = new Blob(parts);
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = answer.fileName;
  // In the document while it is clicked: a detached link does not download everywhere.
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
