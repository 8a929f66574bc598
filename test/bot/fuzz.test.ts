import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/bot/commands.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  h = await startBotHarness();
});
afterAll(async () => {
  await h.close();
  process.off('unhandledRejection', onUnhandled);
});

const names = fc.oneof(
  fc.constantFrom(
    ...Object.keys(COMMANDS).filter((n) => n !== 'new' && n !== 'fork'),
    'Status',
    'help@bot',
    '',
  ),
  fc.string({ maxLength: 30 }),
);
const args = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.constantFrom(
    '../../etc',
    'a'.repeat(70),
    'x\u0000y',
    '\u202e',
    'bypassPermissions',
    'plan',
    ' ',
    '`rm -rf /`',
  ),
);

describe('bot core: hostile input', () => {
  it('any command name and arguments get exactly one answer and never crash the core', async () => {
    await fc.assert(
      fc.asyncProperty(
        names,
        args,
        fc.constantFrom(USERS.alice, USERS.bob, USERS.stranger),
        async (name, a, user) => {
          const answers = await h.command(name, a, { user, respond: true });
          await h.until(() => answers.length > 0, `/${name} answer`);
          await h.clock.advance(10);
          expect(answers).toHaveLength(1);
          expect(answers[0]?.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 60 },
    );
    await h.settle();
    expect(unhandled).toEqual([]);
  });

  it('any button payload gets exactly one answer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.string({ maxLength: 70 }), fc.stringMatching(/^[asdx]:[0-9a-z]{1,30}$/)),
        async (p) => {
          const answers = await h.press(p);
          await h.clock.advance(10);
          expect(answers).toHaveLength(1);
        },
      ),
      { numRuns: 100 },
    );
    expect(unhandled).toEqual([]);
  });
});
