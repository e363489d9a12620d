import { invalidField } from "./errors.js";

// C0, DEL and C1 controls, plus the Unicode bidirectional overrides and isolates, which
// let a name display as something other than what it is ("invoice\u202Excl.csv").
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const FORBIDDEN_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/** Whether `text` holds a character no display name may hold (a control or a direction override). */
export function hasForbiddenCharacters(text: string): boolean {
  return FORBIDDEN_CHARACTERS.test(text);
}

/**
 * Checks and normalises a display name: trimmed, `min`–`max` code points, no control
 * characters. Returns the trimmed name or throws a `validation_error` for `field`.
 */
export function normaliseDisplayName(value: unknown, field: string, limits: { min: number; max: number }): string {
  if (typeof value !== "string") throw invalidField(field, "must be a string");
  const trimmed = value.trim();
  if (hasForbiddenCharacters(trimmed)) {
    throw invalidField(field, "must not contain control characters");
  }
  const length = [...trimmed].length;
  if (length < limits.min) throw invalidField(field, "must not be empty");
  if (length > limits.max) {
    throw invalidField(field, `must be at most ${limits.max} characters`);
  }
  return trimmed;
}
