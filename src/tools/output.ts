/**
 * A bounded capture of a command's output. Keeps the beginning and the end
 * (where errors and summaries usually are) and counts what was dropped in
 * between, so a noisy command cannot fill memory or the model's context.
 */
export class CappedOutput {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head = '';
  #tail = '';
  #omitted = 0;

  /** @param maxChars most characters kept in total (head plus tail). */
  constructor(maxChars: number) {
    this.#headMax = Math.ceil(maxChars / 2);
    this.#tailMax = maxChars - this.#headMax;
  }

  /** Adds the next piece of output, in the order it arrived. */
  append(chunk: string): void {
    let rest = chunk;
    if (this.#head.length < this.#headMax) {
      const take = rest.slice(0, this.#headMax - this.#head.length);
      this.#head += take;
      rest = rest.slice(take.length);
    }
    if (rest.length === 0) return;
    this.#tail += rest;
    // Trim in batches rather than on every chunk, to keep appends cheap.
    if (this.#tail.length > this.#tailMax * 2 + 4096) this.#trim();
  }

  /** Characters dropped so far. */
  get omitted(): number {
    this.#trim();
    return this.#omitted;
  }

  /** The captured text, with a `[output truncated: N characters omitted]` note where text was dropped. */
  text(): string {
    this.#trim();
    if (this.#omitted === 0) return this.#head + this.#tail;
    return `${this.#head}\n[output truncated: ${this.#omitted} characters omitted]\n${this.#tail}`;
  }

  #trim(): void {
    const extra = this.#tail.length - this.#tailMax;
    if (extra <= 0) return;
    this.#omitted += extra;
    this.#tail = this.#tail.slice(extra);
  }
}
