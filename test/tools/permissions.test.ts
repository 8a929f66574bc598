import { describe, expect, it } from 'vitest';
import { PERMISSION_MODES, type PermissionMode, type ToolClass } from '../../src/session/types.js';
import { decidePermission } from '../../src/tools/permissions.js';

const EXPECTED: Record<PermissionMode, Record<ToolClass, 'allow' | 'ask' | 'deny'>> = {
  plan: { inspect: 'allow', modify: 'deny', execute: 'deny' },
  default: { inspect: 'allow', modify: 'ask', execute: 'ask' },
  acceptEdits: { inspect: 'allow', modify: 'allow', execute: 'ask' },
  bypassPermissions: { inspect: 'allow', modify: 'allow', execute: 'allow' },
};

describe('decidePermission', () => {
  const cases = PERMISSION_MODES.flatMap((mode) =>
    (['inspect', 'modify', 'execute'] as const).map((toolClass) => ({
      mode,
      toolClass,
      expected: EXPECTED[mode][toolClass],
    })),
  );

  it('covers all four modes', () => {
    expect(new Set(PERMISSION_MODES)).toEqual(new Set(Object.keys(EXPECTED)));
    expect(cases).toHaveLength(12);
  });

  it.each(cases)('$mode x $toolClass -> $expected', ({ mode, toolClass, expected }) => {
    expect(decidePermission(mode, toolClass)).toBe(expected);
  });

  it('asks rather than throws for an unknown mode', () => {
    expect(decidePermission('yolo' as PermissionMode, 'execute')).toBe('ask');
  });
});
