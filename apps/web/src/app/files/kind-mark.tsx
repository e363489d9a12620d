import type { CellarFile } from "@cellar/client";
import { FileSpreadsheet, FileText, Sheet } from "lucide-preact";

/** The three kinds of file Cellar keeps, told apart by their content type (a renamed file may have lost its extension). */
const KINDS = {
  "text/csv": { name: "csv", label: "CSV file", Icon: FileText },
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": {
    name: "xlsx",
    label: "Excel workbook",
    Icon: FileSpreadsheet,
  },
  "application/octet-stream": { name: "sheet", label: "Sheet file", Icon: Sheet },
} as const satisfies Record<CellarFile["content_type"], unknown>;

/** A file's kind at a glance: a coloured mark with its icon, named for screen readers. */
export function KindMark(props: { file: Pick<CellarFile, "content_type"> }) {
  const { name, label, Icon } = KINDS[props.file.content_type] ?? KINDS["application/octet-stream"];
  return (
    <span class={`kind kind-${name}`} role="img" aria-label={label} title={label}>
      <Icon />
    </span>
  );
}
