import { unwrap } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import { CliError, EXIT } from "../exit-codes.js";
import { csvField } from "../output.js";

export const sheetCommands: readonly CommandSpec[] = [
  {
    name: "sheets",
    args: ["<id>"],
    description: "the sheets of a CSV or XLSX file: their size, header and column types",
    async run(context, { args: [id = ""] }) {
      const session = await context.signedIn();
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
    },
  },
  {
    name: "cells",
    args: ["<id>", "<range>"],
    description: "a window of cells, as CSV (B2:D10, 'Q1 Budget'!A1:Z100, A:C, 3:5)",
    options: [
      { name: "formatted", description: "each cell as the workbook's author sees it ($1,234.50, 31-Jan-26)" },
      { name: "formulas", description: "each formula cell as its formula (=SUM(B2:B9)), every other as its value" },
      { name: "types", description: "with --json, each cell's type beside its value" },
    ],
    async run(context, { args: [id = "", range = ""], options }) {
      if (options.formatted === true && options.formulas === true) {
        throw new CliError("cells takes --formatted or --formulas, not both.", EXIT.usage);
      }
      const session = await context.signedIn();
      const window = await session.client.values(id, range, {
        ...(options.formatted === true ? { render: "formatted" } : {}),
        ...(options.formulas === true ? { render: "formula" } : {}),
        ...(options.types === true ? { types: true } : {}),
      });
      const { output } = context;
      if (output.options.json) return output.json(window);
      for (const row of window.values) output.result(row.map(csvField).join(","));
      output.note(window.values.length === 0 ? `${window.range} is empty.` : window.range);
    },
  },
  {
    name: "find",
    args: ["<id>", "<text>"],
    description:
      "the cells whose text as shown holds <text>, case aside: each cell and its text, in sheet, row and column order",
    options: [{ name: "sheet", value: "<name>", description: "only this sheet" }],
    async run(context, { args: [id = "", text = ""], options }) {
      const session = await context.signedIn();
      const sheet = typeof options.sheet === "string" ? options.sheet : undefined;
      const { output } = context;
      const found = [];
      let count = 0;
      for await (const cell of session.client.find(id, text, sheet === undefined ? {} : { sheet })) {
        count++;
        if (output.options.json) found.push(cell);
        else if (output.options.quiet) output.result(cell.range);
        else output.result(`${cell.range}\t${cell.text}`);
      }
      if (output.options.json) return output.json(found);
      output.note(
        count === 0 ? `Nothing holds ${JSON.stringify(text)}.` : `${count} ${count === 1 ? "cell" : "cells"}.`,
      );
    },
  },
];
