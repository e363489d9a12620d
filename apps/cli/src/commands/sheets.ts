import { unwrap } from "@cellar/client";
import type { CAC } from "cac";
import { csvField } from "../output.js";
import { requireToken } from "../session.js";
import { type Act, text } from "./act.js";

export function registerSheetCommands(program: CAC, action: Act) {
  program.command("sheets <id>", "the sheets of a CSV or XLSX file: their size, header and column types").action(
    action(async (context, given: unknown) => {
      const id = text(given);
      const session = await context.session();
      requireToken(session);
      const sheets = await unwrap(session.client.api.GET("/files/{id}/sheets", { params: { path: { id } } }));
      const { output } = context;
      if (output.options.json) return output.json(sheets);
      if (output.options.quiet) {
        for (const sheet of sheets) output.result(sheet.name);
        return;
      }
      output.table(
        ["#", "ROWS", "COLUMNS", "HEADER", "COLUMN TYPES", "NAME"],
        sheets.map((sheet) => [
          String(sheet.index),
          String(sheet.row_count),
          String(sheet.column_count),
          sheet.header_row ? "yes" : "no",
          sheet.column_types
            .slice(0, 8)
            .map((type) => type ?? "-")
            .join(",")
            .concat(sheet.column_types.length > 8 ? ",…" : ""),
          sheet.name,
        ]),
      );
    }),
  );

  program
    .command("cells <id> <range>", "a window of cells, as CSV (B2:D10, 'Q1 Budget'!A1:Z100, A:C, 3:5)")
    .option("--types", "with --json, each cell's type beside its value")
    .action(
      action(async (context, givenId: unknown, givenRange: unknown, options: { types?: boolean }) => {
        const [id, range] = [text(givenId), text(givenRange)];
        const session = await context.session();
        requireToken(session);
        const window = await unwrap(
          session.client.api.GET("/files/{id}/values", {
            params: { path: { id }, query: { range, ...(options.types ? { types: "true" } : {}) } },
          }),
        );
        const { output } = context;
        if (output.options.json) return output.json(window);
        for (const row of window.values) output.result(row.map(csvField).join(","));
        output.note(window.values.length === 0 ? `${window.range} is empty.` : window.range);
      }),
    );
}
