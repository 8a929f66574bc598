/**
 * Fuzzing what people type and press: random command names and arguments
 * (known commands with hostile arguments, unknown ones, unicode, control
 * characters, very long text), random button payloads and edits of random
 * message ids, from allowed users, an admin and a stranger, interleaved with
 * ordinary messages, through the real bot core. Nothing throws or rejects
 * unhandled, every command and press gets exactly one answer, and the chat
 * still works afterwards.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatEvent, ChatUser } from '../../src/bot/adapter-contract.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';
import { watchUnhandled } from '../reliability/telegram-world.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const KNOWN = ['new', 'compact', 'rename', 'stop', 'status', 'sessions', 'resume', 'fork', 'mode', 'help'];
const hostile = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.constantFrom(
    '',
    ' ',
    '../../etc',
    'bypassPermissions',
    'plan',
    'acceptEdits',
    'x'.repeat(5000),
    '\u0000\u0007\u001b[2J',
    '\u202eevil',
    '@everyone',
    '<script>alert(1)</script>',
    '$(rm -rf /)',
    '%s%s%n',
    'null',
    '__proto__',
    'constructor',
  ),
);
const user = fc.constantFrom<ChatUser>(USERS.alice, USERS.bob, USERS.admin, USERS.stranger);
type Step =
  | { kind: 'command'; name: string; args: string; user: ChatUser }
  | { kind: 'button'; payload: string; user: ChatUser }
  | { kind: 'edit'; messageId: string; text: string; user: ChatUser }
  | { kind: 'message'; text: string; user: ChatUser };
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('command' as const),
      name: fc.oneof(fc.constantFrom(...KNOWN), fc.string({ maxLength: 20 })),
      args: hostile,
      user,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('button' as const),
      payload: fc.oneof(hostile, fc.stringMatching(/^[asdx]:[0-9a-z]{1,12}$/)),
      user,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      messageId: fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('1000', '1001')),
      text: hostile,
      user,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('message' as const), text: hostile, user }) },
);

describe('fuzz: commands, buttons and edits from chat input', () => {
  it('every command and press is answered once; nothing rejects unhandled; the chat still works', async () => {
    const unhandled = watchUnhandled();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 30 }), async (steps) => {
        h = await startBotHarness();
        const harness = h;
        const answers: string[][] = [];
        for (const s of steps) {
          const base = { chat: harness.chat, user: s.user };
          const got: string[] = [];
          const respond = async ({ text }: { text: string }) => {
            got.push(text);
          };
          let event: ChatEvent;
          if (s.kind === 'command') {
            event = { type: 'command', ...base, name: s.name, args: s.args, respond };
            answers.push(got);
          } else if (s.kind === 'button') {
            event = { type: 'button', ...base, payload: s.payload, respond };
            answers.push(got);
          } else if (s.kind === 'edit') {
            event = { type: 'edit', ...base, messageId: s.messageId, text: s.text };
          } else {
            event = { type: 'message', ...base, text: s.text, messageId: String(harness.clock.now()) };
          }
          await harness.deliver(event);
        }
        await harness.settle();
        for (const [i, got] of answers.entries())
          expect(got.length, `answer ${i}: ${JSON.stringify(got)}`).toBe(1);
        // The chat still answers an ordinary message from an allowed user.
        await harness.command('stop');
        await harness.settle();
        await harness.message('still there?');
        await harness.until(
          () => harness.texts().includes('Alice said: still there?'),
          'answer after the fuzz',
        );
        await harness.close();
        h = undefined;
      }),
      { numRuns: 15 },
    );
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  }, 60_000);
});
