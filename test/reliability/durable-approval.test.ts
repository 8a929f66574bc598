/**
 * Approvals that outlive the process: the ready bot (`dist/src/main.js`, as
 * `npm start` runs it) posts an approval prompt, is SIGKILLed (or stopped
 * with SIGTERM) while it waits, and is started again over the same data
 * directory. The prompt keeps its buttons; Allow runs the tool and the turn
 * goes on to its answer with the result, Deny tells the model.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { callbackUpdate, messageUpdate } from '../fakes/telegram/index.js';
import { useChildBotWorld } from './child-bot.js';

const world = useChildBotWorld('switchboard-durable-');

const ANN = { chatId: 11, user: { id: 11, first_name: 'Ann' } };
const BOB = { chatId: 22, user: { id: 22, first_name: 'Bob' } };

// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
type Body = any;

/** The tool results the request sends back, if its last message holds any. */
function toolResults(body: Body): Array<{ content: unknown; is_error?: boolean }> {
  const last = body.messages.at(-1);
  return Array.isArray(last.content)
    ? last.content.filter((b: { type: string }) => b.type === 'tool_result')
    : [];
}

describe('an approval waiting when the bot stops', () => {
  it('keeps its buttons across a SIGKILL and a SIGTERM; Allow runs the tool and finishes the turn, Deny tells the model', async () => {
    const w = await world.open();
    const tg = w.telegram;
    const model = w.anthropic;
    const root = w.root;
    model.setDefault((body: Body) => {
      const results = toolResults(body);
      if (results.length > 0) return { text: `Finished: ${JSON.stringify(results[0]?.content)}` };
      const file = JSON.stringify(body.messages.at(-1)).includes('Ann') ? 'ann.txt' : 'bob.txt';
      return {
        text: 'Writing it.',
        toolUse: [{ name: 'Write', input: { file_path: file, content: 'kept' } }],
      };
    });
    const texts = (chatId: number) => tg.botMessages(chatId).map((m) => m.text);
    const promptIn = (chatId: number) =>
      tg.botMessages(chatId).find((m) => m.text.includes('Write') && m.text.includes('kept'));
    const buttons = (chatId: number) => promptIn(chatId)?.replyMarkup?.inline_keyboard.flat() ?? [];
    const press = async (who: typeof ANN, label: string): Promise<string | undefined> => {
      const button = buttons(who.chatId).find((b) => b.text === label) as { callback_data: string };
      const update = callbackUpdate(who, promptIn(who.chatId)?.messageId ?? 0, button.callback_data);
      const id = (update.callback_query as { id: string }).id;
      tg.pushUpdate(update);
      await tg.waitFor(
        () => tg.callsTo('answerCallbackQuery').some((c) => c.callback_query_id === id),
        45_000,
      );
      return tg.callsTo('answerCallbackQuery').find((c) => c.callback_query_id === id)?.text as string;
    };

    // Run 1: Ann's turn asks to write a file; the bot is SIGKILLed while the prompt waits.
    const first = await w.start();
    tg.pushUpdate(messageUpdate(ANN, 'Ann: please write the file'));
    await tg.waitFor(() => buttons(11).some((b) => b.text === 'Allow'), 45_000);
    await first.kill();
    expect((await first.exited).signal).toBe('SIGKILL');
    expect(model.requests).toHaveLength(1);

    // Run 2: Allow runs the tool and the turn goes on to its answer.
    const second = await w.start();
    expect(buttons(11).some((b) => b.text === 'Allow')).toBe(true);
    expect(await press(ANN, 'Allow')).toBe(say.answered.allow);
    await tg.waitFor(() => texts(11).some((t) => t.includes('Finished:')), 45_000);
    const resumed = model.requests.at(-1);
    expect(toolResults(resumed)).toHaveLength(1);
    expect(toolResults(resumed)[0]?.is_error).toBeFalsy();
    expect(await readFile(join(root, 'workspace', 'ann.txt'), 'utf8')).toBe('kept');
    expect(promptIn(11)?.text).toContain('Allowed by Ann');
    expect(buttons(11)).toHaveLength(0);
    expect(model.requests).toHaveLength(2);

    // Bob's turn waits when the bot is stopped cleanly: the prompt is left open, not denied.
    tg.pushUpdate(messageUpdate(BOB, 'Bob: please write the file'));
    await tg.waitFor(() => buttons(22).some((b) => b.text === 'Deny'), 45_000);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(second.lines.some((l) => l.includes('approval left open'))).toBe(true);
    expect(buttons(22).some((b) => b.text === 'Deny')).toBe(true);
    expect(promptIn(22)?.text).not.toContain(say.shuttingDown);

    // Run 3: Deny tells the model, and nothing is written.
    await w.start();
    expect(await press(BOB, 'Deny')).toBe(say.answered.deny);
    await tg.waitFor(() => texts(22).some((t) => t.includes('Finished:')), 45_000);
    const denied = toolResults(model.requests.at(-1))[0];
    expect(denied?.is_error).toBe(true);
    expect(JSON.stringify(denied?.content)).toContain('refused');
    await expect(readFile(join(root, 'workspace', 'bob.txt'), 'utf8')).rejects.toThrow();
    expect(promptIn(22)?.text).toContain('Denied by Bob');
  }, 300_000);
});
