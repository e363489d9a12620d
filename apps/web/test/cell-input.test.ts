import { describe, expect, it } from "vitest";
import { editText, inputOf, parseClipboard, rangeText } from "../src/app/preview/cell-input.js";

describe("what an edit writes", () => {
  it("writes a CSV's cells as the text typed, and nothing as an empty cell", () => {
    expect(inputOf("1.50", true)).toBe("1.50");
    expect(inputOf("TRUE", true)).toBe("TRUE");
    expect(inputOf("=SUM(A1:A3)", true)).toBe("=SUM(A1:A3)");
    expect(inputOf("", true)).toBeNull();
  });

  it("writes a workbook's numbers and booleans as such, anything else as text", () => {
    expect(inputOf("2500", false)).toBe(2500);
    expect(inputOf(" -1.5e3 ", false)).toBe(-1500);
    expect(inputOf(".5", false)).toBe(0.5);
    expect(inputOf("true", false)).toBe(true);
    expect(inputOf("FALSE", false)).toBe(false);
    expect(inputOf("12 apples", false)).toBe("12 apples");
    expect(inputOf("$2,500.00", false)).toBe("$2,500.00");
    expect(inputOf("", false)).toBeNull();
  });

  it("shows a stored value in the editor as typing it again would write it", () => {
    expect(editText(2500)).toBe("2500");
    expect(editText(true)).toBe("TRUE");
    expect(editText(null)).toBe("");
    expect(editText("Apples")).toBe("Apples");
  });

  it("names one cell or a block", () => {
    expect(rangeText(2, 2, 1, 1)).toBe("B2");
    expect(rangeText(2, 2, 2, 3)).toBe("B2:D3");
    expect(rangeText(1, 26, 1, 2)).toBe("Z1:AA1");
  });
});

describe("a block pasted from a spreadsheet program", () => {
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
