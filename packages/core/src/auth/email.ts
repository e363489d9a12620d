import { invalidField } from "../shared/errors.js";

// A practical subset of RFC 5321: dot-atom local part, a domain of at least two
// LDH labels. Quoted local parts and address literals are refused.
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Trims and lower-cases an address, then checks it; throws `validation_error` if bad. */
export function normaliseEmail(value: unknown): string {
  if (typeof value !== "string") throw invalidField("email", "must be a string");
  const email = value.trim().toLowerCase();
  const at = email.lastIndexOf("@");
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (at < 1 || email.length > 254 || local.length > 64 || !LOCAL_PART.test(local) || !DOMAIN.test(domain)) {
    throw invalidField("email", "must be an email address");
  }
  return email;
}
