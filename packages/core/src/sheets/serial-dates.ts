/** How a number shows as a date, a time, or both (a workbook says by its cell's number format). */
export type SerialKind = "date" | "time" | "datetime";

const DAY_MS = 86_400_000;

/**
 * A serial date-time as ISO 8601: `2026-01-31`, `13:45:00` or `2026-01-31T13:45:00`, to
 * the second. In the 1900 system serial 1 is 1900-01-01 and 60 is the 29 February 1900
 * that Lotus 1-2-3 believed in (kept as that text); in the 1904 system 0 is 1904-01-01.
 */
export function serialToIso(serial: number, kind: SerialKind, date1904: boolean): string {
  let days = Math.floor(serial);
  let seconds = Math.round((serial - days) * 86_400);
  if (seconds === 86_400) {
    days++;
    seconds = 0;
  }
  const time = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60]
    .map((part) => String(part).padStart(2, "0"))
    .join(":");
  if (kind === "time") return time;
  let date: string;
  if (!date1904 && days === 60) {
    date = "1900-02-29";
  } else {
    const epoch = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
    date = new Date(epoch + days * DAY_MS).toISOString().slice(0, 10);
  }
  return kind === "date" ? date : `${date}T${time}`;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(.*))?$/;
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2}(?:\.\d{1,9})?))?(?:Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The serial number of an ISO 8601 date, time or date and time, as a `t="d"` cell holds
 * it (serialToIso the other way), or null when the text is none of them.
 */
export function isoToSerial(iso: string, date1904: boolean): number | null {
  const date = ISO_DATE.exec(iso);
  const time = ISO_TIME.exec(date === null ? iso : (date[4] ?? "00:00"));
  if (time === null) return null;
  const [, hours, minutes, seconds] = time;
  const fraction = (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds ?? 0)) / 86_400;
  if (date === null) return fraction;
  const [, year, month, day] = date;
  if (!date1904 && year === "1900" && month === "02" && day === "29") return 60 + fraction;
  // setUTCFullYear, not Date.UTC: the latter reads years 0 to 99 as 1900 to 1999.
  const at = new Date(0);
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  const epoch = date1904
    ? Date.UTC(1904, 0, 1)
    : at.getTime() < Date.UTC(1900, 2, 1)
      ? Date.UTC(1899, 11, 31)
      : Date.UTC(1899, 11, 30);
  return (at.getTime() - epoch) / DAY_MS + fraction;
}
