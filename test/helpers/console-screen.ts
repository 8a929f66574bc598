/**
 * The terminal chat's output as a test reads it: everything written so far,
 * and a wait for a pattern to show (no sleeping: each write is checked).
 */
import { PassThrough } from 'node:stream';

/** A stream to give the console adapter as `output`, and what it shows. */
export interface WatchedScreen {
  output: PassThrough;
  /** Everything written so far. */
  text(): string;
  /** Resolves once the output matches `pattern`. */
  until(pattern: RegExp): Promise<void>;
}

/** Starts watching a new output stream. */
export function watchScreen(): WatchedScreen {
  const output = new PassThrough();
  let screen = '';
  const waiting: Array<() => void> = [];
  output.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    for (const check of [...waiting]) check();
  });
  return {
    output,
    text: () => screen,
    until: (pattern) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(screen)) return;
          waiting.splice(waiting.indexOf(check), 1);
          resolve();
        };
        waiting.push(check);
        check();
      }),
  };
}
