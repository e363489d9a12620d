const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/** A size as people read it: `1536` → `1.5 KiB`, `5_242_880` → `5.0 MiB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${UNITS[unit]}`;
}
