import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { PERMISSION_MODES, type PendingPermission, type PermissionMode } from '../../src/session/index.js';
import { createMemorySessionStore } from '../../src/store/index.js';
import { recordEvents, useSessionFixture } from './helpers.js';

const fx = useSessionFixture();
const session = (options: Parameters<typeof fx.session>[0] = {}) => fx.session(options);

beforeEach(async () => {
  await writeFile(join(fx.cwd, 'notes.txt'), 'alpha\nbeta\n');
});

const CALLS = {
  inspect: { name: 'Read', input: { file_path: 'notes.txt' } },
  modify: { name: 'Write', input: { file_path: 'out.txt', content: 'written' } },
  execute: { name: 'Bash', input: { command: 'echo ran-bash' } },
} as const;

const EXPECTED: Record<PermissionMode, Record<keyof typeof CALLS, 'allow' | 'ask' | 'deny'>> = {
  plan: { inspect: 'allow', modify: 'deny', execute: 'deny' },
  default: { inspect: 'allow', modify: 'ask', execute: 'ask' },
  acceptEdits: { inspect: 'allow', modify: 'allow', execute: 'ask' },
  bypassPermissions: { inspect: 'allow', modify: 'allow', execute: 'allow' },
};

// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fx.fake.
function toolResultOf(body: any): { content: string; is_error?: boolean } {
  return body.messages.at(-1).content.find((b: { type: string }) => b.type === 'tool_result');
}

describe('permission modes x tool classes (built-in tools)', () => {
  for (const mode of PERMISSION_MODES) {
    for (const toolClass of Object.keys(CALLS) as Array<keyof typeof CALLS>) {
      const expected = EXPECTED[mode][toolClass];
      it(`${mode} / ${toolClass} -> ${expected}`, async () => {
        const s = session({ permissionMode: mode });
        const rec = recordEvents(s);
        // Approve whatever is asked, so "ask" shows up as a request that then runs.
        s.on('permission_request', (r) => r.answer('allow'));
        fx.fake.enqueue({ toolUse: [CALLS[toolClass]] }, { text: 'done' });
        await (await s.submit('go')).completed;
        const asked = rec.of('permission_request');
        const status = rec.of('tool_end')[0]?.[0].status;
        const result = toolResultOf(fx.fake.requests[1]);
        if (expected === 'deny') {
          expect(asked).toHaveLength(0);
          expect(status).toBe('denied');
          expect(result.content).toContain(`not allowed in ${mode} mode`);
        } else {
          expect(asked).toHaveLength(expected === 'ask' ? 1 : 0);
          expect(status).toBe('ok');
          expect(result.is_error).toBeFalsy();
        }
        if (expected === 'ask') {
          expect(asked[0]?.[0]).toMatchObject({ toolName: CALLS[toolClass].name, toolClass });
        }
        if (toolClass === 'modify') {
          const written = await readFile(join(fx.cwd, 'out.txt'), 'utf8').catch(() => undefined);
          expect(written).toBe(expected === 'deny' ? undefined : 'written');
        }
        if (toolClass === 'execute' && expected !== 'deny') expect(result.content).toContain('ran-bash');
      });
    }
  }
});

describe('permission requests', () => {
  it('denies a request nobody listens for', async () => {
    const s = session();
    const rec = recordEvents(s, { answerPermissions: false });
    fx.fake.enqueue({ toolUse: [CALLS.execute] }, { text: 'ok' });
    await (await s.submit('go')).completed;
    expect(rec.of('tool_end')[0]?.[0].status).toBe('denied');
    expect(toolResultOf(fx.fake.requests[1]).content).toContain('nobody was available');
  });

  it('a user denial reaches the model as a denied result', async () => {
    const s = session();
    s.on('permission_request', (r) => r.answer(false));
    fx.fake.enqueue({ toolUse: [CALLS.modify] }, { text: 'ok' });
    await (await s.submit('go')).completed;
    expect(toolResultOf(fx.fake.requests[1])).toMatchObject({ is_error: true });
    expect(toolResultOf(fx.fake.requests[1]).content).toContain('refused');
  });

  it('allow-session covers the same command only, and is saved with the session', async () => {
    const store = createMemorySessionStore();
    const s = session({ sessionStore: store });
    const asked: string[] = [];
    s.on('permission_request', (r) => {
      asked.push(r.summary);
      r.answer('allow-session');
      // A second answer to the same request is ignored.
      expect(r.answer('deny')).toBe(false);
    });
    fx.fake.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'echo one' } }] },
      { toolUse: [{ name: 'Bash', input: { command: 'echo one' } }] },
      { toolUse: [{ name: 'Bash', input: { command: 'echo two' } }] },
      { text: 'done' },
    );
    await (await s.submit('go')).completed;
    expect(asked).toEqual(['Bash: echo one', 'Bash: echo two']);
    await s.close();
    const saved = await store.load(s.getSession().getSessionId());
    expect(saved.status === 'valid' && saved.record.allowedScopes).toEqual([
      'Bash:echo one',
      'Bash:echo two',
    ]);
  });

  it('an unanswered request is denied after permissionTimeoutMs on the session clock', async () => {
    const clock = new VirtualClock(Date.UTC(2026, 0, 1));
    const s = session({ clock, permissionTimeoutMs: 60_000 });
    const requested = new Promise<PendingPermission>((resolve) => s.on('permission_request', resolve));
    fx.fake.enqueue({ toolUse: [CALLS.execute] }, { text: 'ok' });
    const turn = s.submit('go');
    const request = await requested;
    expect(request.deadline).toBe(clock.now() + 60_000);
    await clock.advance(59_999);
    expect(s.isRunning()).toBe(true);
    await clock.advance(1);
    await (await turn).completed;
    expect(toolResultOf(fx.fake.requests[1]).content).toContain('no answer within 60 s');
    await expect(request.settled).resolves.toBe('timeout');
    expect(request.answer(true)).toBe(false);
  });

  it('abort denies a pending permission prompt and answers the call as interrupted', async () => {
    const s = session();
    const rec = recordEvents(s);
    const requested = new Promise<PendingPermission>((resolve) => s.on('permission_request', resolve));
    fx.fake.enqueue({ toolUse: [CALLS.execute] });
    const turn = s.submit('go');
    const request = await requested;
    s.abort();
    const result = await (await turn).completed;
    expect(result.state).toBe('interrupted');
    expect(rec.of('tool_end')[0]?.[0].status).toBe('interrupted');
    await expect(request.settled).resolves.toBe('aborted');
    expect(request.answer(true)).toBe(false);
  });

  it('the permission mode is changed through getSession() and saved', async () => {
    const store = createMemorySessionStore();
    const s = session({ sessionStore: store });
    await s.ready;
    s.getSession().setPermissionMode('plan');
    expect(s.getSession().getPermissionMode()).toBe('plan');
    expect(() => s.getSession().setPermissionMode('yolo' as PermissionMode)).toThrow(
      /Unknown permission mode/,
    );
    await s.close();
    const saved = await store.load(s.getSession().getSessionId());
    expect(saved.status === 'valid' && saved.record.permissionMode).toBe('plan');
  });
});
