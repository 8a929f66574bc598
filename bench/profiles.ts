/**
 * Reply profiles for the streaming benchmark: deterministic sequences of
 * timed text deltas (and tool events) that look like a model's output.
 * A token is taken as ~4 characters.
 */
import { seededRandom } from '../test/fakes/telegram/limits.js';

/** One step of a scripted reply. */
export type ProfileStep =
  | { at: number; kind: 'text'; text: string }
  | { at: number; kind: 'tool'; name: string; summary: string; durationMs: number }
  | { at: number; kind: 'approval'; waitMs: number };

/** A named reply profile. */
export interface ReplyProfile {
  name: string;
  steps: ProfileStep[];
  /** The reply's full text (what the chat must show at the end). */
  text: string;
  durationMs: number;
}

/** Small deterministic PRNG, so every run sees the same input. */
export const rng = seededRandom;

const WORDS =
  'the session keeps its history in a small record and appends each turn to a log so a restart loses nothing while edits stay paced by one scheduler per chat'.split(
    ' ',
  );

/**
 * Markdown-ish prose with paragraphs, lists and a code block every so often,
 * at least `chars` long. It ends after a whole block, so profiles built from
 * several pieces never leave a code fence open across them.
 */
export function prose(chars: number, seed: number): string {
  const r = rng(seed);
  let out = '';
  let para = 0;
  while (out.length < chars) {
    para++;
    if (para % 5 === 0) {
      out += '```ts\n';
      for (let i = 0; i < 6; i++) out += `const value${i} = compute(${Math.floor(r() * 100)});\n`;
      out += '```\n\n';
      continue;
    }
    if (para % 3 === 0) {
      for (let i = 0; i < 4; i++) out += `- **item ${i}** ${sentence(r, 8)}\n`;
      out += '\n';
      continue;
    }
    for (let s = 0; s < 4; s++) out += `${sentence(r, 14)} `;
    out += '\n\n';
  }
  return out;
}

function sentence(r: () => number, words: number): string {
  const w: string[] = [];
  for (let i = 0; i < words; i++) w.push(WORDS[Math.floor(r() * WORDS.length)] ?? 'word');
  const s = w.join(' ');
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;
}

/**
 * Cuts `text` into deltas of 1-3 tokens emitted at `tokensPerSecond`, with
 * optional bursts (several deltas at once) and pauses.
 */
export function timedDeltas(
  text: string,
  tokensPerSecond: number,
  seed: number,
  options: { startAt?: number; bursts?: boolean; pauses?: boolean } = {},
): { steps: ProfileStep[]; endAt: number } {
  const r = rng(seed);
  const steps: ProfileStep[] = [];
  let at = options.startAt ?? 0;
  let i = 0;
  let burst = 0;
  const msPerToken = 1000 / tokensPerSecond;
  while (i < text.length) {
    const tokens = 1 + Math.floor(r() * 3);
    const piece = text.slice(i, i + tokens * 4);
    i += piece.length;
    steps.push({ at: Math.round(at), kind: 'text', text: piece });
    // A burst: the next few deltas arrive at once (time never goes backwards, so order holds).
    if (burst > 0) burst--;
    else at += tokens * msPerToken;
    if (options.bursts && burst === 0 && r() < 0.02) burst = 4 + Math.floor(r() * 12);
    if (options.pauses && r() < 0.004) at += 1500 + r() * 2500; // the model thinks for a few seconds
  }
  return { steps, endAt: Math.round(at) };
}

/** ~200 tokens at 80 tokens/s. */
export function shortAnswer(): ReplyProfile {
  const text = prose(800, 1);
  const { steps, endAt } = timedDeltas(text, 80, 11);
  return { name: 'short', steps, text, durationMs: endAt };
}

/** ~6,000 tokens at 50 tokens/s with bursts and pauses. */
export function longAnswer(): ReplyProfile {
  const text = prose(24_000, 2);
  const { steps, endAt } = timedDeltas(text, 50, 22, { bursts: true, pauses: true });
  return { name: 'long', steps, text, durationMs: endAt };
}

/** Text, a tool call with a status line, an approval wait, more text. */
export function toolHeavy(): ReplyProfile {
  const first = prose(1200, 3);
  const second = prose(2400, 4);
  const a = timedDeltas(first, 60, 33);
  const steps: ProfileStep[] = [...a.steps];
  let at = a.endAt + 200;
  steps.push({ at, kind: 'tool', name: 'Read', summary: 'Read: src/app.ts', durationMs: 300 });
  at += 500;
  steps.push({ at, kind: 'approval', waitMs: 4000 });
  at += 4000;
  steps.push({ at, kind: 'tool', name: 'Bash', summary: 'Bash: npm test', durationMs: 2500 });
  at += 2700;
  const b = timedDeltas(second, 60, 44, { startAt: at });
  steps.push(...b.steps);
  return { name: 'tool-heavy', steps, text: first + second, durationMs: b.endAt };
}
