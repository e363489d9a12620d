import type { CellarFile } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { messageOf } from "../messages.js";
import { say } from "../toast.js";

type PanelsModule = typeof import("./people/people-panels.js");

/** What a row's menu may open about a file: its people and link, or its activity. */
export type PanelRequest =
  | {
      panel: "share";
      file: CellarFile;
      /** True when the clipboard could not be written to before the dialog opened. */
      copyFailed?: boolean;
      /** After the file's link or people changed: the list shows it. */
      onChange: () => void;
    }
  | { panel: "activity"; file: CellarFile };

/**
 * The share and activity dialogs, fetched the first time one is opened: most visits to
 * the list never open them, and the first load stays within its budget.
 */
let loaded: Promise<PanelsModule> | null = null;

export function usePanels() {
  const request = useSignal<PanelRequest | null>(null);
  const module = useSignal<PanelsModule | null>(null);

  function open(next: PanelRequest) {
    loaded ??= import("./people/people-panels.js");
    loaded.then(
      (panels) => {
        module.value = panels;
        request.value = next;
      },
      (error: unknown) => {
        loaded = null;
        say(messageOf(error), "error");
      },
    );
  }

  const close = () => {
    request.value = null;
  };
  const panels = module.value;
  const now = request.value;
  const shown =
    panels === null || now === null ? null : now.panel === "share" ? (
      <panels.ShareDialog
        file={now.file}
        copyFailed={now.copyFailed ?? false}
        onChange={now.onChange}
        onClose={close}
      />
    ) : (
      <panels.ActivityDialog file={now.file} onClose={close} />
    );
  return { open, shown };
}
