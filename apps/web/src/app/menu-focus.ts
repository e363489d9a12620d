/**
 * Focus among a `role="menu"` element's items, as the WAI-ARIA menu pattern has it: the
 * file list's row menus and the grid's context menus move through their items alike.
 */

/** The menu's items, in order. */
function itemsOf(menu: HTMLElement | null): HTMLElement[] {
  return [...(menu?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
}

/** Focuses the menu's item at `index`, counted round (-1 is the last). */
export function focusMenuItem(menu: HTMLElement | null, index: number): void {
  const items = itemsOf(menu);
  items[(index + items.length) % items.length]?.focus();
}

/**
 * Up and Down move focus to the item before or after the focused one (round), Home and End
 * to the first or the last. True when `key` was one of them and focus moved.
 */
export function movedInMenu(menu: HTMLElement | null, key: string): boolean {
  const at = itemsOf(menu).indexOf(document.activeElement as HTMLElement);
  const moves: Record<string, number> = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: -1 };
  const to = moves[key];
  if (to === undefined) return false;
  focusMenuItem(menu, to);
  return true;
}
