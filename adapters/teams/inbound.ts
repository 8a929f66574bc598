/**
 * Bot Connector activities as the core's events, as pure functions of the
 * activity (no SDK, no I/O), so every rule here is unit-tested on the JSON
 * Teams sends.
 *
 * - A `message` is a message, or a command typed as text (`commands.ts`).
 *   In channels and group chats Teams delivers only messages that mention
 *   the bot; the bot's own `<at>` mention is cut from the text, other
 *   people's become `@Name`.
 * - A `messageUpdate` (channelData.eventType `editMessage`) is an edit.
 * - An `adaptiveCard/action` invoke on one of our buttons is a press, by
 *   `from`, the person who pressed it.
 * - Everything else (conversationUpdate, typing, reactions, installs) is
 *   not for the core.
 */
import { type ChatEvent, type ChatUser, parseTextCommand } from '../../src/bot/adapter-contract.js';
import { pressedPayload } from './buttons.js';
import { type ChatKind, chatKey, chatKind, threadConversation } from './chat-key.js';

/** The fields of a Bot Connector activity the adapter reads. */
export interface TeamsActivity {
  type: string;
  id?: string;
  name?: string;
  text?: string;
  textFormat?: string;
  serviceUrl?: string;
  channelId?: string;
  replyToId?: string;
  from?: { id: string; name?: string; aadObjectId?: string; role?: string };
  recipient?: { id: string; name?: string };
  conversation?: { id: string; conversationType?: string; tenantId?: string; isGroup?: boolean };
  entities?: Array<{ type?: string; mentioned?: { id?: string; name?: string }; text?: string }>;
  attachments?: Array<{ contentType?: string; contentUrl?: string; content?: unknown; name?: string }>;
  channelData?: { eventType?: string; [key: string]: unknown };
  value?: unknown;
}

/** An activity for the core, before the adapter adds files and the responder. */
export type Translated =
  | { kind: 'message'; event: Extract<ChatEvent, { type: 'message' }> }
  | { kind: 'command'; event: Extract<ChatEvent, { type: 'command' }> }
  | { kind: 'edit'; event: Extract<ChatEvent, { type: 'edit' }> }
  | { kind: 'press'; chat: string; user: ChatUser; payload: string; messageId?: string; deliveryId?: string }
  | { kind: 'ignored'; reason: string };

/** The invoke name of an Adaptive Card Action.Execute press. */
export const CARD_ACTION_INVOKE = 'adaptiveCard/action';

/**
 * The person behind an activity. Their id is the Microsoft Entra (AAD)
 * object id when Teams gives one: it is the same for every bot and app in
 * the tenant and is what an admin sees in Entra and Teams admin, so one
 * allowlist line keeps working if the bot is registered again. The Teams
 * user id (`29:1...`) differs for each bot registration; it is used only
 * for someone who has no object id (a federated or anonymous user).
 */
export function userOf(activity: TeamsActivity): ChatUser {
  const from = activity.from;
  const id = from?.aadObjectId ? from.aadObjectId.toLowerCase() : (from?.id ?? '');
  return { id, name: from?.name?.trim() || id };
}

/** The conversation's chat key and kind; a channel post not yet in a thread starts its own. */
export function chatOf(activity: TeamsActivity): { chat: string; kind: ChatKind } | undefined {
  const conversation = activity.conversation;
  if (!conversation?.id) return undefined;
  const kind = chatKind(conversation.id, conversation.conversationType);
  // A reply names its thread's root in replyToId; a new post is its own root.
  const root = activity.type === 'message' ? (activity.replyToId ?? activity.id) : undefined;
  const id = kind === 'channel' && root ? threadConversation(conversation.id, root) : conversation.id;
  return { chat: chatKey(id), kind };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/**
 * The text as the person meant it: the bot's own `<at>` mention removed,
 * other mentions as `@Name`, HTML entities decoded, and the few tags Teams
 * wraps plain messages in (`<p>`, `<div>`, `<br>`) turned into line breaks.
 */
export function messageText(activity: TeamsActivity): string {
  let text = activity.text ?? '';
  const botId = activity.recipient?.id;
  for (const entity of activity.entities ?? []) {
    if (entity.type !== 'mention') continue;
    // Teams does not always send the mention's `text`; its `<at>` tag holds the name.
    const tag = entity.text ?? (entity.mentioned?.name ? `<at>${entity.mentioned.name}</at>` : undefined);
    if (!tag) continue;
    const replacement = entity.mentioned?.id === botId ? '' : `@${entity.mentioned?.name ?? ''}`;
    text = text.split(tag).join(replacement);
  }
  text = text
    .replace(/<at>([^<]*)<\/at>/gi, '@$1')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(p|div)>\s*/gi, '\n')
    .replace(/<(p|div|span)(\s[^>]*)?>/gi, '')
    .replace(/<\/span>/gi, '');
  return decodeEntities(text)
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}

/** Translates one activity. */
export function translate(activity: TeamsActivity): Translated {
  const where = chatOf(activity);
  if (!where) return { kind: 'ignored', reason: 'no conversation' };
  const { chat } = where;
  if (!activity.from?.id) return { kind: 'ignored', reason: 'no sender' };
  if (activity.from.role === 'bot' || activity.from.id === activity.recipient?.id)
    return { kind: 'ignored', reason: 'from a bot' };
  const user = userOf(activity);
  const deliveryId = activity.id ? { deliveryId: activity.id } : {};

  if (activity.type === 'invoke') {
    if (activity.name !== CARD_ACTION_INVOKE) return { kind: 'ignored', reason: `invoke ${activity.name}` };
    const payload = pressedPayload(activity.value);
    if (!payload) return { kind: 'ignored', reason: 'a card action that is not ours' };
    return {
      kind: 'press',
      chat,
      user,
      payload,
      ...(activity.replyToId ? { messageId: activity.replyToId } : {}),
      ...deliveryId,
    };
  }

  if (activity.type === 'messageUpdate') {
    if (activity.channelData?.eventType !== 'editMessage' || !activity.id)
      return { kind: 'ignored', reason: 'a message update that is not an edit' };
    return {
      kind: 'edit',
      event: { type: 'edit', chat, user, text: messageText(activity), messageId: activity.id },
    };
  }

  if (activity.type !== 'message') return { kind: 'ignored', reason: activity.type };
  const text = messageText(activity);
  const carriesFiles = (activity.attachments ?? []).some(
    (a) => !/^text\/html|card/i.test(a.contentType ?? ''),
  );
  if (!text && !carriesFiles) return { kind: 'ignored', reason: 'a message with no text or file' };
  const messageId = activity.id ?? '';
  // Teams has no slash commands for bots: the manifest's commandLists only
  // suggest words in the compose box, and a picked word arrives as the text.
  const command = parseTextCommand(text);
  if (command) {
    return {
      kind: 'command',
      event: {
        type: 'command',
        chat,
        user,
        name: command.name,
        args: command.args,
        messageId,
        ...deliveryId,
      },
    };
  }
  return { kind: 'message', event: { type: 'message', chat, user, text, messageId, ...deliveryId } };
}
