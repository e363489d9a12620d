import { apiError, type CellarClient, type FoundCell } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { messageOf } from "../messages.js";
import { parseCellReference } from "./cell-text.js";

/** Matches fetched a request: the API's most. */
const PER_PAGE = 100;
/** How long typing rests before the file is searched. */
const SEARCH_WAIT_MS = 300;

/** A cell to show: its sheet (by name) and place. */
export interface FoundPlace {
  readonly sheet: string;
  readonly row: number;
  readonly column: number;
}

/** Where a match is, from its range (`Data!B3`, `'Q1 Budget'!C7`, `'It''s'!A1`); null for what is none. */
export function placeOf(range: string): FoundPlace | null {
  const bang = range.lastIndexOf("!");
  if (bang < 0) return null;
  const name = range.slice(0, bang);
  const sheet = name.startsWith("'") && name.endsWith("'") ? name.slice(1, -1).replaceAll("''", "'") : name;
  const cell = parseCellReference(range.slice(bang + 1).split(":")[0] ?? "");
  return cell === null ? null : { sheet, ...cell };
}

/** One search: the text looked for, how many cells hold it, and the pages of them fetched so far. */
interface Search {
  readonly text: string;
  readonly total: number;
  readonly pages: Map<number, readonly FoundCell[]>;
}

/**
 * Ctrl+F: a small panel over the grid that finds the cells whose text as shown holds what
 * is typed, in every sheet, in sheet, row and column order (`GET /files/:id/find`, paged).
 * It says how many there are (`3 of 57`, a polite live region); Enter or Next goes to the
 * next one, Shift+Enter or Previous to the one before, round the end; Escape closes it
 * and gives the grid its focus back. A match on another sheet shows that sheet.
 */
export function FindPanel(props: {
  client: CellarClient;
  fileId: string;
  /** The file's version: what was found before a change is looked for again. */
  version: number;
  onFound: (place: FoundPlace) => void;
  onClose: () => void;
}) {
  const text = useSignal("");
  const search = useSignal<Search | null>(null);
  const index = useSignal(-1);
  const said = useSignal("");
  const input = useRef<HTMLInputElement>(null);
  /** The search on its way, if any. */
  const pending = useRef<{ text: string; promise: Promise<Search> } | null>(null);

  useEffect(() => {
    input.current?.focus();
  }, []);
  // The file changed: its matches are looked for again when next needed.
  useEffect(() => {
    search.value = null;
    pending.current = null;
  }, [props.version]);

  async function page(of: string, number: number): Promise<{ found: readonly FoundCell[]; total: number }> {
    const { data, error, response } = await props.client.api.GET("/files/{id}/find", {
      params: { path: { id: props.fileId }, query: { q: of, page: String(number), per_page: String(PER_PAGE) } },
    });
    if (data === undefined) throw await apiError(response, error);
    return { found: data, total: Number(response.headers.get("x-total-count") ?? data.length) };
  }

  /** The search for what is typed now, made (its first page) unless it is already, or on its way. */
  async function current(): Promise<Search | null> {
    const of = text.value.trim();
    if (of === "") {
      search.value = null;
      said.value = "";
      return null;
    }
    if (search.value?.text === of) return search.value;
    if (pending.current?.text !== of) {
      said.value = "Searching…";
      const promise = page(of, 1).then((first) => ({
        text: of,
        total: first.total,
        pages: new Map([[1, first.found]]),
      }));
      pending.current = { text: of, promise };
    }
    const made = await pending.current.promise;
    // Typed on meanwhile: that text's search is the one that counts.
    if (text.value.trim() !== of) return null;
    if (search.value?.text !== of) {
      search.value = made;
      index.value = -1;
      said.value =
        made.total === 0 ? "No matches" : made.total === 1 ? "1 match" : `${made.total.toLocaleString()} matches`;
    }
    return search.value;
  }

  /** Goes `step` matches on (−1: back), round the end, and shows it. */
  async function go(step: 1 | -1) {
    try {
      const made = await current();
      if (made === null || made.total === 0) return;
      const next = index.value < 0 ? (step === 1 ? 0 : made.total - 1) : (index.value + step + made.total) % made.total;
      const number = Math.floor(next / PER_PAGE) + 1;
      let found = made.pages.get(number);
      if (found === undefined) {
        found = (await page(made.text, number)).found;
        made.pages.set(number, found);
      }
      const cell = found[next % PER_PAGE];
      const place = cell === undefined ? null : placeOf(cell.range);
      if (place === null) return;
      index.value = next;
      said.value = `${(next + 1).toLocaleString()} of ${made.total.toLocaleString()}`;
      props.onFound(place);
    } catch (error) {
      said.value = `Not searched: ${messageOf(error)}`;
    }
  }

  // Typing searches once it rests.
  useEffect(() => {
    if (text.value.trim() === "") {
      said.value = "";
      return;
    }
    const timer = setTimeout(() => {
      current().catch((error: unknown) => (said.value = `Not searched: ${messageOf(error)}`));
    }, SEARCH_WAIT_MS);
    return () => clearTimeout(timer);
  }, [text.value]);

  function onKeyDown(event: JSX.TargetedKeyboardEvent<HTMLElement>) {
    if (event.key === "Escape") {
      event.preventDefault();
      props.onClose();
    } else if (event.key === "Enter" && event.target === input.current) {
      event.preventDefault();
      void go(event.shiftKey ? -1 : 1);
    } else if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "f") {
      // Ctrl+F again: the text, to type over.
      event.preventDefault();
      input.current?.select();
    }
  }

  return (
    <search aria-label="Find in this file" class="find-panel" onKeyDown={onKeyDown}>
      <label for="find-text">Find</label>
      <input
        id="find-text"
        ref={input}
        autocomplete="off"
        spellcheck={false}
        value={text.value}
        aria-describedby="find-count"
        onInput={(event) => (text.value = event.currentTarget.value)}
      />
      <span id="find-count" class="find-count" aria-live="polite">
        {said.value}
      </span>
      <button type="button" onClick={() => void go(-1)}>
        Previous
      </button>
      <button type="button" onClick={() => void go(1)}>
        Next
      </button>
      <button type="button" class="quiet" onClick={props.onClose}>
        Close
      </button>
    </search>
  );
}
