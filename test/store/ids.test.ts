import { describe, expect, it } from 'vitest';
import { isErrorCode } from '../../src/errors.js';
import { newSessionId, validateSessionId, validateSessionName } from '../../src/store/index.js';

const invalidName = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return isErrorCode(err, 'INVALID_NAME') ? (err as Error).message : `wrong error: ${err}`;
  }
  return 'no error';
};

describe('validateSessionId', () => {
  it.each(['a', 'S1', 'mi3k2v9qa-4fz1qk', '0_x-y', 'x'.repeat(64)])('accepts %s', (id) => {
    expect(validateSessionId(id)).toBe(id);
  });

  it.each([
    '',
    '../../etc',
    'a/b',
    'a\\b',
    '.hidden',
    '-x',
    '_x',
    'a b',
    'a.json',
    'x'.repeat(65),
    'é',
    'a\n',
  ])('refuses %j and says what is allowed', (id) => {
    expect(invalidName(() => validateSessionId(id))).toMatch(/letters, digits, "_" or "-"/);
  });

  it('keeps a huge id out of the message', () => {
    expect(invalidName(() => validateSessionId('y'.repeat(10_000))).length).toBeLessThan(200);
  });
});

describe('validateSessionName', () => {
  it('trims and accepts up to 64 characters, emoji included', () => {
    expect(validateSessionName('  refactor parser ')).toBe('refactor parser');
    expect(validateSessionName('🚀'.repeat(64))).toBe('🚀'.repeat(64));
    expect(validateSessionName('v1.2 notes')).toBe('v1.2 notes');
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'n'.repeat(65)],
    ['a control character', 'bell\u0007'],
    ['a newline', 'two\nlines'],
    ['a bidi override', 'abc\u202Edef'],
    ['a slash', 'a/b'],
    ['a backslash', 'a\\b'],
    ['dot dot', '../../etc'],
  ])('refuses a name that is %s', (_what, name) => {
    expect(invalidName(() => validateSessionName(name))).toMatch(/1 to 64 characters/);
  });
});

describe('newSessionId', () => {
  it('makes valid, unique ids that sort in creation order', () => {
    const ids = Array.from({ length: 5000 }, () => newSessionId());
    for (const id of ids.slice(0, 50)) expect(validateSessionId(id)).toBe(id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]?.length).toBeLessThanOrEqual(20);
  });

  it('sorts by the time given', () => {
    const later = newSessionId(Date.parse('2030-01-01T00:00:00Z'));
    const muchLater = newSessionId(Date.parse('2040-01-01T00:00:00Z'));
    expect(later < muchLater).toBe(true);
  });
});
