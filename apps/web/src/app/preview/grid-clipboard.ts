import type { RefObject } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { clipboardTexts, type GridTarget, shownBlock, shownBlockHere } from "./grid-commands.js";
import type { Bounds } from "./selection.js";

/** What the grid does with the page's copy, cut and paste. */
export interface ClipboardHandlers {
  readonly copy: (event: ClipboardEvent, cut: boolean) => void;
  readonly paste: (event: ClipboardEvent) => void;
}

/**
 * The page's copy, cut and paste, while `element` (the grid) has focus: they reach the
 * document wherever the page's text selection is, so they are listened for there. Their
 * `before…` events are cancelled then, which is how a page tells the browser that it
 * copies with no text selected (else Ctrl+C and Ctrl+X would do nothing).
 */
export function useClipboardEvents(element: RefObject<HTMLElement>, handlers: ClipboardHandlers): void {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const mine = () => document.activeElement !== null && document.activeElement === element.current;
    const listeners: Record<string, (event: ClipboardEvent) => void> = {
      beforecopy: (event) => mine() && event.preventDefault(),
      beforecut: (event) => mine() && event.preventDefault(),
      beforepaste: (event) => mine() && event.preventDefault(),
      copy: (event) => mine() && latest.current.copy(event, false),
      cut: (event) => mine() && latest.current.copy(event, true),
      paste: (event) => mine() && latest.current.paste(event),
    };
    for (const [type, listener] of Object.entries(listeners))
      document.addEventListener(type, listener as EventListener);
    return () => {
      for (const [type, listener] of Object.entries(listeners)) {
        document.removeEventListener(type, listener as EventListener);
      }
    };
  }, []);
}

/**
 * Puts a block's cells, as the grid shows them, on the clipboard as tab-separated text and
 * as an HTML table: on the copy event's own clipboard when the grid holds them all, else
 * through the asynchronous clipboard once they are read. Resolves once they are there.
 */
export function copyBlock(event: ClipboardEvent, target: GridTarget, bounds: Bounds): Promise<void> {
  const here = shownBlockHere(target, bounds);
  if (here !== null && event.clipboardData !== null) {
    const texts = clipboardTexts(here);
    event.clipboardData.setData("text/plain", texts.plain);
    event.clipboardData.setData("text/html", texts.html);
    return Promise.resolve();
  }
  const texts = shownBlock(target, bounds).then(clipboardTexts);
  const item = new ClipboardItem({
    "text/plain": texts.then((each) => new Blob([each.plain], { type: "text/plain" })),
    "text/html": texts.then((each) => new Blob([each.html], { type: "text/html" })),
  });
  return navigator.clipboard.write([item]);
}
