import { useSignal } from "@preact/signals";
import { Search } from "lucide-preact";
import { useEffect, useRef } from "preact/hooks";
import type { ListKind } from "./listing.js";
import { FILE_SORTS, type FileSort, type ListQuery, SORT_LABELS } from "./query.js";

/** How long typing pauses before the search goes to the server. */
const SEARCH_DEBOUNCE_MS = 300;
/** The search field's id: where focus goes when the file it was on is gone. */
export const SEARCH_FIELD_ID = "file-search";

/** Above a list: the search field, and the order to list in. */
export function Toolbar(props: {
  query: ListQuery;
  kind: ListKind;
  onQuery: (next: Partial<ListQuery>, typing?: boolean) => void;
}) {
  const { query, kind, onQuery } = props;
  return (
    <div class="toolbar">
      <SearchField q={query.q} kind={kind} onSearch={(q) => onQuery({ q }, true)} />
      <label class="sort">
        Sort by
        <select value={query.sort} onChange={(event) => onQuery({ sort: event.currentTarget.value as FileSort })}>
          {FILE_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {SORT_LABELS[sort]}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
}

/**
 * The search field: what is typed goes to the server once typing pauses. It shows what
 * the address says when that changes under it (Back, Forward), and not otherwise, so an
 * answer arriving while you type never undoes what you typed since.
 */
const SEARCH_LABELS: Readonly<Record<ListKind, string>> = {
  files: "Search your files",
  trash: "Search the trash",
  shared: "Search files shared with you",
};

function SearchField(props: { q: string; kind: ListKind; onSearch: (q: string) => void }) {
  const draft = useSignal(props.q);
  const sent = useRef(props.q);
  useEffect(() => {
    if (props.q === sent.current) return;
    sent.current = props.q;
    draft.value = props.q;
  }, [props.q]);
  useEffect(() => {
    const q = draft.value.trim();
    if (q === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = q;
      props.onSearch(q);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft.value]);
  return (
    <search class="search">
      <Search />
      <input
        id={SEARCH_FIELD_ID}
        type="search"
        aria-label={SEARCH_LABELS[props.kind]}
        placeholder={SEARCH_LABELS[props.kind]}
        maxLength={100}
        autocomplete="off"
        value={draft.value}
        onInput={(event) => (draft.value = event.currentTarget.value)}
      />
    </search>
  );
}
