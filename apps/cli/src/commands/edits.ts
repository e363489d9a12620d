import { resolve } from "node:path";
import type { CellInput, StructureOperation } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { basedOn, positiveInteger, printChanged } from "./files.js";

/** `--json-values`: a VALUE read as JSON, which must be a string, a number, a boolean or null. */
function jsonValue(text: string): CellInput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError(
      `${JSON.stringify(text)} is not JSON: with --json-values, text is quoted ('"text"'), as are the other values: 42, true, null.`,
      EXIT.usage,
    );
  }
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
    return value;
  }
  throw new CliError(`${text} is not a cell's value: a string, a number, true, false or null.`, EXIT.usage);
}

/**
 * The rows of a CSV file (or of stdin, for `-`), read with csv-parse: every field as its
 * text, an empty one as null (an empty cell). Blank lines are skipped; rows of unequal
 * length are refused, as the server would refuse them.
 */
async function csvRows(context: CommandContext, from: string): Promise<CellInput[][]> {
  // Loaded only here: every other command starts without it.
  const { parse } = await import("csv-parse");
  const input: NodeJS.ReadableStream =
    from === "-"
      ? context.io.stdin
      : process.getBuiltinModule("node:fs").createReadStream(resolve(context.io.cwd, from));
  const rows: CellInput[][] = [];
  try {
    const records = input.pipe(parse({ bom: true, skip_empty_lines: true }));
    input.on("error", (error: Error) => records.destroy(error));
    for await (const record of records as AsyncIterable<string[]>) {
      rows.push(record.map((field) => (field === "" ? null : field)));
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "EISDIR") {
      throw new CliError(`Cannot read ${from}.`);
    }
    throw new CliError(`${from}: ${(error as Error).message}`);
  }
  if (rows.length === 0) throw new CliError(`${from} has no rows to append.`);
  return rows;
}

export const editCommands: readonly CommandSpec[] = [
  {
    name: "set",
    args: ["<id>", "<range>", "<values...>"],
    description:
      "write values into cells, from the range's first across its row, as the next version (B2 a b c: B2:D2); each value as typed into a spreadsheet: 3000 a number, 12.5% 0.125, $1,200 1200, true a boolean, 1/31/2026 a date, =SUM(B2:B9) a formula, 'text text (a CSV takes the text as typed)",
    options: [
      {
        name: "raw",
        description: "write every value as text, as given: 3000 is the text 3000, =A1 the text =A1",
      },
      {
        name: "json-values",
        description:
          'read each value as JSON: 42 and true are a number and a boolean, null empties the cell, "text" is text, never a formula (a value starting with - goes after --)',
      },
      { name: "force", description: "write even over a change made meanwhile" },
    ],
    async run(context, { args: [id = "", range = "", ...texts], options }) {
      const json = options["json-values"] === true;
      const values = json ? texts.map(jsonValue) : texts;
      const session = await context.signedIn();
      const ifMatch = await basedOn(session, id, options.force === true);
      const input = json || options.raw === true ? "raw" : "user";
      const edited = await session.client.editValues(id, { range, values: [values], input }, { ifMatch });
      const { output } = context;
      if (output.options.json) return output.json(edited);
      if (output.options.quiet) return output.result(edited.file.id);
      const written = Array.isArray(edited.updated_range) ? edited.updated_range.join(", ") : edited.updated_range;
      output.result(
        `Wrote ${written} (${edited.updated_cells} ${edited.updated_cells === 1 ? "cell" : "cells"}) of ${edited.file.name} (${edited.file.id}): version ${edited.file.version}.`,
      );
    },
  },
  {
    name: "append",
    args: ["<id>"],
    description:
      "append the rows of a local CSV file (a header too) after the last row with a value, as the next version; each field as typed into a spreadsheet (as `set` reads values)",
    options: [
      {
        name: "from",
        value: "<csv>",
        description: "the CSV file (- for stdin): an empty field is an empty cell",
      },
      { name: "raw", description: "write every field as text, as given (3000 is the text 3000)" },
      { name: "sheet", value: "<name>", description: "the sheet to append to (default: the first)" },
    ],
    async run(context, { args: [id = ""], options }) {
      if (typeof options.from !== "string") {
        throw new CliError("append needs --from <csv>: the rows to append.", EXIT.usage);
      }
      const values = await csvRows(context, options.from);
      const session = await context.signedIn();
      const appended = await session.client.appendRows(id, {
        ...(typeof options.sheet === "string" ? { sheet: options.sheet } : {}),
        values,
        input: options.raw === true ? "raw" : "user",
      });
      const { output } = context;
      if (output.options.json) return output.json(appended);
      if (output.options.quiet) return output.result(appended.file.id);
      output.result(
        `Appended ${values.length} ${values.length === 1 ? "row" : "rows"} to ${appended.file.name} (${appended.file.id}) at ${appended.updated_range}: version ${appended.file.version}.`,
      );
    },
  },
  ...(["rows", "columns"] as const).map(
    (what): CommandSpec => ({
      name: what,
      args: ["<insert|delete>", "<id>", "<sheet>", what === "rows" ? "<row>" : "<column>", "[count]"],
      description:
        what === "rows"
          ? "insert rows before <row>, or delete rows from it (count: 1 by default), as the next version: the rows after move, and what refers to them follows"
          : "insert columns before <column> (C, AB), or delete columns from it (count: 1 by default), as the next version: the columns after move, and what refers to them follows",
      options: [{ name: "force", description: "change it even over a change made meanwhile" }],
      async run(context, { args: [action = "", id = "", sheet = "", at = "", count = "1"], options }) {
        if (action !== "insert" && action !== "delete") {
          throw new CliError(`cellar ${what} takes insert or delete, not ${JSON.stringify(action)}.`, EXIT.usage);
        }
        const howMany = positiveInteger("count", count);
        let position: number | string;
        if (what === "rows") position = positiveInteger("row", at);
        else if (/^[A-Za-z]{1,3}$/.test(at)) position = at.toUpperCase();
        else throw new CliError(`${JSON.stringify(at)} is not a column's letters (C, AB).`, EXIT.usage);
        const operation = (
          action === "insert"
            ? { insert: what, sheet, before: position, count: howMany }
            : { delete: what, sheet, from: position, count: howMany }
        ) as StructureOperation;
        const session = await context.signedIn();
        const ifMatch = await basedOn(session, id, options.force === true);
        const file = await session.client.structure(id, [operation], { ifMatch });
        const noun = howMany === 1 ? what.slice(0, -1) : what;
        const where = what === "rows" ? `row ${position}` : `column ${position}`;
        printChanged(
          context,
          file,
          `${action === "insert" ? `Inserted ${howMany} ${noun} before` : `Deleted ${howMany} ${noun} from`} ${where} of ${sheet} in ${file.name} (${file.id}): version ${file.version}.`,
        );
      },
    }),
  ),
  {
    name: "sheet",
    args: ["<add|rename|mv|rm>", "<id>", "<sheet>", "[to]"],
    description:
      "change a workbook's sheets as the next version: add <sheet> [at position, from 1], rename <sheet> <new name>, mv <sheet> <position from 1>, rm <sheet>; formulas and names follow",
    options: [{ name: "force", description: "change it even over a change made meanwhile" }],
    async run(context, { args: [action = "", id = "", sheet = "", to], options }) {
      const position = (what: string) => positiveInteger(what, to ?? "") - 1;
      let operation: StructureOperation;
      let said: (file: string) => string;
      switch (action) {
        case "add":
          operation = to === undefined ? { add_sheet: sheet } : { add_sheet: sheet, index: position("position") };
          said = (file) => `Added sheet ${sheet}${to === undefined ? "" : ` at position ${to}`} to ${file}`;
          break;
        case "rename":
          if (to === undefined) throw new CliError("cellar sheet rename takes the sheet and its new name.", EXIT.usage);
          operation = { rename_sheet: sheet, to };
          said = (file) => `Renamed sheet ${sheet} to ${to} in ${file}`;
          break;
        case "mv":
          if (to === undefined)
            throw new CliError("cellar sheet mv takes the sheet and its new position, from 1.", EXIT.usage);
          operation = { move_sheet: sheet, to: position("position") };
          said = (file) => `Moved sheet ${sheet} to position ${to} in ${file}`;
          break;
        case "rm":
          if (to !== undefined) throw new CliError("cellar sheet rm takes the sheet alone.", EXIT.usage);
          operation = { delete_sheet: sheet };
          said = (file) => `Deleted sheet ${sheet} from ${file}`;
          break;
        default:
          throw new CliError(`cellar sheet takes add, rename, mv or rm, not ${JSON.stringify(action)}.`, EXIT.usage);
      }
      const session = await context.signedIn();
      const ifMatch = await basedOn(session, id, options.force === true);
      const file = await session.client.structure(id, [operation], { ifMatch });
      printChanged(context, file, `${said(`${file.name} (${file.id})`)}: version ${file.version}.`);
    },
  },
];
