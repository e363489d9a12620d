/**
 * `make`, remembered for frozen inputs: a frozen object cannot change, so what is made
 * from it once is handed out again (frozen too) for as long as the object lives. Any
 * other input gets a fresh result every time. Cached repository rows are frozen, so this
 * turns the per-request mapping of a cached row into a lookup. `Object.freeze` is
 * shallow: it holds only for inputs whose nested values (a row's `Date`s) are never
 * changed in place either, and whose fields are plain values, not getters.
 */
export function rememberedForFrozen<K extends object, V extends object>(make: (input: K) => V): (input: K) => V {
  const made = new WeakMap<K, V>();
  return (input) => {
    if (!Object.isFrozen(input)) return make(input);
    let result = made.get(input);
    if (result === undefined) {
      result = Object.freeze(make(input));
      made.set(input, result);
    }
    return result;
  };
}
