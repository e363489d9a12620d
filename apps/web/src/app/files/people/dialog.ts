import { type components, unwrap } from "@cellar/client";
import { useEffect, useRef } from "preact/hooks";
import { client } from "../../session.js";

/** A `<dialog>` shown modal once it is in the page: focus stays in it, Escape closes it, and focus goes back where it was. */
export function useModal() {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return dialog;
}

/**
 * Who owns a file, for someone it is shared with. The file names only its owner's id;
 * its first activity, the upload, names them in full.
 */
export async function ownerOf(id: string): Promise<components["schemas"]["UserSummary"] | null> {
  const api = client.value.api;
  const first = await api.GET("/files/{id}/activity", { params: { path: { id }, query: { per_page: "1" } } });
  const pages = Number(first.response.headers.get("x-total-pages") ?? "1");
  const last =
    pages <= 1
      ? first.data
      : await unwrap(
          api.GET("/files/{id}/activity", { params: { path: { id }, query: { page: String(pages), per_page: "1" } } }),
        );
  const upload = last?.[0];
  return upload?.action === "uploaded" ? upload.actor : null;
}
