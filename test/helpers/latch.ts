/**
 * A promise a test opens when it chooses: given to the fake Messages API as
 * `release`, it keeps a model reply open (and its turn running) until then.
 */
export function latch(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
