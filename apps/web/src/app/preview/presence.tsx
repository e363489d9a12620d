import type { LiveState } from "../live/watch.js";

/** One person with the file open, as a `presence` event names them. */
export interface Viewer {
  readonly id: string;
  readonly name: string;
}

/**
 * A name's initials, as a badge shows them: the first letters of its first and last words
 * (`Ana María López` → `AL`); of a name that is an address, its local part's (`ana.lopez@…` → `AL`).
 */
export function initialsOf(name: string): string {
  const words = name
    .trim()
    .replace(/@.*$/u, "")
    .split(/[\s._-]+/u)
    .filter((word) => word !== "");
  const first = [...(words[0] ?? "?")][0] ?? "?";
  const last = words.length > 1 ? ([...(words[words.length - 1] as string)][0] ?? "") : "";
  return (first + last).toLocaleUpperCase();
}

/**
 * Who has the file open now, beside its title: a round badge of initials each, the full
 * name as its title and accessible name, the reader's own marked "(you)". While the
 * file's stream reconnects, it says so; the badges stay as they last were.
 */
export function Presence(props: { viewers: readonly Viewer[]; me: string | null; live: LiveState }) {
  const { viewers, me, live } = props;
  return (
    <div class="presence">
      {live.state === "reconnecting" && (
        <span role="status" class="live-state">
          Reconnecting…
        </span>
      )}
      {viewers.length > 0 && (
        <ul class="viewers" aria-label="Viewing now">
          {viewers.map((viewer, index) => {
            const name = `${viewer.name || "Someone"}${viewer.id === me ? " (you)" : ""}`;
            return (
              <li
                key={viewer.id}
                class={viewer.id === me ? "viewer you" : `viewer tone-${index % 4}`}
                title={name}
                aria-label={name}
              >
                <span aria-hidden="true">{initialsOf(viewer.name || "?")}</span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
