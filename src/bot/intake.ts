/**
 * Keeps the events of one chat in arrival order while they are checked
 * (delivery id, allowlist), without making one chat wait for another.
 */

/** Runs `fn` after every earlier call with the same key has settled. */
export type OrderedRunner = (key: string, fn: () => Promise<void>) => Promise<void>;

/** A per-key promise chain that forgets keys once they fall idle. */
export function intake(): OrderedRunner {
  const tails = new Map<string, Promise<void>>();
  return (key, fn) => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(fn);
    const tail = run.catch(() => {});
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}
