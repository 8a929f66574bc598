/**
 * The pure translation of Bot Connector activities: recorded activities
 * from vercel/chat (fixtures/SOURCES.md) and the shapes the Teams docs show.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chatKey, chatKind, conversationOf, threadConversation } from '../../../adapters/teams/chat-key.js';
import { messageText, type TeamsActivity, translate, userOf } from '../../../adapters/teams/inbound.js';
import { parseTextCommand } from '../../../src/bot/adapter-contract.js';

const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    TeamsActivity
  >;
const recorded = load('vercel-chat-teams.json');
const channel = load('vercel-chat-channel-teams.json');

const personal = (over: Partial<TeamsActivity> = {}): TeamsActivity => ({
  type: 'message',
  id: '1700000000001',
  text: 'hello there',
  channelId: 'msteams',
  serviceUrl: 'https://smba.trafficmanager.net/emea/',
  from: { id: '29:1alice', name: 'Alice', aadObjectId: 'AAAAAAAA-0000-4000-8000-000000000001' },
  recipient: { id: '28:bot', name: 'switchboard' },
  conversation: { id: 'a:1personal', conversationType: 'personal', tenantId: 't' },
  ...over,
});

describe('chat keys', () => {
  it('round-trips every kind of conversation id', () => {
    for (const id of ['a:1personal', '19:abc@thread.v2', '19:abc@thread.tacv2;messageid=17']) {
      expect(conversationOf(chatKey(id))).toBe(id);
    }
    expect(() => conversationOf('slack:C1')).toThrow(/not a Teams chat key/);
  });

  it('tells the kind from the id alone, so it survives a restart', () => {
    expect(chatKind('a:1personal')).toBe('personal');
    expect(chatKind('19:abc@thread.v2')).toBe('group');
    expect(chatKind('19:abc@thread.tacv2;messageid=17')).toBe('channel');
    expect(chatKind('a:group-chat-id', 'groupChat')).toBe('group');
  });

  it('names a channel thread by its root post', () => {
    expect(threadConversation('19:c@thread.tacv2', '42')).toBe('19:c@thread.tacv2;messageid=42');
    expect(threadConversation('19:c@thread.tacv2;messageid=1', '42')).toBe('19:c@thread.tacv2;messageid=1');
  });
});

describe('translate', () => {
  it('a recorded channel mention: the thread is the chat, the bot mention is cut, the person is their Entra id', () => {
    const t = translate(channel.mention as TeamsActivity);
    expect(t.kind).toBe('message');
    if (t.kind !== 'message') return;
    expect(t.event.chat).toBe(
      'teams:19:d441d38c655c47a085215b2726e76927@thread.tacv2;messageid=1771290107407',
    );
    expect(t.event.text).toBe('Hey');
    expect(t.event.user).toEqual({ id: '7a9b12a6-4f02-43f1-b6f9-fd10e047f903', name: 'Malte Ubl' });
    expect(t.event.deliveryId).toBe('1771290107407');
  });

  it('a recorded mention whose entity carries no text still loses the bot mention', () => {
    const t = translate(recorded.mention as TeamsActivity);
    expect(t.kind === 'message' && t.event.text).toBe('Hey');
    // No aadObjectId in this recording: the Teams user id names the person.
    expect(t.kind === 'message' && t.event.user.id).toMatch(/^29:1xXx/);
  });

  it('a recorded follow-up lands in the same thread as its mention', () => {
    const first = translate(recorded.mention as TeamsActivity);
    const next = translate(recorded.followUp as TeamsActivity);
    expect(first.kind === 'message' && next.kind === 'message' && next.event.chat === first.event.chat).toBe(
      true,
    );
  });

  it('a recorded group chat is a group chat key', () => {
    const t = translate(recorded.groupMention as TeamsActivity);
    expect(t.kind === 'message' && t.event.chat).toBe('teams:a:group-chat-id');
    expect(t.kind === 'message' && t.event.text).toBe('Hello');
  });

  it('a recorded message action with no text is not for the core', () => {
    expect(translate(channel.channel_post_action as TeamsActivity).kind).toBe('ignored');
  });

  it('other people mentioned stay as @Name and HTML entities are decoded', () => {
    const a = personal({
      text: 'ask <at>Bob</at> about 1 &lt; 2 &amp; more',
      entities: [{ type: 'mention', text: '<at>Bob</at>', mentioned: { id: '29:bob', name: 'Bob' } }],
    });
    expect(messageText(a)).toBe('ask @Bob about 1 < 2 & more');
  });

  it('commands typed as text, with / or ! or as the word the command menu inserts', () => {
    for (const text of ['/status', '!status', 'status']) {
      const t = translate(personal({ text }));
      expect(t.kind === 'command' && t.event.name).toBe('status');
    }
    const compact = translate(personal({ text: 'compact keep the names' }));
    expect(compact.kind === 'command' && compact.event.args).toBe('keep the names');
    expect(translate(personal({ text: 'help me with this' })).kind).toBe('message');
    expect(parseTextCommand('/nonsense')).toBeUndefined();
  });

  it('an edit is an edit of that message', () => {
    const t = translate(
      personal({ type: 'messageUpdate', text: 'fixed', channelData: { eventType: 'editMessage' } }),
    );
    expect(t).toMatchObject({
      kind: 'edit',
      event: { type: 'edit', text: 'fixed', messageId: '1700000000001' },
    });
    expect(
      translate(personal({ type: 'messageUpdate', channelData: { eventType: 'undeleteMessage' } })).kind,
    ).toBe('ignored');
  });

  it('a press on our button carries the presser and the payload', () => {
    const t = translate(
      personal({
        type: 'invoke',
        name: 'adaptiveCard/action',
        replyToId: 'card-1',
        from: { id: '29:1bob', name: 'Bob', aadObjectId: 'bbbbbbbb-0000-4000-8000-000000000002' },
        value: { action: { type: 'Action.Execute', verb: 'switchboard', data: { payload: 'a:k3x9q2mf00' } } },
      }),
    );
    expect(t).toMatchObject({
      kind: 'press',
      payload: 'a:k3x9q2mf00',
      messageId: 'card-1',
      user: { id: 'bbbbbbbb-0000-4000-8000-000000000002', name: 'Bob' },
    });
  });

  it('leaves out presses on other cards, other invokes, bots and conversation updates', () => {
    const foreign = personal({
      type: 'invoke',
      name: 'adaptiveCard/action',
      value: { action: { type: 'Action.Execute', verb: 'other', data: {} } },
    });
    expect(translate(foreign).kind).toBe('ignored');
    expect(translate(personal({ type: 'invoke', name: 'task/fetch' })).kind).toBe('ignored');
    expect(translate(personal({ from: { id: '28:other', role: 'bot' } })).kind).toBe('ignored');
    expect(translate(personal({ type: 'conversationUpdate' })).kind).toBe('ignored');
  });

  it('lower-cases an Entra object id, so an allowlist line matches however Teams spells it', () => {
    expect(userOf(personal()).id).toBe('aaaaaaaa-0000-4000-8000-000000000001');
  });
});
