/**
 * What the fake Teams holds: people, conversations (personal chats, group
 * chats, channels and their reply threads) and the activities in them,
 * with every edit and deletion kept so tests can see what the bot did.
 *
 * Id shapes follow the recorded payloads in test/fixtures/teams/recorded/:
 * users `29:…` with an `aadObjectId`, the bot `28:<appId>`, personal chats
 * `a:…`, channels `19:…@thread.tacv2` whose reply threads are
 * `<channel>;messageid=<root id>`, group chats `19:…@thread.v2`.
 */
import { randomBytes, randomUUID } from 'node:crypto';

/** A person (or the bot) as activities name them. */
export interface ChannelAccount {
  id: string;
  name?: string;
  aadObjectId?: string;
}

/** Teams' three conversation kinds (`conversation.conversationType`). */
export type ConversationType = 'personal' | 'groupChat' | 'channel';

/** One conversation the fake knows. */
export interface FakeConversation {
  id: string;
  type: ConversationType;
  tenantId: string;
  /** The people in it (not the bot). */
  members: ChannelAccount[];
  /** For channels: the team's id (the General channel's id) and the channel's name. */
  teamId?: string;
  name?: string;
}

/** An activity the bot sent that Teams keeps (messages; typing is not kept). */
export interface StoredActivity {
  id: string;
  conversationId: string;
  /** The activity as the bot last sent it (after updates). */
  activity: Record<string, unknown>;
  /** Earlier versions, oldest first. */
  history: Record<string, unknown>[];
  deleted: boolean;
  /** `replyToId` given when it was sent (the activity it answers). */
  replyToId?: string;
}

const hex = (n: number) => randomBytes(n).toString('hex');

/** People, conversations and the bot's messages. */
export class FakeTeamsState {
  readonly conversations = new Map<string, FakeConversation>();
  readonly activities = new Map<string, StoredActivity>();
  #seq = 0;
  #clockMs: () => number;

  constructor(clockMs: () => number) {
    this.#clockMs = clockMs;
  }

  /** A new person of `tenantId`. */
  person(name: string): ChannelAccount {
    return { id: `29:1${hex(24)}`, name, aadObjectId: randomUUID() };
  }

  /** A new conversation; channels get a team id and may be named. */
  addConversation(
    type: ConversationType,
    tenantId: string,
    members: ChannelAccount[],
    name?: string,
  ): FakeConversation {
    const id =
      type === 'personal'
        ? `a:1${hex(30)}`
        : type === 'channel'
          ? `19:${hex(16)}@thread.tacv2`
          : `19:${hex(16)}@thread.v2`;
    const conversation: FakeConversation = { id, type, tenantId, members: [...members] };
    if (type === 'channel') conversation.teamId = id;
    if (name !== undefined) conversation.name = name;
    this.conversations.set(id, conversation);
    return conversation;
  }

  /**
   * The conversation an id names: a known id, or a channel's reply thread
   * (`<channel id>;messageid=<root>`), which lives in its channel.
   */
  resolve(conversationId: string): FakeConversation | undefined {
    return this.conversations.get(conversationId) ?? this.conversations.get(threadBase(conversationId));
  }

  /** A fresh message id (Teams' ids are epoch milliseconds; a counter keeps them unique). */
  nextId(): string {
    this.#seq += 1;
    return String(this.#clockMs() * 1000 + this.#seq);
  }

  /** Keeps a message the bot sent. */
  store(conversationId: string, activity: Record<string, unknown>, id = this.nextId()): StoredActivity {
    const replyToId = typeof activity.replyToId === 'string' ? activity.replyToId : undefined;
    const stored: StoredActivity = {
      id,
      conversationId,
      activity: { ...activity, id },
      history: [],
      deleted: false,
    };
    if (replyToId !== undefined) stored.replyToId = replyToId;
    this.activities.set(key(conversationId, id), stored);
    return stored;
  }

  /** A message of the conversation (or of its channel, for a thread id). */
  find(conversationId: string, activityId: string): StoredActivity | undefined {
    return (
      this.activities.get(key(conversationId, activityId)) ??
      [...this.activities.values()].find(
        (a) => a.id === activityId && threadBase(a.conversationId) === threadBase(conversationId),
      )
    );
  }

  /** The bot's visible messages in a conversation (threads included for a channel), oldest first. */
  messages(conversationId: string): StoredActivity[] {
    const base = threadBase(conversationId);
    return [...this.activities.values()].filter(
      (a) => !a.deleted && (a.conversationId === conversationId || threadBase(a.conversationId) === base),
    );
  }
}

/** The channel (or chat) a thread id belongs to: the part before `;messageid=`. */
export function threadBase(conversationId: string): string {
  const at = conversationId.indexOf(';messageid=');
  return at < 0 ? conversationId : conversationId.slice(0, at);
}

function key(conversationId: string, activityId: string): string {
  return `${conversationId}\u0000${activityId}`;
}
