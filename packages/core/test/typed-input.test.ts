import { describe, expect, it } from "vitest";
import { typedEntry } from "../src/edits/typed-input.js";

const value = (text: string, date1904 = false) => typedEntry(text, date1904);

describe("typed input: a string as a person types it into a cell (decisions §8)", () => {
  it("reads numbers, with thousands separators, exponents, percentages and dollar amounts", () => {
    expect(value("3000")).toEqual({ kind: "value", value: 3000 });
    expect(value("-1.5")).toEqual({ kind: "value", value: -1.5 });
    expect(value(" 1,234.5 ")).toEqual({ kind: "value", value: 1234.5 });
    expect(value("1e3")).toEqual({ kind: "value", value: 1000 });
    expect(value(".5")).toEqual({ kind: "value", value: 0.5 });
    expect(value("12.5%")).toEqual({ kind: "value", value: 0.125 });
    expect(value("7%")).toEqual({ kind: "value", value: 0.07 });
    expect(value("$1,200")).toEqual({ kind: "value", value: 1200 });
    expect(value("-$5.25")).toEqual({ kind: "value", value: -5.25 });
  });

  it("keeps as text what only looks like a number", () => {
    for (const text of ["1,2", "12,34.5", "1.2.3", "$", "%", "-", "1e", "12abc", "(5)", "0x10", "Infinity", "1 000"]) {
      expect(value(text)).toEqual({ kind: "value", value: text });
    }
  });

  it("reads TRUE and FALSE in any case as booleans", () => {
    expect(value("true")).toEqual({ kind: "value", value: true });
    expect(value("FALSE")).toEqual({ kind: "value", value: false });
    expect(value("Yes")).toEqual({ kind: "value", value: "Yes" });
  });

  it("reads dates and times as serial numbers with the format they ask for, in the workbook's date system", () => {
    expect(value("2026-01-31")).toEqual({ kind: "value", value: 46053, format: "date" });
    expect(value("1/31/2026")).toEqual({ kind: "value", value: 46053, format: "date" });
    expect(value("1/31/26")).toEqual({ kind: "value", value: 46053, format: "date" });
    expect(value("2026-01-31", true)).toEqual({ kind: "value", value: 46053 - 1462, format: "date" });
    expect(value("13:45")).toEqual({ kind: "value", value: (13 * 60 + 45) / 1440, format: "time" });
    expect(value("1:45 PM")).toEqual({ kind: "value", value: (13 * 60 + 45) / 1440, format: "time" });
    expect(value("12:00 am")).toEqual({ kind: "value", value: 0, format: "time" });
    expect(value("1/31/2026 6:00")).toEqual({ kind: "value", value: 46053.25, format: "datetime" });
    // Not dates: a day the month lacks, a time past the day, European order.
    for (const text of ["2/30/2026", "2026-13-01", "25:00", "13:45 PM", "31/1/2026", "1/31"]) {
      expect(value(text)).toEqual({ kind: "value", value: text });
    }
  });

  it("reads = as a formula, a leading ' as text, and leaves other values as they are", () => {
    expect(value("=SUM(B2:B9)")).toEqual({ kind: "formula", formula: "SUM(B2:B9)" });
    expect(value("'=SUM(B2:B9)")).toEqual({ kind: "value", value: "=SUM(B2:B9)" });
    expect(value("'3000")).toEqual({ kind: "value", value: "3000" });
    expect(value("=")).toEqual({ kind: "value", value: "=" });
    expect(value("")).toEqual({ kind: "value", value: null });
    expect(value("Rent")).toEqual({ kind: "value", value: "Rent" });
    expect(typedEntry(42, false)).toEqual({ kind: "value", value: 42 });
    expect(typedEntry(null, false)).toEqual({ kind: "value", value: null });
    expect(typedEntry(true, false)).toEqual({ kind: "value", value: true });
  });
});
