import { describe, expect, it } from 'vitest';
import { withDeadline } from '../../src/call-deadline.js';
import { VirtualClock } from '../../src/clock.js';
import { isErrorCode } from '../../src/errors.js';

describe('withDeadline', () => {
  it('passes an answer that comes in time through, and its error as it is', async () => {
    const clock = new VirtualClock();
    const answered = withDeadline(async () => 'ok', { timeoutMs: 1000, what: 'Test send', clock });
    await expect(answered).resolves.toBe('ok');
    const refused = withDeadline(
      async () => {
        throw new Error('refused');
      },
      { timeoutMs: 1000, what: 'Test send', clock },
    );
    await expect(refused).rejects.toThrow('refused');
  });

  it('ends a call that never answers at the deadline with PLATFORM_TIMEOUT, and aborts its signal', async () => {
    const clock = new VirtualClock();
    let seen: AbortSignal | undefined;
    const hung = withDeadline(
      (signal) => {
        seen = signal;
        return new Promise<never>(() => {});
      },
      { timeoutMs: 1500, what: 'Test edit a message', clock },
    );
    let settled = false;
    hung.catch(() => undefined).finally(() => (settled = true));
    await clock.advance(1499);
    expect(settled).toBe(false);
    expect(seen?.aborted).toBe(false);
    await clock.advance(1);
    const err = await hung.catch((e: unknown) => e);
    expect(isErrorCode(err, 'PLATFORM_TIMEOUT')).toBe(true);
    expect((err as Error).message).toMatch(/^Test edit a message: no answer within 1.5 s/);
    expect(seen?.aborted).toBe(true);
  });
});
