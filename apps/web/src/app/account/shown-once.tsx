import { useSignal } from "@preact/signals";
import { CircleCheck, Copy } from "lucide-preact";
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { copyText } from "../files/clipboard.js";

/**
 * A secret shown this once (a token's value, a webhook's signing secret): in a read-only
 * field, focused and selected as soon as it shows, with a Copy button, what it is for
 * before it and how to use it after. The value lives only here: Done (or leaving the
 * page) forgets it.
 */
export function ShownOnce(props: {
  /** The section's id prefix, and what its field is named by. */
  id: string;
  title: ComponentChildren;
  /** What is said before the field: what it is, and that it will not be shown again. */
  intro: ComponentChildren;
  value: string;
  /** The field's accessible name. */
  label: string;
  /** What the copy messages call it: "token", "secret". */
  noun: string;
  /** How to use it, after the field. */
  children: ComponentChildren;
  onDone: () => void;
}) {
  const field = useRef<HTMLInputElement>(null);
  const said = useSignal<{ text: string; copied: boolean } | null>(null);

  function select() {
    field.current?.focus();
    field.current?.select();
  }
  // The reader's eyes go to the value: focus it, selected, as soon as it shows.
  useEffect(select, [props.value]);

  async function copy() {
    const noun = props.noun;
    if (await copyText(props.value))
      said.value = { text: `${noun[0]?.toUpperCase()}${noun.slice(1)} copied`, copied: true };
    else {
      select();
      said.value = { text: `Press Ctrl+C (⌘C on a Mac) to copy the selected ${noun}.`, copied: false };
    }
  }

  return (
    <section class="notice success new-token" aria-labelledby={`${props.id}-title`}>
      <CircleCheck />
      <div class="new-token-body">
        <h3 id={`${props.id}-title`}>{props.title}</h3>
        <p>{props.intro}</p>
        <div class="copy-field">
          <input
            ref={field}
            id={`${props.id}-value`}
            readOnly
            value={props.value}
            aria-label={props.label}
            onFocus={(event) => event.currentTarget.select()}
          />
          <button type="button" onClick={copy}>
            <Copy />
            Copy
          </button>
        </div>
        <p role="status" class={said.value?.copied === false ? "copy-status muted" : "copy-status"}>
          {said.value?.text}
        </p>
        {props.children}
        <div class="dialog-actions">
          <button type="button" onClick={props.onDone}>
            Done
          </button>
        </div>
      </div>
    </section>
  );
}
