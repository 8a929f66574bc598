/** The pure translation of updates: addressing in groups, commands, ordering keys. */
import type { Update, UserFromGetMe } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import {
  addressing,
  parseCommand,
  sequenceKey,
  translateUpdate,
} from '../../../adapters/telegram/inbound.js';
import {
  callbackUpdate,
  messageUpdate,
  stopGenerationUpdate,
  textMessage,
} from '../../fakes/telegram/index.js';

const me = { id: 777, is_bot: true, first_name: 'SB', username: 'switchboard_bot' } as UserFromGetMe;
const ann = { id: 11, first_name: 'Ann', last_name: 'Lee' };
const noResponder = () => async () => undefined;
const asUpdate = (u: Omit<Update, 'update_id'>, id = 1) => ({ update_id: id, ...u }) as Update;

describe('Telegram update translation', () => {
  it('parses /cmd, /cmd@bot and arguments across lines', () => {
    expect(parseCommand('/compact keep the names')).toEqual({ name: 'compact', args: 'keep the names' });
    expect(parseCommand('/Rename@switchboard_bot My Session')).toEqual({
      name: 'rename',
      args: 'My Session',
      target: 'switchboard_bot',
    });
    expect(parseCommand('/resume\nfoo')).toEqual({ name: 'resume', args: 'foo' });
    expect(parseCommand('not /a command')).toBeUndefined();
  });

  it('finds mentions by entity, by text mention and without entities, case-insensitively', () => {
    expect(addressing('@SwitchBoard_Bot, fix it', undefined, me)).toEqual({
      addressed: true,
      text: 'fix it',
    });
    expect(
      addressing('hey @switchboard_bot fix it', [{ type: 'mention', offset: 4, length: 16 }], me),
    ).toEqual({ addressed: true, text: 'hey fix it' });
    const textMention = [
      {
        type: 'text_mention' as const,
        offset: 0,
        length: 2,
        user: { id: 777, is_bot: true, first_name: 'SB' },
      },
    ];
    expect(addressing('SB look', textMention, me)).toEqual({ addressed: true, text: 'look' });
    expect(addressing('mail me@switchboard_bot.org', undefined, me).addressed).toBe(false);
    expect(addressing('@switchboard_botty hi', undefined, me).addressed).toBe(false);
  });

  it('ignores other bots, commands for other bots, and group chatter', () => {
    const group = { chatId: -5, user: ann };
    const fromBot = {
      message: {
        ...textMessage({ chatId: 11, user: ann }, 'hi'),
        from: { id: 9, is_bot: true, first_name: 'B' },
      },
    };
    expect(
      translateUpdate(asUpdate(fromBot as unknown as Omit<Update, 'update_id'>), me, noResponder),
    ).toBeUndefined();
    expect(
      translateUpdate(asUpdate(messageUpdate(group, '/help@other_bot')), me, noResponder),
    ).toBeUndefined();
    expect(translateUpdate(asUpdate(messageUpdate(group, 'just talking')), me, noResponder)).toBeUndefined();
    const ok = translateUpdate(asUpdate(messageUpdate(group, '/help'), 7), me, noResponder);
    expect(ok?.event).toMatchObject({
      type: 'command',
      name: 'help',
      chat: 'telegram:-5',
      deliveryId: '7',
      user: { name: 'Ann' },
    });
  });

  it('does not take the forum topic header for a reply to the bot', () => {
    const topic = { chatId: -5, user: ann, threadId: 9 };
    const header = {
      ...textMessage(topic, ''),
      message_id: 9,
      from: { id: 777, is_bot: true, first_name: 'SB' },
    };
    const inTopic = messageUpdate(topic, 'talking in the topic', {
      replyTo: { ...header, forum_topic_created: { name: 'Ops', icon_color: 1 } } as never,
    });
    expect(translateUpdate(asUpdate(inTopic), me, noResponder)).toBeUndefined();
    const realReply = messageUpdate(topic, 'answering the bot', {
      replyTo: { ...header, message_id: 40 } as never,
    });
    expect(translateUpdate(asUpdate(realReply), me, noResponder)?.event).toMatchObject({
      type: 'message',
      chat: 'telegram:-5:9',
      replyTo: { messageId: '40', fromBot: true },
    });
  });

  it('orders messages per chat but lets buttons, draft stops and /stop through', () => {
    const dm = { chatId: 11, user: ann };
    expect(sequenceKey(asUpdate(messageUpdate(dm, 'hi')))).toBe('telegram:11');
    expect(sequenceKey(asUpdate(messageUpdate({ ...dm, chatId: -5, threadId: 2 }, 'hi')))).toBe(
      'telegram:-5:2',
    );
    expect(sequenceKey(asUpdate(messageUpdate(dm, '/stop')))).toBeUndefined();
    expect(sequenceKey(asUpdate(messageUpdate(dm, '/stop@switchboard_bot')))).toBeUndefined();
    expect(sequenceKey(asUpdate(messageUpdate(dm, '/stopwatch')))).toBe('telegram:11');
    expect(sequenceKey(asUpdate(callbackUpdate(dm, 3, 'a:1')))).toBeUndefined();
    expect(sequenceKey(asUpdate(stopGenerationUpdate(dm, 3)))).toBeUndefined();
  });
});
