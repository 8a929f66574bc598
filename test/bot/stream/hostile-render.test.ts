/**
 * Hostile Markdown through the real outbox: each shape streams into one chat
 * while an ordinary reply streams into another. The hostile reply arrives
 * whole (nothing lost to rendering), and the other chat keeps getting its
 * edits at its pace the whole time: rendering one chat never stalls another.
 * The worst wall time of one virtual 100 ms step is printed as a figure; the
 * benchmark (bench/rendering.ts) makes the timing claims.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbox } from '../../../src/bot/stream/index.js';
import { VirtualClock } from '../../../src/clock.js';
import { hostileShapes } from '../../fakes/markdown-shapes.js';
import { RecordingAdapter } from '../../fakes/recording-adapter.js';
import { telegramHtml } from '../../helpers/dialects.js';
import { scriptedReply, wordsIn } from './script.js';

let adapter: RecordingAdapter | undefined;
afterEach(() => adapter?.removeAllListeners());

const STEP_MS = 100;
const DELTAS = 40;

describe('hostile Markdown through the outbox', () => {
  for (const [name, md] of Object.entries(hostileShapes())) {
    it(`streams ${name} whole while another chat keeps streaming`, async () => {
      const clock = new VirtualClock();
      adapter = new RecordingAdapter({
        clock,
        latencyMs: 50,
        capabilities: { maxMessageLength: 4096, minEditIntervalMs: 1000, dialect: telegramHtml },
      });
      const outbox = createOutbox({ adapters: [adapter], clock });
      const hostile = outbox.stream('test:hostile');
      const other = outbox.stream('test:other');
      const ordinary = scriptedReply({ chars: 3000, durationMs: DELTAS * STEP_MS });
      const chunk = Math.ceil(md.length / DELTAS);
      let worstStepMs = 0;
      for (let i = 0; i < DELTAS; i++) {
        hostile.append(md.slice(i * chunk, (i + 1) * chunk));
        for (const d of ordinary.deltas.filter((x) => x.at >= i * STEP_MS && x.at < (i + 1) * STEP_MS)) {
          other.append(d.text);
        }
        const started = performance.now();
        await clock.advance(STEP_MS);
        worstStepMs = Math.max(worstStepMs, performance.now() - started);
      }
      const done = Promise.all([hostile.finish(), other.finish()]);
      await clock.advanceUntil(() => adapter!.ops.length > 0, 1000);
      await clock.advance(30_000);
      const [hostileDone, otherDone] = await done;
      console.log(`${name}: worst wall time of one 100 ms step ${worstStepMs.toFixed(1)} ms`);

      expect(adapter.violations).toEqual([]);
      // The hostile reply: delivered whole, its last words visible.
      expect(hostileDone.text).toBe(md);
      const hostileText = adapter.visibleText('test:hostile');
      const lastWord = /[a-z]+ed\b/.exec(md.slice(-20))?.[0];
      if (lastWord) expect(hostileText).toContain(lastWord);
      else expect(hostileText.split('[').length - 1).toBe(md.length);
      // The other chat: every word once, in order, and edited about once a second
      // while the hostile reply streamed (one edit per message per 1000 ms).
      expect(otherDone.text).toBe(ordinary.text);
      expect(wordsIn(adapter.chatMessages('test:other').map((m) => m.text))).toEqual(
        ordinary.text.match(/w\d{5}/g),
      );
      const otherCalls = adapter.ops.filter(
        (o) => o.ok && o.chat === 'test:other' && o.time <= DELTAS * STEP_MS,
      );
      expect(otherCalls.length).toBeGreaterThanOrEqual((DELTAS * STEP_MS) / 1000 - 1);
    });
  }
});
