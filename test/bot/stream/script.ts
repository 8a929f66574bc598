/**
 * Helpers for outbox tests: a scripted reply (word tokens with bursts and
 * pauses, so visibility of each token can be measured) and a staleness
 * tracker over a RecordingAdapter.
 */

import type { ReplyStream } from '../../../src/bot/stream/types.js';
import type { VirtualClock } from '../../../src/clock.js';
import type { RecordingAdapter } from '../../fakes/recording-adapter.js';

export interface Delta {
  at: number;
  text: string;
}

/** Numbered words `w00001` in paragraphs, with a code fence in the middle. */
export function scriptedReply(options: {
  chars: number;
  durationMs: number;
  /** Bursts: text flows for `burstMs`, then nothing for `pauseMs`. */
  burstMs?: number;
  pauseMs?: number;
  deltaEveryMs?: number;
  codeAt?: number;
}): { deltas: Delta[]; text: string } {
  const tokens: string[] = [];
  let length = 0;
  let n = 0;
  while (length < options.chars) {
    let token = `w${String(n).padStart(5, '0')} `;
    if (n % 23 === 22) token += '\n\n';
    if (options.codeAt !== undefined && length < options.codeAt && length + token.length >= options.codeAt) {
      token += '\n\n```ts\n';
      for (let i = 0; i < 40; i++) token += `const c${i} = ${i}; // w${String(n).padStart(5, '0')}c${i}\n`;
      token += '```\n\n';
    }
    tokens.push(token);
    length += token.length;
    n++;
  }
  const every = options.deltaEveryMs ?? 50;
  const burst = options.burstMs ?? options.durationMs;
  const pause = options.pauseMs ?? 0;
  const deltas: Delta[] = [];
  // Place tokens only inside bursts, evenly over the active time.
  const activeSlots: number[] = [];
  for (let t = 0; t < options.durationMs; t += every) if (t % (burst + pause) < burst) activeSlots.push(t);
  const texts: string[] = activeSlots.map(() => '');
  tokens.forEach((token, i) => {
    texts[Math.floor((i * activeSlots.length) / tokens.length)] += token;
  });
  activeSlots.forEach((at, i) => {
    if (texts[i]) deltas.push({ at, text: texts[i]! });
  });
  return { deltas, text: tokens.join('') };
}

/** Appends `deltas` at their times (relative to the clock's time now). */
export async function play(clock: VirtualClock, reply: ReplyStream, deltas: Delta[]): Promise<void> {
  const t0 = clock.now();
  for (const d of deltas) {
    const wait = t0 + d.at - clock.now();
    if (wait > 0) await clock.advance(wait);
    reply.append(d.text);
  }
}

/**
 * Records when each word token (`w00012`) first becomes visible in any
 * message or stream of the adapter, to compare with when it was appended.
 */
export function trackVisibility(adapter: RecordingAdapter): { firstSeen: Map<string, number> } {
  const firstSeen = new Map<string, number>();
  adapter.on('op', (op: { ok: boolean; text?: string; time: number }) => {
    if (!op.ok || !op.text) return;
    for (const m of op.text.matchAll(/w\d{5}(?!c)/g)) if (!firstSeen.has(m[0])) firstSeen.set(m[0], op.time);
  });
  return { firstSeen };
}

/** Staleness of every word: time from append to first visibility. */
export function staleness(deltas: Delta[], firstSeen: Map<string, number>, t0 = 0): number[] {
  const out: number[] = [];
  for (const d of deltas) {
    for (const m of d.text.matchAll(/w\d{5}(?!c)/g)) {
      const seen = firstSeen.get(m[0]);
      out.push(seen === undefined ? Number.POSITIVE_INFINITY : seen - (t0 + d.at));
    }
  }
  return out;
}

/** Words in order across strings (each exactly once). */
export function wordsIn(texts: string[]): string[] {
  return texts.join('\n').match(/w\d{5}(?!c)/g) ?? [];
}
