/**
 * How file names are found and ordered without regard to case, on every store alike.
 *
 * A name's key is its case-folded form: the search text's key must occur in it, and
 * `name` sorting compares keys. Stores keep the key beside the name, computed here when
 * they write a name, because no database folds case as JavaScript does (SQLite folds
 * ASCII only; PostgreSQL's `lower` follows the server's locale). Keys compare by code
 * point: the order of UTF-8 bytes, which is what SQLite's `BINARY` and PostgreSQL's
 * `COLLATE "C"` give and what `compareCodePoints` gives in JavaScript.
 *
 * A changed folding changes stored keys: a store must then recompute them all.
 */

const ASCII = /^[\x20-\x7e]*$/;

/**
 * The key of a name: lone surrogates made U+FFFD (as a UTF-8 store keeps them), composed
 * (NFC), then each character full-case-folded: "ÄRGER" and "A\u0308rger" both give
 * "ärger", "Straße" gives "strasse", "ΟΔΟΣ" and "οδος" both give "οδοσ". Each character is
 * folded on its own, so a final sigma is folded as any sigma, and through lower, upper and
 * lower case again, so that every case of a letter (ß, ẞ, SS; ς, σ, Σ) meets in one form.
 */
export function fileNameKey(name: string): string {
  if (ASCII.test(name)) return name.toLowerCase();
  let key = "";
  for (const character of name.toWellFormed().normalize("NFC")) {
    key += character.toLowerCase().toUpperCase().toLowerCase();
  }
  return key.normalize("NFC");
}

/**
 * Orders strings by code point, as UTF-8 bytes order. JavaScript's `<` compares UTF-16
 * code units instead, which puts a character above U+FFFF (a surrogate pair, D800–DFFF)
 * before one in E000–FFFF; the two orders differ only there.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** A code unit's place in code point order: surrogates moved above E000–FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
