import { Table2 } from "lucide-preact";

/** Cellar's name and mark. */
export function Brand() {
  return (
    <span class="brand">
      <span class="brand-mark">
        <Table2 />
      </span>
      <span class="brand-name">Cellar</span>
    </span>
  );
}
