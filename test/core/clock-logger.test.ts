import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { sleep, VirtualClock } from '../../src/clock.js';
import { createLogger, scrubSecrets } from '../../src/logger.js';

describe('VirtualClock', () => {
  it('fires timers in time order, including timers set by timers', async () => {
    const clock = new VirtualClock(1000);
    const fired: string[] = [];
    clock.setTimeout(() => {
      fired.push(`b@${clock.now()}`);
      clock.setTimeout(() => fired.push(`c@${clock.now()}`), 5);
    }, 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    const cancelled = clock.setTimeout(() => fired.push('never'), 15);
    clock.clearTimeout(cancelled);
    await clock.advance(100);
    expect(fired).toEqual(['a@1010', 'b@1020', 'c@1025']);
    expect(clock.now()).toBe(1100);
  });

  it('runs promise continuations between timers and rejects sleeps on abort', async () => {
    const clock = new VirtualClock();
    const order: number[] = [];
    void sleep(clock, 50).then(() => order.push(clock.now()));
    const ac = new AbortController();
    const aborted = sleep(clock, 500, ac.signal).catch(() => 'aborted');
    await clock.advance(60);
    ac.abort();
    expect(await aborted).toBe('aborted');
    expect(order).toEqual([50]);
    await clock.advanceUntil(() => order.length === 1);
  });
});

describe('logger', () => {
  it('scrubs configured secrets by value from every line', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const secret = '123456:AAE-very-secret-token';
    const log = createLogger({ secrets: [secret], destination: sink });
    log.error({ url: `https://api.telegram.org/bot${secret}/getMe`, token: 'abc' }, `failed with ${secret}`);
    log.flush();
    const out = lines.join('');
    expect(out).toContain('[redacted]');
    expect(out).not.toContain(secret);
    expect(out).not.toContain('"abc"');
    expect(scrubSecrets('a-short', ['short'])).toBe('a-short');
  });

  it('creates its log file readable by the bot user only, in either format', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'switchboard-logfile-'));
    try {
      for (const format of ['json', 'pretty'] as const) {
        const file = join(dir, 'logs', `${format}.log`);
        const log = createLogger({ file, format, level: 'info' });
        log.info('started');
        expect((await stat(file)).mode & 0o777).toBe(0o600);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
