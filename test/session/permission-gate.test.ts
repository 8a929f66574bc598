import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { TypedEmitter } from '../../src/session/emitter.js';
import { PermissionGate } from '../../src/session/permissions.js';
import type { PendingPermission, SessionEvents } from '../../src/session/types.js';

const request = {
  toolName: 'Bash',
  toolArgs: { command: 'ls' },
  summary: 'Bash: ls',
  toolClass: 'execute' as const,
};

function setup(timeoutMs = 1_000, deadline?: () => number | undefined) {
  const clock = new VirtualClock();
  const emitter = new TypedEmitter<SessionEvents>();
  const gate = new PermissionGate(emitter, { clock, timeoutMs, ...(deadline ? { deadline } : {}) });
  const seen: PendingPermission[] = [];
  const asked = (i: number) => seen[i] as PendingPermission;
  return {
    clock,
    gate,
    asked,
    listen: () => emitter.on('permission_request', (r) => seen.push(r)),
  };
}

describe('PermissionGate', () => {
  it('denies at once when nobody listens for permission_request', async () => {
    const { gate, clock } = setup();
    await expect(gate.request(request, new AbortController().signal)).resolves.toBe('unanswered');
    expect(clock.pending).toBe(0);
  });

  it('the first answer wins; a later one changes nothing', async () => {
    const { gate, asked, listen } = setup();
    listen();
    const outcome = gate.request(request, new AbortController().signal);
    expect(asked(0)).toMatchObject({ toolName: 'Bash', summary: 'Bash: ls', toolClass: 'execute' });
    expect(Buffer.byteLength(asked(0).id)).toBeLessThanOrEqual(16);
    expect(asked(0).answer('allow-session')).toBe(true);
    expect(asked(0).answer('deny')).toBe(false);
    await expect(outcome).resolves.toBe('allow-session');
    await expect(asked(0).settled).resolves.toBe('allow-session');
  });

  it('accepts true/false/"allow"/"deny"', async () => {
    const { gate, asked, listen } = setup();
    listen();
    const answers = [true, false, 'allow', 'deny'] as const;
    const expected = ['allow', 'deny', 'allow', 'deny'];
    for (const [i, answer] of answers.entries()) {
      const p = gate.request(request, new AbortController().signal);
      asked(i).answer(answer);
      await expect(p).resolves.toBe(expected[i]);
    }
  });

  it('one timer per waiting request: it ends the wait at the deadline, and is gone after an answer', async () => {
    const { gate, asked, listen, clock } = setup(600_000);
    listen();
    let outcome: string | undefined;
    void gate.request(request, new AbortController().signal).then((o) => {
      outcome = o;
    });
    expect(clock.pending).toBe(1);
    expect(asked(0).deadline).toBe(600_000);
    await clock.advance(599_999);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    expect(outcome).toBe('timeout');
    expect(asked(0).answer(true)).toBe(false);
    expect(clock.pending).toBe(0);
    void gate.request(request, new AbortController().signal);
    expect(clock.pending).toBe(1);
    asked(1).answer('deny');
    expect(clock.pending).toBe(0);
  });

  it('waits until the deadline its paused turn was saved with', async () => {
    const { gate, asked, listen, clock } = setup(600_000, () => 5_000);
    listen();
    const outcome = gate.request(request, new AbortController().signal);
    expect(asked(0).deadline).toBe(5_000);
    await clock.advance(5_000);
    await expect(outcome).resolves.toBe('timeout');
  });

  it('an abort settles the waiting request as aborted and clears its timer', async () => {
    const { gate, asked, listen, clock } = setup();
    listen();
    const controller = new AbortController();
    const a = gate.request(request, controller.signal);
    controller.abort();
    await expect(a).resolves.toBe('aborted');
    expect(asked(0).answer('allow')).toBe(false);
    expect(clock.pending).toBe(0);
    await expect(gate.request(request, controller.signal)).resolves.toBe('aborted');
  });
});
