// @vitest-environment happy-dom
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseClipboard, parseHtmlTable, toHtmlTable, toTsv } from "../src/app/preview/clipboard.js";

describe("a block pasted from a spreadsheet program as text", () => {
  it("reads tab-separated columns and one line a row, with or without a last line end", () => {
    expect(parseClipboard("1\t2\t3\r\n4\t5\t6\r\n")).toEqual([
      ["1", "2", "3"],
      ["4", "5", "6"],
    ]);
    expect(parseClipboard("a\tb\nc\td")).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(parseClipboard("one")).toEqual([["one"]]);
  });

  it("keeps empty cells, and pads short rows to a rectangle", () => {
    expect(parseClipboard("1\t\t3\n4\n")).toEqual([
      ["1", "", "3"],
      ["4", "", ""],
    ]);
  });

  it("reads quoted fields holding tabs, line breaks and quotes, and a quote inside a field as it is", () => {
    expect(parseClipboard('"a\tb"\t"line one\nline two"\t"say ""hi"""\n')).toEqual([
      ["a\tb", "line one\nline two", 'say "hi"'],
    ]);
    expect(parseClipboard('5" pipe\t"open\n')).toEqual([['5" pipe', '"open']]);
  });
});

describe("a block copied as text", () => {
  it("writes tab-separated fields, each row ended by CRLF as Excel writes them", () => {
    expect(
      toTsv([
        ["1", "2"],
        ["3", ""],
      ]),
    ).toBe("1\t2\r\n3\t\r\n");
  });

  it("writes one cell alone, with no line end to land in a text field", () => {
    expect(toTsv([["Total"]])).toBe("Total");
    expect(toTsv([])).toBe("");
  });

  it("quotes a field holding a tab, a line break or a quote, its quotes doubled", () => {
    expect(toTsv([["a\tb", "line one\nline two", 'say "hi"', "plain"]])).toBe(
      '"a\tb"\t"line one\nline two"\t"say ""hi"""\tplain\r\n',
    );
    expect(toTsv([["two\r\nlines"]])).toBe('"two\r\nlines"');
  });

  it("is read back as it was, a last row of empty cells and awkward fields included", () => {
    const blocks = [
      [
        ["a", ""],
        ["", ""],
      ],
      [["x"], [""]],
      [['"quoted"', "tab\there", "1\n2"]],
      [["one cell\nwith a line break"]],
    ];
    for (const block of blocks) expect(parseClipboard(toTsv(block))).toEqual(block);
  });
});

describe("a block copied as HTML", () => {
  it("writes a table of escaped text, line breaks as <br> that Excel keeps in the cell", () => {
    expect(
      toHtmlTable([
        ["Apples & <pears>", 'say "hi"'],
        ["line one\nline two", ""],
      ]),
    ).toBe(
      '<meta charset="utf-8"><table><tbody>' +
        "<tr><td>Apples &amp; &lt;pears&gt;</td><td>say &quot;hi&quot;</td></tr>" +
        '<tr><td>line one<br style="mso-data-placement:same-cell">line two</td><td></td></tr>' +
        "</tbody></table>",
    );
  });

  it("is read back as it was", () => {
    const block = [
      ["Apples & pears", "<b>not bold</b>", "1,234.50"],
      ["line one\nline two", "", "café ✓"],
    ];
    expect(parseHtmlTable(toHtmlTable(block))).toEqual(block);
  });
});

describe("a table pasted from LibreOffice Calc", () => {
  // Real output of LibreOffice 7.4.7.2's HTML filter ("HTML (StarCalc)"), the one Calc puts
  // on the clipboard as text/html, produced (Debian 12) from the hand-written flat ODS
  // beside it, whose cells have number formats, a formula, merged cells and a German
  // currency format:
  //   apt-get install -y --no-install-recommends libreoffice-calc-nogui
  //   cd apps/web/test/fixtures
  //   soffice --headless --convert-to html --outdir /tmp/out libreoffice-clipboard.fods
  //   cp /tmp/out/libreoffice-clipboard.html .
  // A path, not `new URL(…, import.meta.url)`, which Vite makes a web address in a DOM environment.
  const html = readFileSync(join(import.meta.dirname, "fixtures/libreoffice-clipboard.html"), "utf8");

  it("reads its cells as typed: shown text, values where the text would not type as the number, text kept text", () => {
    expect(parseHtmlTable(html)).toEqual([
      ["Item", "Amount", "Date", "Share", "Note"],
      // `<td><br></td>` is an empty cell; `&amp;` is read.
      ["Apples & pears", "1,234.50", "01/31/26", "12.5%", ""],
      // A text cell that would type as a number keeps its text; `31.01.2026` types as no
      // date and is no number's digits, so it stays shown; `3,20 €` is 3.2 (sdval).
      ["'00123", "2,469.00", "31.01.2026", "3.2", '<b> "quoted"'],
      // colspan=2 (unquoted): the merged cell's other cell is empty; `<br>` a line break;
      // `a  b` collapses as HTML shows it.
      ["Merged", "", "TRUE", "line one\nline two", "a b"],
      // `(1,234.50)` is −1234.5; 0.33 is what it shows (sdval 0.333…): what a person would type.
      ["Tall", "-1234.5", "APPLES & PEARS", "0.33", "1234567.891"],
      // rowspan=2: the cell below is empty; a text starting with `=` stays text.
      ["", "Ünïcödé ✓", "", "indented", "'=not a formula"],
    ]);
  });
});

describe("a table pasted from Excel", () => {
  // Written after Excel's clipboard HTML (its "HTML Format": an Office namespace page, conditional
  // comments, the copied rows between StartFragment and EndFragment comments), trimmed.
  const excel = [
    '<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office"',
    'xmlns:x="urn:schemas-microsoft-com:office:excel" xmlns="http://www.w3.org/TR/REC-html40">',
    '<head><meta http-equiv=Content-Type content="text/html; charset=utf-8"><meta name=Generator content="Microsoft Excel 15">',
    '<style><!--table {mso-displayed-decimal-separator:"\\.";} .xl65 {mso-number-format:"\\#\\,\\#\\#0\\.00";}--></style>',
    "<!--[if gte mso 9]><xml><x:ExcelWorkbook><x:ExcelWorksheets><x:ExcelWorksheet><x:Name>Sheet1</x:Name>",
    "</x:ExcelWorksheet></x:ExcelWorksheets></x:ExcelWorkbook></xml><![endif]-->",
    '</head><body link="#0563C1" vlink="#954F72">',
    "<table border=0 cellpadding=0 cellspacing=0 width=256 style='border-collapse: collapse;width:192pt'>",
    "<!--StartFragment-->",
    " <tr height=20 style='height:15.0pt'>",
    "  <td height=20 align=right style='height:15.0pt' x:num>42</td>",
    '  <td class=xl65 align=right x:num="1234.5">1 234,50 </td>',
    "  <td x:str>00123</td>",
    '  <td class=xl66 align=right x:num="0.125" x:fmla="=B1/10">12.5%</td>',
    " </tr>",
    " <tr height=40 style='height:30.0pt'>",
    "  <td colspan=2 height=40 class=xl67 width=128 style='height:30.0pt;width:96pt'>Two<br style='mso-data-placement:same-cell' />lines</td>",
    "  <td>A&amp;B<span style='mso-spacerun:yes'> </span></td>",
    '  <td x:num="45009">2023/3/24</td>',
    " </tr>",
    "<!--EndFragment-->",
    " <![if supportMisalignedColumns]>",
    " <tr height=0 style='display:none'>",
    "  <td width=64 style='width:48pt'></td><td width=64 style='width:48pt'></td>",
    "  <td width=64 style='width:48pt'></td><td width=64 style='width:48pt'></td>",
    " </tr>",
    " <![endif]>",
    "</table></body></html>",
  ].join("\r\n");

  it("reads its rows, past its conditional comments, styles and hidden row of column widths", () => {
    expect(parseHtmlTable(excel)).toEqual([
      // x:num with no value: the text shown is the number. `1 234,50` is 1234.5 (x:num).
      // x:str: a text, kept text. 12.5% types as the number it shows.
      ["42", "1234.5", "'00123", "12.5%"],
      // A date shown in a form that does not type as one keeps its text, not a serial number.
      ["Two\nlines", "", "A&B", "2023/3/24"],
    ]);
  });
});

describe("a table pasted from Google Sheets", () => {
  // After Google Sheets' clipboard HTML: a wrapper element, a style in a comment, each cell's
  // value as JSON in data-sheets-value (1: its type, 2 a text, 3 a number, 4 a boolean).
  const sheets =
    '<meta charset="utf-8"><google-sheets-html-origin><style type="text/css"><!--td {border: 1px solid #cccccc;}' +
    "br {mso-data-placement:same-cell;}--></style>" +
    '<table xmlns="http://www.w3.org/1999/xhtml" cellspacing="0" cellpadding="0" dir="ltr" border="1" ' +
    'style="table-layout:fixed;font-size:10pt;font-family:Arial;width:0px;border-collapse:collapse;border:none" ' +
    'data-sheets-root="1"><colgroup><col width="100"/><col width="100"/><col width="100"/></colgroup><tbody>' +
    '<tr style="height:21px;"><td style="overflow:hidden;" data-sheets-value="{&quot;1&quot;:2,&quot;2&quot;:&quot;+7&quot;}">+7</td>' +
    '<td style="text-align:right;" data-sheets-value="{&quot;1&quot;:3,&quot;3&quot;:3.2}" ' +
    'data-sheets-numberformat="{&quot;1&quot;:2,&quot;2&quot;:&quot;#,##0.00\\\\&quot; €\\\\&quot;&quot;,&quot;3&quot;:1}">3,20 €</td>' +
    '<td data-sheets-value="{&quot;1&quot;:4,&quot;4&quot;:1}">TRUE</td></tr>' +
    '<tr style="height:21px;"><td rowspan="1" colspan="2" data-sheets-value="{&quot;1&quot;:2,&quot;2&quot;:&quot;Notes&quot;}">Notes</td>' +
    '<td data-sheets-value="{&quot;1&quot;:3,&quot;3&quot;:1234.5}">1,234.50</td></tr>' +
    "</tbody></table></google-sheets-html-origin>";

  it("reads its cells inside the wrapper, with its declared texts and numbers", () => {
    expect(parseHtmlTable(sheets)).toEqual([
      ["'+7", "3.2", "TRUE"],
      ["Notes", "", "1,234.50"],
    ]);
  });
});

describe("a copied table's HTML", () => {
  it("is null when there is no table, or a table without cells", () => {
    expect(parseHtmlTable("<p>Just a paragraph &amp; a <b>word</b></p>")).toBeNull();
    expect(parseHtmlTable("")).toBeNull();
    expect(parseHtmlTable("<table></table>")).toBeNull();
    expect(parseHtmlTable("<table><tr></tr></table>")).toBeNull();
  });

  it("lays out merged cells as HTML does, the spanned cells empty", () => {
    const html =
      "<table>" +
      '<tr><td rowspan="2">A</td><td colspan="2">B</td><td>C</td></tr>' +
      "<tr><td>D</td><td rowspan=3>E</td><td>F</td></tr>" +
      "<tr><td>G</td></tr>" +
      "</table>";
    expect(parseHtmlTable(html)).toEqual([
      ["A", "B", "", "C"],
      ["", "D", "E", "F"],
      // E's rowspan of 3 reaches past the last row: cut short there.
      ["G", "", "", ""],
    ]);
    expect(parseHtmlTable("<table><tr><td rowspan=0>all</td><td>1</td></tr><tr><td>2</td></tr></table>")).toEqual([
      ["all", "1"],
      ["", "2"],
    ]);
  });

  it("closes cells and rows whose end tags are left out, and reads header cells", () => {
    expect(parseHtmlTable("<TABLE><THEAD><TR><TH>Name<TH>Score<TBODY><TR><TD>Ada<TD>12<TR><TD>Bo</TABLE>")).toEqual([
      ["Name", "Score"],
      ["Ada", "12"],
      ["Bo", ""],
    ]);
  });

  it("collapses white space as a browser shows it, breaking lines at <br> and between blocks", () => {
    const html =
      "<table><tr>\n" +
      "  <td>\n    Two   words\t here \n  </td>\n" +
      "  <td>one<br>two<br/><br>four<br></td>\n" +
      "  <td><p>first</p><p>second</p> <div> third </div></td>\n" +
      "  <td>&nbsp;&nbsp;kept&#32;&#32;spaces&nbsp;</td>\n" +
      "  <td>&nbsp;</td>\n" +
      "  <td> <br> </td>\n" +
      "</tr></table>";
    expect(parseHtmlTable(html)).toEqual([
      ["Two words here", "one\ntwo\n\nfour", "first\nsecond\nthird", "  kept spaces ", "", ""],
    ]);
  });

  it("reads attributes however they are quoted, their entities read", () => {
    const html =
      "<table><tr><td COLSPAN = '2' data-sheets-value='{\"1\":3,\"3\":0.5}'>½</td><td x:num=2.5>2,5</td></tr></table>";
    expect(parseHtmlTable(html)).toEqual([["0.5", "", "2.5"]]);
  });

  it("reads only the first table, a table inside a cell as that cell's text, and no caption", () => {
    const html =
      "<table><caption>Budget</caption><tr><td>outer<table><tr><td>inner</td><td>cell</td></tr></table>after</td></tr></table>" +
      "<table><tr><td>second table</td></tr></table>";
    expect(parseHtmlTable(html)).toEqual([["outer\ninner cell\nafter"]]);
  });

  it("passes over scripts, styles, comments and processing instructions, whatever they hold", () => {
    const html =
      '<?xml version="1.0"?><!DOCTYPE html><script>if (a < b) document.write("<table><tr><td>no</td></tr></table>")</script>' +
      "<style>td::before { content: '<td>' }</style><!-- <table><tr><td>nor this</td></tr></table> --><!---->" +
      "<table><tr><td>yes<!-- not this --> 1 < 2</td></tr></table>";
    expect(parseHtmlTable(html)).toEqual([["yes 1 < 2"]]);
  });

  it("keeps a number a plain table shows as it is (nothing says it is a number)", () => {
    expect(parseHtmlTable("<table><tr><td>1.234,50</td><td>00123</td></tr></table>")).toEqual([["1.234,50", "00123"]]);
  });
});

describe("HTML's character references in a copied table", () => {
  /** A one-cell table's text. */
  const cell = (html: string) => parseHtmlTable(`<table><tr><td>${html}</td></tr></table>`)?.[0]?.[0];

  it("reads named, decimal and hexadecimal references, the Latin-1 names all in place", () => {
    expect(cell("&amp;&lt;&gt;&quot;&apos;&nbsp;&copy;&eacute;&Eacute;&yuml;&iquest;&times;&divide;")).toBe(
      "&<>\"' ©éÉÿ¿×÷",
    );
    expect(cell("&#233;&#xE9;&#X1F600;&euro;&mdash;&hellip;")).toBe("éé😀€—…");
  });

  it("reads 128–159 as Windows-1252 does, a reference to no character as U+FFFD, and leaves unknown names", () => {
    expect(cell("&#150;&#128;&#153;")).toBe("–€™");
    expect(cell("&#0;&#xD800;&#1114112;")).toBe("\uFFFD\uFFFD\uFFFD");
    // As HTML reads them: `&amp` is one of the old names read without their semicolon.
    expect(cell("&unknown; &amp without a semicolon; AT&T")).toBe("&unknown; & without a semicolon; AT&T");
  });
});
