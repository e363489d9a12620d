import { useSignal } from "@preact/signals";
import { EllipsisVertical } from "lucide-preact";
import { type ComponentType, Fragment, type JSX } from "preact";
import { useEffect, useLayoutEffect, useRef } from "preact/hooks";
import { focusMenuItem, movedInMenu } from "../menu-focus.js";

export interface MenuAction {
  readonly label: string;
  readonly icon: ComponentType;
  readonly run: () => void;
  /** Shown in the danger colour, after a separator. */
  readonly danger?: boolean;
  /** Why the action is not allowed here: the item is shown disabled, with this reason under it. */
  readonly disabledBecause?: string;
}

/**
 * A button that opens a menu of actions, after the WAI-ARIA menu button pattern. Enter,
 * Space or Down opens it on its first item, Up on its last; in it, Up, Down, Home and End
 * move, Enter or Space runs an item, Escape closes it and gives focus back to the button,
 * and Tab closes it and goes on from the button. A click elsewhere closes it too.
 *
 * Running an item first gives focus back to the button, so that focus is never lost when
 * the menu goes; an item that opens something (a field, a dialog) then takes it from there.
 */
export function RowMenu(props: { id: string; label: string; actions: readonly MenuAction[] }) {
  const open = useSignal(false);
  // Opened upwards when there is no room for it below, at the foot of the screen.
  const upwards = useSignal(false);
  const anchor = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const focusOnOpen = useRef<"first" | "last">("first");
  const menuId = `${props.id}-menu`;

  function show(first: "first" | "last") {
    focusOnOpen.current = first;
    open.value = true;
  }
  function close(returnFocus: boolean) {
    open.value = false;
    upwards.value = false;
    if (returnFocus) button.current?.focus();
  }

  // Once the menu is in the page: turn it upwards if it would leave the screen, then focus an item.
  useLayoutEffect(() => {
    if (!open.value || menu.current === null) return;
    const box = menu.current.getBoundingClientRect();
    const above = button.current?.getBoundingClientRect().top ?? 0;
    if (!upwards.value && box.bottom > innerHeight && above - box.height > 0) {
      upwards.value = true;
      return;
    }
    focusMenuItem(menu.current, focusOnOpen.current === "first" ? 0 : -1);
  }, [open.value, upwards.value]);

  useEffect(() => {
    if (!open.value) return;
    const outside = (event: PointerEvent) => {
      if (!anchor.current?.contains(event.target as Node)) close(false);
    };
    document.addEventListener("pointerdown", outside);
    return () => document.removeEventListener("pointerdown", outside);
  }, [open.value]);

  function onMenuKey(event: JSX.TargetedKeyboardEvent<HTMLDivElement>) {
    if (movedInMenu(menu.current, event.key)) {
      event.preventDefault();
    } else if (event.key === "Escape") {
      event.preventDefault();
      close(true);
    } else if (event.key === "Tab") {
      // Focus goes back to the button first, so Tab moves on from where the menu was opened.
      close(true);
    }
  }

  return (
    <div class="menu-anchor" ref={anchor}>
      <button
        type="button"
        class="icon"
        id={props.id}
        ref={button}
        aria-label={props.label}
        aria-haspopup="menu"
        aria-expanded={open.value}
        aria-controls={open.value ? menuId : undefined}
        onClick={() => (open.value ? close(false) : show("first"))}
        onKeyDown={(event) => {
          if (event.key === "ArrowDown" || event.key === "ArrowUp") {
            event.preventDefault();
            show(event.key === "ArrowDown" ? "first" : "last");
          }
        }}
      >
        <EllipsisVertical />
      </button>
      {open.value && (
        <div
          role="menu"
          id={menuId}
          ref={menu}
          aria-labelledby={props.id}
          class={upwards.value ? "menu up" : "menu"}
          onKeyDown={onMenuKey}
        >
          {props.actions.map((action, index) => (
            <Fragment key={action.label}>
              {action.danger && <hr />}
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                class={action.danger ? "danger" : undefined}
                aria-disabled={action.disabledBecause === undefined ? undefined : "true"}
                aria-describedby={action.disabledBecause === undefined ? undefined : `${menuId}-why-${index}`}
                onClick={() => {
                  if (action.disabledBecause !== undefined) return;
                  close(true);
                  action.run();
                }}
              >
                <action.icon />
                <span class="menu-label">
                  {action.label}
                  {action.disabledBecause !== undefined && (
                    // Hidden from the item's name (it stays "Rename"), read as its description.
                    <small id={`${menuId}-why-${index}`} aria-hidden="true">
                      {action.disabledBecause}
                    </small>
                  )}
                </span>
              </button>
            </Fragment>
          ))}
        </div>
      )}
    </div>
  );
}
