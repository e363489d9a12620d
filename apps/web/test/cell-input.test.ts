import { describe, expect, it } from "vitest";
import { editText, inputOf, rangeText, typedInput, typedText } from "../src/app/preview/cell-input.js";

describe("what an edit writes", () => {
  it("sends text as typed, for the server to read as a spreadsheet program does, and nothing as an empty cell", () => {
    expect(inputOf("1.50")).toBe("1.50");
    expect(inputOf("TRUE")).toBe("TRUE");
    expect(inputOf("=SUM(A1:A3)")).toBe("=SUM(A1:A3)");
    expect(inputOf(" 12 apples ")).toBe(" 12 apples ");
    expect(inputOf("")).toBeNull();
  });

  it("shows a workbook's formula cell as its formula, and text that would type as something else behind a '", () => {
    expect(typedText("=SUM(C3:N3)", 30000, false)).toBe("=SUM(C3:N3)");
    expect(typedText(2500, 2500, false)).toBe("2500");
    expect(typedText(true, true, false)).toBe("TRUE");
    expect(typedText(null, null, false)).toBe("");
    expect(typedText("Rent", "Rent", false)).toBe("Rent");
    expect(typedText("3000", "3000", false)).toBe("'3000");
    expect(typedText("12.5%", "12.5%", false)).toBe("'12.5%");
    expect(typedText("$1,200", "$1,200", false)).toBe("'$1,200");
    expect(typedText("true", "true", false)).toBe("'true");
    expect(typedText("1/31/2026", "1/31/2026", false)).toBe("'1/31/2026");
    expect(typedText("13:45", "13:45", false)).toBe("'13:45");
    expect(typedText("'quoted", "'quoted", false)).toBe("''quoted");
    // A text that starts with = reads the same raw and as a formula: it is text.
    expect(typedText("=not a formula", "=not a formula", false)).toBe("'=not a formula");
    expect(typedText("12 apples", "12 apples", false)).toBe("12 apples");
  });

  it("shows a CSV's text as it is: a CSV has no types", () => {
    expect(typedText("3000", "3000", true)).toBe("3000");
    expect(typedText("=SUM(A1)", "=SUM(A1)", true)).toBe("=SUM(A1)");
  });

  it("writes a workbook's cell back as it was: a formula as a formula, every text behind a '", () => {
    expect(typedInput("=SUM(C3:N3)", 30000)).toBe("=SUM(C3:N3)");
    expect(typedInput(2500, 2500)).toBe(2500);
    expect(typedInput(false, false)).toBe(false);
    expect(typedInput(null, null)).toBeNull();
    expect(typedInput("Rent", "Rent")).toBe("'Rent");
    expect(typedInput("=text", "=text")).toBe("'=text");
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
