import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../../src/bot/access.js';
import { approvalButtons, decodeButton, encodeButton, shortId, stopButtons } from '../../src/bot/buttons.js';
import { normalizeCommandName } from '../../src/bot/commands.js';
import { intake } from '../../src/bot/intake.js';
import { say } from '../../src/bot/text.js';
import { workspaceFolderName } from '../../src/session/factory.js';

describe('button payloads', () => {
  it('round-trips every action and fits Telegram callback_data (64 bytes)', () => {
    const id = shortId();
    expect(id).toMatch(/^[0-9a-z]{10}$/);
    for (const action of ['allow', 'allow-session', 'always', 'prefix', 'deny', 'stop', 'extend'] as const) {
      const payload = encodeButton(action, id);
      expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(64);
      expect(decodeButton(payload)).toEqual({ action, id });
    }
    const rows = [...approvalButtons(id), ...stopButtons(id)];
    expect(rows.flat().map((b) => b.payload)).toEqual([
      `a:${id}`,
      `s:${id}`,
      `r:${id}`,
      `d:${id}`,
      `x:${id}`,
    ]);
  });

  it('rejects payloads it did not make', () => {
    for (const bad of ['', 'a:', 'q:abc', 'a:ABC', 'a:../x', `a:${'z'.repeat(25)}`, 'a:abc:def', 'allow']) {
      expect(decodeButton(bad)).toBeUndefined();
    }
    expect(() => encodeButton('allow', 'Not Valid')).toThrow(/Button ids/);
  });

  it('gives different ids each time', () => {
    const ids = new Set(Array.from({ length: 200 }, () => shortId()));
    expect(ids.size).toBe(200);
  });
});

describe('access policy', () => {
  const access = new AccessPolicy({
    allowedUsers: ['telegram:1', 'slack:U9'],
    admins: ['discord:7'],
    linkedUsers: { alice: ['telegram:1', 'slack:U1'] },
  });

  it('allows listed users, linked ids of listed people and admins; refuses others', () => {
    expect(access.check('telegram:1')).toBe('allowed');
    expect(access.check('slack:U1')).toBe('allowed');
    expect(access.check('discord:7')).toBe('allowed');
    expect(access.check('telegram:2')).toBe('denied');
    expect(access.check('slack:U1x')).toBe('denied');
  });

  it('linked ids share one owner key', () => {
    expect(access.ownerKey('telegram:1')).toBe('alice');
    expect(access.ownerKey('slack:U1')).toBe('alice');
    expect(access.ownerKey('slack:U9')).toBe('slack:U9');
    expect(access.owns('slack:U1', 'alice')).toBe(true);
    expect(access.owns('slack:U1', 'telegram:1')).toBe(true);
    expect(access.owns('slack:U9', 'alice')).toBe(false);
    expect(access.owns('slack:U9', undefined)).toBe(false);
  });

  it('knows admins', () => {
    expect(access.isAdmin('discord:7')).toBe(true);
    expect(access.isAdmin('telegram:1')).toBe(false);
  });

  it('with no allowlist, nobody is allowed but a trusted platform (the terminal) operator', () => {
    const open = new AccessPolicy({ trustedPlatforms: ['console'] });
    expect(open.configured).toBe(false);
    expect(open.check('telegram:1')).toBe('no-allowlist');
    expect(open.check('console:local')).toBe('allowed');
    expect(new AccessPolicy({}).check('console:local')).toBe('no-allowlist');
  });
});

describe('small helpers', () => {
  it('normalizes command names', () => {
    expect(normalizeCommandName('/Compact@my_bot')).toBe('compact');
    expect(normalizeCommandName('status')).toBe('status');
  });

  it('sanitizes chat keys into folder names', () => {
    expect(workspaceFolderName('slack:C1:17.2')).toBe('slack_C1_17.2');
    expect(workspaceFolderName('../../etc')).toBe('__.._etc');
    expect(workspaceFolderName('')).toBe('_');
  });

  it('keeps error lines to one line', () => {
    expect(say.turnError('Overloaded:\n  try again\tlater')).toBe('⚠️ Overloaded: try again later');
    expect(say.turnError('x'.repeat(1000))).toHaveLength(2 + 400 + 1 + 1);
    // The request-id the API gave the failed call survives the shortening.
    expect(say.turnError(`${'x'.repeat(1000)} (request req_011CabcXYZ)`)).toBe(
      `⚠️ ${'x'.repeat(400)}… (request req_011CabcXYZ)`,
    );
  });

  it('names what it cannot read', () => {
    expect(say.unreadable([{ kind: 'audio' }])).toBe("I can't read voice messages yet; please send text.");
    expect(say.unreadable([{ kind: 'audio' }, { kind: 'video' }, { kind: 'audio' }])).toBe(
      "I can't read voice messages or videos yet; please send text.",
    );
  });

  it('runs events of one chat in order, other chats independently', async () => {
    const run = intake();
    const seen: string[] = [];
    let releaseA!: () => void;
    const gate = new Promise<void>((r) => {
      releaseA = r;
    });
    const a1 = run('a', async () => {
      await gate;
      seen.push('a1');
    });
    const a2 = run('a', async () => {
      seen.push('a2');
    });
    await run('b', async () => {
      seen.push('b1');
    });
    expect(seen).toEqual(['b1']);
    releaseA();
    await Promise.all([a1, a2]);
    expect(seen).toEqual(['b1', 'a1', 'a2']);
    // A failure does not block the chat's next event.
    await expect(run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await run('a', async () => {
      seen.push('a3');
    });
    expect(seen.at(-1)).toBe('a3');
  });
});
