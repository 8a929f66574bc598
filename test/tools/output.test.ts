import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CappedOutput } from '../../src/tools/output.js';

function capture(chunks: string[], max: number): string {
  const output = new CappedOutput(max);
  for (const chunk of chunks) output.append(chunk);
  return output.text();
}

describe('CappedOutput', () => {
  it('keeps everything under the cap', () => {
    expect(capture(['ab', 'cd'], 10)).toBe('abcd');
  });

  it('keeps the head and the tail and counts what was cut', () => {
    expect(capture(['0123456789', 'abcdefghij'], 6)).toBe(
      '012\n[output truncated: 14 characters omitted]\nhij',
    );
  });

  it('whatever the chunking, equals head + note + tail of the whole text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 3000 }), { maxLength: 20 }),
        fc.integer({ min: 2, max: 500 }),
        (chunks, max) => {
          const whole = chunks.join('');
          const got = capture(chunks, max);
          if (whole.length <= max) return got === whole;
          const head = Math.ceil(max / 2);
          const tail = max - head;
          return (
            got ===
            `${whole.slice(0, head)}\n[output truncated: ${whole.length - max} characters omitted]\n${whole.slice(whole.length - tail)}`
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});
