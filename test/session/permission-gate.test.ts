import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { TypedEmitter } from '../../src/session/emitter.js';
import { PermissionGate } from '../../src/session/permissions.js';
import type { PermissionRequest, SessionEvents } from '../../src/session/types.js';

const request = {
  toolName: 'Bash',
  toolArgs: { command: 'ls' },
  summary: 'Bash: ls',
  toolClass: 'execute' as const,
};

function setup(timeoutMs = 1_000) {
  const clock = new VirtualClock();
  const emitter = new TypedEmitter<SessionEvents>();
  const gate = new PermissionGate(emitter, clock, timeoutMs);
  const seen: PermissionRequest[] = [];
  return { clock, emitter, gate, seen, listen: () => emitter.on('permission_request', (r) => seen.push(r)) };
}

describe('PermissionGate', () => {
  it('denies at once when nobody listens for permission_request', async () => {
    const { gate } = setup();
    await expect(gate.request(request, new AbortController().signal)).resolves.toBe('unanswered');
  });

  it('the first answer wins; later and unknown ids are ignored', async () => {
    const { gate, seen, listen } = setup();
    listen();
    const outcome = gate.request(request, new AbortController().signal);
    const id = seen[0]?.id as string;
    expect(seen[0]).toMatchObject({ toolName: 'Bash', summary: 'Bash: ls', toolClass: 'execute' });
    expect(Buffer.byteLength(id)).toBeLessThanOrEqual(16);
    expect(gate.resolve(id, 'allow-session')).toBe(true);
    expect(gate.resolve(id, 'deny')).toBe(false);
    expect(gate.resolve('nope', true)).toBe(false);
    await expect(outcome).resolves.toBe('allow-session');
  });

  it('accepts true/false/"allow"/"deny"', async () => {
    const { gate, seen, listen } = setup();
    listen();
    const answers = [true, false, 'allow', 'deny'] as const;
    const expected = ['allow', 'deny', 'allow', 'deny'];
    for (const [i, answer] of answers.entries()) {
      const p = gate.request(request, new AbortController().signal);
      gate.resolve(seen[i]?.id as string, answer);
      await expect(p).resolves.toBe(expected[i]);
    }
  });

  it('denies after the timeout on the injected clock', async () => {
    const { gate, seen, listen, clock } = setup(600_000);
    listen();
    let outcome: string | undefined;
    void gate.request(request, new AbortController().signal).then((o) => {
      outcome = o;
    });
    await clock.advance(599_999);
    expect(outcome).toBeUndefined();
    await clock.advance(1);
    expect(outcome).toBe('timeout');
    expect(gate.resolve(seen[0]?.id as string, true)).toBe(false);
    expect(clock.pending).toBe(0);
  });

  it('an abort or denyAll settles pending requests as aborted', async () => {
    const { gate, listen, clock } = setup();
    listen();
    const controller = new AbortController();
    const a = gate.request(request, controller.signal);
    const b = gate.request(request, new AbortController().signal);
    controller.abort();
    await expect(a).resolves.toBe('aborted');
    gate.denyAll();
    await expect(b).resolves.toBe('aborted');
    expect(gate.pendingCount).toBe(0);
    expect(clock.pending).toBe(0);
  });
});
