/**
 * Logs and chat messages never hold a token or key, even when errors try to
 * carry them: the model API answers 401 with the key in its message, the
 * Bot API answers an error whose description holds the bot token, and
 * connections drop (grammY's network errors name the request URL, which
 * holds the token). Every log line of the run and every text the fake Bot
 * API recorded (each version of each message, drafts, button answers) is
 * searched for each configured secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { messageUpdate } from '../fakes/telegram/index.js';
import {
  startTelegramWorld,
  type TelegramWorld,
  TG_API_KEY,
  TG_TOKEN,
  watchUnhandled,
} from '../reliability/telegram-world.js';

let world: TelegramWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Every text a Telegram user could have seen, and every parameter the bot sent. */
function everythingShown(w: TelegramWorld): string {
  const parts: string[] = [];
  for (const m of w.telegram.state.messages.values()) if (m.fromBot) parts.push(...m.history, m.source);
  for (const d of w.telegram.state.drafts.values()) parts.push(...d.texts);
  for (const c of w.telegram.state.calls) parts.push(JSON.stringify(c.params));
  return parts.join('\n');
}

describe('secrets in logs and chats', () => {
  it('no log line and no chat message holds a configured secret, through 401s, error texts and drops', async () => {
    const unhandled = watchUnhandled();
    world = await startTelegramWorld({ factor: 10, allowed: [31, 32, 33], maxRetries: 0 });
    const w = world;
    w.anthropic.setDefault((body) => {
      const text = JSON.stringify(body.messages.at(-1)?.content ?? '');
      if (text.includes('bad key'))
        return {
          error: {
            status: 401,
            type: 'authentication_error',
            message: `invalid x-api-key: ${TG_API_KEY}`,
          },
        };
      if (text.includes('overloaded'))
        return {
          text: ['Partial '],
          midStreamError: { type: 'api_error', message: `upstream ${TG_API_KEY}` },
        };
      return { text: 'Fine.' };
    });
    // The Bot API names the token in an error; connections drop under the bot's calls.
    w.telegram.fault({
      method: 'sendChatAction',
      kind: 'error',
      code: 400,
      description: `Bad Request: bot${TG_TOKEN} cannot act here`,
    });
    w.telegram.fault({ method: /^sendRich/, kind: 'drop', times: 2 });
    w.telegram.fault({ method: 'sendRichMessageDraft', kind: 'server-error', status: 502, times: 2 });

    w.telegram.pushUpdate(messageUpdate({ chatId: 31, user: { id: 31 } }, 'a bad key please'));
    w.telegram.pushUpdate(messageUpdate({ chatId: 32, user: { id: 32 } }, 'you seem overloaded'));
    w.telegram.pushUpdate(messageUpdate({ chatId: 33, user: { id: 33 } }, 'just say fine'));
    // A user outside the allowlist is told their id, nothing else.
    w.telegram.pushUpdate(messageUpdate({ chatId: 34, user: { id: 34 } }, 'let me in'));
    await w.telegram.waitFor(
      () =>
        w.texts(31).some((t) => t.includes('⚠️')) &&
        w.texts(32).some((t) => t.includes('⚠️')) &&
        w.texts(33).includes('Fine.') &&
        w.texts(34).length > 0,
      20_000,
    );
    await w.bot.idle();
    expect(w.texts(31).join('\n')).toMatch(/key|auth/i);
    const failedCalls = w.telegram.state.calls.filter((c) => c.outcome !== 'ok');
    expect(failedCalls.length).toBeGreaterThanOrEqual(3);
    // The bot did log the failures (so the check below looks at real error lines).
    expect(w.lines.some((l) => /"level":(40|50)/.test(l))).toBe(true);

    const logs = w.lines.join('\n');
    // The secrets did reach the logger inside error texts, and were scrubbed there.
    expect(logs).toContain('[redacted]');
    const shown = everythingShown(w);
    for (const secret of [TG_TOKEN, TG_API_KEY]) {
      expect(logs).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }
    // Nor a recognisable piece of one (a token cut in half by truncation).
    expect(logs).not.toContain(TG_TOKEN.split(':')[1]);
    expect(shown).not.toContain(TG_API_KEY.slice(0, 24));
    unhandled.stop();
    expect(unhandled.errors).toEqual([]);
  });
});
