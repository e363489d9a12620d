import { signal } from "@preact/signals";
import { CircleAlert, CircleCheck, X } from "lucide-preact";

type Tone = "info" | "success" | "error";

interface Toast {
  readonly text: string;
  readonly tone: Tone;
}

const shown = signal<Toast | null>(null);
let timer: ReturnType<typeof setTimeout> | undefined;
/** Long enough to read a sentence twice. An error stays until it is dismissed or another message comes. */
const SHOWN_MS = 6_000;

/** Says something at the foot of the screen (and to screen readers), in place of what was said before. */
export function say(text: string, tone: Tone = "info"): void {
  clearTimeout(timer);
  const toast = { text, tone };
  shown.value = toast;
  if (tone !== "error") {
    timer = setTimeout(() => {
      if (shown.value === toast) shown.value = null;
    }, SHOWN_MS);
  }
}

/** Where `say` speaks: a live region always in the page, so that each new message is announced. */
export function Toasts() {
  const toast = shown.value;
  return (
    <div class="toasts" role="status">
      {toast !== null && (
        <div class={`toast ${toast.tone}`}>
          {toast.tone === "error" ? <CircleAlert /> : toast.tone === "success" ? <CircleCheck /> : null}
          <span>{toast.text}</span>
          <button type="button" class="icon small" aria-label="Dismiss" onClick={() => (shown.value = null)}>
            <X />
          </button>
        </div>
      )}
    </div>
  );
}
