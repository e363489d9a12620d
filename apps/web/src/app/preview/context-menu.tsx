import { Fragment, type JSX } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { focusMenuItem, movedInMenu } from "../menu-focus.js";

export interface ContextAction {
  readonly label: string;
  readonly run: () => void;
  /** Shown in the danger colour, after a separator. */
  readonly danger?: boolean;
}

/**
 * A context menu at a point of the screen (where the pointer was, or the element the
 * keyboard opened it on), after the WAI-ARIA menu pattern: it takes focus on its first
 * item; Up, Down, Home and End move, Enter or Space runs an item, Escape or Tab closes it,
 * a click elsewhere too. Focus goes back to `returnTo` (the grid, a tab) when it closes,
 * before an item runs, so an item that opens something takes focus from there.
 */
export function ContextMenu(props: {
  id: string;
  /** The menu's name (`Row 3`, `Columns B to D`, `Sheet Budget`). */
  label: string;
  actions: readonly ContextAction[];
  at: { readonly x: number; readonly y: number };
  returnTo: () => HTMLElement | null;
  onClose: () => void;
}) {
  const menu = useRef<HTMLDivElement>(null);
  const close = (returnFocus: boolean) => {
    props.onClose();
    if (returnFocus) props.returnTo()?.focus();
  };

  // Kept on the screen, then its first item focused.
  useLayoutEffect(() => {
    const element = menu.current;
    if (element === null) return;
    const box = element.getBoundingClientRect();
    const left = Math.max(4, Math.min(props.at.x, innerWidth - box.width - 4));
    const top = Math.max(4, props.at.y + box.height > innerHeight ? props.at.y - box.height : props.at.y);
    element.style.left = `${left}px`;
    element.style.top = `${top}px`;
    focusMenuItem(element, 0);
  }, []);

  useEffect(() => {
    const outside = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node)) close(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, []);

  function onKeyDown(event: JSX.TargetedKeyboardEvent<HTMLDivElement>) {
    event.stopPropagation();
    if (movedInMenu(menu.current, event.key)) {
      event.preventDefault();
    } else if (event.key === "Escape" || event.key === "Tab") {
      event.preventDefault();
      close(true);
    }
  }

  return (
    <div
      role="menu"
      id={props.id}
      ref={menu}
      aria-label={props.label}
      class="menu context-menu"
      style={{ left: `${props.at.x}px`, top: `${props.at.y}px` }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      {props.actions.map((action) => (
        <Fragment key={action.label}>
          {action.danger && <hr />}
          <button
            type="button"
            role="menuitem"
            tabIndex={-1}
            class={action.danger ? "danger" : undefined}
            onClick={() => {
              close(true);
              action.run();
            }}
          >
            <span class="menu-label">{action.label}</span>
          </button>
        </Fragment>
      ))}
    </div>
  );
}
