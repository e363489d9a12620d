/**
 * A memo for what is made from frozen objects: a frozen object cannot change, so what is
 * made from it once can be handed out again for as long as the object lives (a `WeakMap`
 * keyed by it). `rememberFor(input, make)` returns the remembered result for a frozen
 * `input`, making it on first use; any other input gets `make(input)` afresh every time.
 * `Object.freeze` is shallow: this holds only for inputs whose nested values (a row's
 * `Date`s) are never changed in place either, and whose fields are plain values, not
 * getters.
 */
export function frozenMemo<K extends object, V>(): (input: K, make: (input: K) => V) => V {
  const made = new WeakMap<K, V>();
  return (input, make) => {
    if (!Object.isFrozen(input)) return make(input);
    if (made.has(input)) return made.get(input) as V;
    const result = make(input);
    made.set(input, result);
    return result;
  };
}

/**
 * `make`, remembered for frozen inputs (see `frozenMemo`), its results frozen too. Cached
 * repository rows are frozen, so this turns the per-request mapping of a cached row into
 * a lookup.
 */
export function rememberedForFrozen<K extends object, V extends object>(make: (input: K) => V): (input: K) => V {
  const rememberFor = frozenMemo<K, V>();
  const makeFrozen = (input: K) => Object.freeze(make(input));
  return (input) => rememberFor(input, Object.isFrozen(input) ? makeFrozen : make);
}
