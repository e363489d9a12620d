/**
 * Puts `text` on the clipboard. False where the page may not: a browser without the
 * Clipboard API, a page not served over HTTPS or from localhost, or permission refused;
 * the caller then selects the text for the reader to copy themselves.
 */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** The address a shared file opens at, for any signed-in user of this Cellar. */
export function linkTo(file: { readonly id: string }): string {
  return `${location.origin}/files/${file.id}`;
}
