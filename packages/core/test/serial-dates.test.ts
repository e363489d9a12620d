import { describe, expect, it } from "vitest";
import { isoToSerial, serialToIso } from "../src/index.js";

const QUARTER_TO_TWO = (13 * 3600 + 45 * 60) / 86_400;

describe("serial dates", () => {
  it("tell a serial number as a date, a time, or both, rounded to the second", () => {
    expect(serialToIso(46053, "date", false)).toBe("2026-01-31");
    expect(serialToIso(46053 + QUARTER_TO_TWO, "datetime", false)).toBe("2026-01-31T13:45:00");
    expect(serialToIso(QUARTER_TO_TWO, "time", false)).toBe("13:45:00");
    // A moment before midnight rounds into the next day.
    expect(serialToIso(46053.999_999_99, "datetime", false)).toBe("2026-02-01T00:00:00");
  });

  it("keep Lotus's 29 February 1900 in the 1900 system, and count the 1904 system from its own start", () => {
    expect(serialToIso(1, "date", false)).toBe("1900-01-01");
    expect(serialToIso(59, "date", false)).toBe("1900-02-28");
    expect(serialToIso(60, "date", false)).toBe("1900-02-29");
    expect(serialToIso(61, "date", false)).toBe("1900-03-01");
    expect(serialToIso(0, "date", true)).toBe("1904-01-01");
    expect(serialToIso(60, "date", true)).toBe("1904-03-01");
    expect(serialToIso(44591, "date", true)).toBe("2026-01-31");
  });

  it("read ISO dates, times and both back into serial numbers", () => {
    expect(isoToSerial("2026-01-31", false)).toBe(46053);
    expect(isoToSerial("2026-01-31", true)).toBe(44591);
    expect(isoToSerial("2026-01-31T13:45:00", false)).toBeCloseTo(46053 + QUARTER_TO_TWO, 9);
    expect(isoToSerial("13:45", false)).toBeCloseTo(QUARTER_TO_TWO, 9);
    expect(isoToSerial("13:45:30.5Z", false)).toBeCloseTo(QUARTER_TO_TWO + 30.5 / 86_400, 9);
    expect(isoToSerial("1900-01-01", false)).toBe(1);
    expect(isoToSerial("1900-02-28", false)).toBe(59);
    expect(isoToSerial("1900-02-29", false)).toBe(60);
    expect(isoToSerial("1900-03-01", false)).toBe(61);
    expect(isoToSerial("1904-01-01", true)).toBe(0);
  });

  it("read a year before 100 as that year, not as one of the 1900s", () => {
    const serial = isoToSerial("0099-12-31", false);
    expect(serial).not.toBeNull();
    expect(serialToIso(serial as number, "date", false)).toBe("0099-12-31");
    expect(serial).toBeLessThan(0);
  });

  it("give no serial number for text that is not a date or a time", () => {
    for (const text of ["", "tomorrow", "2026-1-31", "31/01/2026", "2026-01-31T", "25h", "2026-01-31Tnoon"]) {
      expect(isoToSerial(text, false)).toBeNull();
    }
  });

  it("round-trip every day of a few years, in both systems", () => {
    for (const date1904 of [false, true]) {
      for (let serial = 1462; serial < 1462 + 3 * 366; serial += 7) {
        const iso = serialToIso(serial + 0.25, "datetime", date1904);
        expect(iso.endsWith("T06:00:00")).toBe(true);
        expect(isoToSerial(iso, date1904)).toBeCloseTo(serial + 0.25, 9);
      }
    }
  });
});
