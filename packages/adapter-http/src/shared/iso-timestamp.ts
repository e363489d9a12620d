/**
 * The same text as `date.toISOString()` (`2026-01-31T09:05:00.123Z`), made in JavaScript
 * for the years 1970–9999 and by `toISOString` otherwise (which also throws, as before,
 * for an invalid date).
 *
 * Why: `toISOString` is a call into the engine's runtime, about 1–2 µs each on the
 * project's machine, and a list page shows two or four times for each of its 25 files;
 * this takes a quarter of that. Tested against `toISOString` over the whole range.
 */
export function isoTimestamp(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= 0 && ms < END_OF_YEAR_9999_MS)) return date.toISOString();
  const days = Math.floor(ms / MS_PER_DAY);
  let rest = ms - days * MS_PER_DAY;
  const hour = Math.floor(rest / 3_600_000);
  rest -= hour * 3_600_000;
  const minute = Math.floor(rest / 60_000);
  rest -= minute * 60_000;
  const second = Math.floor(rest / 1000);
  const milli = rest - second * 1000;
  // Days since 1970-01-01 to a civil date (H. Hinnant's `civil_from_days`): counted in
  // 400-year eras from 0000-03-01, so that February, with its leap day, ends each year.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${TWO_DIGITS[hour]}:${TWO_DIGITS[minute]}:${TWO_DIGITS[second]}.${THREE_DIGITS[milli]}Z`;
}

const MS_PER_DAY = 86_400_000;
/** 10000-01-01T00:00:00.000Z: from there on, years have more than four digits. */
const END_OF_YEAR_9999_MS = 253_402_300_800_000;
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
