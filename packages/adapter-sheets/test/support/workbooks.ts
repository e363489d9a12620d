import type { CellValue, CellWrite } from "@cellar/core";
import yazl from "yazl";

/** Small workbooks written part by part, for tests of what the reader makes of each kind of content. */

/** The SpreadsheetML namespace declaration of a part's root element. */
export const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/**
 * A workbook's parts, every one replaceable; `sheets` names the sheets, `sheetXml` their
 * parts' contents. `xl/sharedStrings.xml` and `xl/styles.xml` are related, and read when
 * `extra` gives them.
 */
export function parts(
  options: { sheets?: string[]; sheetXml?: string[]; extra?: Record<string, string | Buffer> } = {},
) {
  const sheets = options.sheets ?? ["Sheet1"];
  const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  const result: Record<string, string | Buffer> = {
    "[Content_Types].xml":
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    "_rels/.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    "xl/workbook.xml": `<?xml version="1.0"?><workbook ${MAIN} xmlns:r="${RELS}"><sheets>${sheets
      .map((name, i) => `<sheet name="${attribute(name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
      .join("")}</sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
      .map((_, i) => `<Relationship Id="rId${i + 1}" Type="${RELS}/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`)
      .join(
        "",
      )}<Relationship Id="rIdS" Type="${RELS}/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rIdT" Type="${RELS}/styles" Target="styles.xml"/></Relationships>`,
  };
  sheets.forEach((_, i) => {
    result[`xl/worksheets/sheet${i + 1}.xml`] =
      options.sheetXml?.[i] ??
      `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>ok</t></is></c></row></sheetData></worksheet>`;
  });
  return { ...result, ...options.extra };
}

/** The parts zipped (deflated), as an upload would store them. */
export async function zipOf(entries: Record<string, string | Buffer | undefined>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) {
    if (content !== undefined) zip.addBuffer(Buffer.isBuffer(content) ? content : Buffer.from(content), name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A styles part whose cell style `i + 1` shows number format `codes[i]` (style 0 is General). */
export function stylesWith(codes: readonly string[]): string {
  const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  return `<styleSheet ${MAIN}><numFmts>${codes
    .map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${attribute(code)}"/>`)
    .join(
      "",
    )}</numFmts><cellXfs><xf numFmtId="0"/>${codes.map((_, i) => `<xf numFmtId="${164 + i}"/>`).join("")}</cellXfs></styleSheet>`;
}

/** A write of `values` with its top left cell at `row`, `column`: its rectangle is their shape. */
export const at = (row: number, column: number, values: CellValue[][]): CellWrite => ({
  rectangle: {
    firstRow: row,
    lastRow: row + values.length - 1,
    firstColumn: column,
    lastColumn: column + (values[0]?.length ?? 1) - 1,
  },
  values,
});
