// A function of a text remembered by its argument, in a bounded memory: the language steps (stems, names, tense cues)
// see the same words and sentences again and again, and a stream of new texts must not grow the memory without end.

/** `fn` remembered for up to `max` distinct arguments; past that the memory starts over. */
export function remembered<R>(fn: (text: string) => R, max: number): (text: string) => R {
  const memory = new Map<string, R>();
  return (text) => {
    let result = memory.get(text);
    if (result === undefined && !memory.has(text)) {
      result = fn(text);
      if (memory.size >= max) memory.clear();
      memory.set(text, result);
    }
    return result as R;
  };
}
