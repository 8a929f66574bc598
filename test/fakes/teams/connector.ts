/**
 * The Bot Connector's conversation operations, as the REST reference lists
 * them (https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-api-reference):
 * Create Conversation `POST /v3/conversations`, Send to Conversation
 * `POST /v3/conversations/{id}/activities`, Reply to Activity
 * `POST .../activities/{activityId}`, Update Activity `PUT
 * .../activities/{activityId}`, Delete Activity `DELETE
 * .../activities/{activityId}`, Get Conversation Members `GET
 * .../members`, Get Conversation Member `GET .../members/{memberId}`.
 * Errors use the reference's ErrorResponse shape `{error:{code,message}}`.
 * `ConversationNotFound` is the code Teams answers for a conversation it
 * does not know (reported in microsoft/botbuilder-python#2102); its 404
 * status, `ActivityNotFound` and `Forbidden` for a person's message are our
 * reading. A bot blocked or uninstalled gets 403 with `MessageWritesBlocked`
 * (Teams' proactive-messaging docs): inject it with a fault rule.
 * Answers a status and body; auth, faults, rate and size are checked by the
 * caller (server.ts) before these run.
 */
import type { FileStore } from './files.js';
import { type FakeConversation, type FakeTeamsState, type StoredActivity, threadBase } from './state.js';
import { type FakeStream, type StreamBook, streamInfoOf } from './streaming.js';

/** An answer: HTTP status and JSON body (undefined for an empty body). */
export interface Answer {
  status: number;
  body?: unknown;
}

/** What an operation needs. */
export interface OpContext {
  state: FakeTeamsState;
  streams: StreamBook;
  files: FileStore;
  appId: string;
  now: number;
  /** Ids of messages people sent (the bot may not edit or delete them). */
  peopleMessages: Set<string>;
  /** Called with each stream an activity touched (for waiters). */
  onStream?: (stream: FakeStream) => void;
}

/** The connector's error body. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

const FILE_CONSENT = 'application/vnd.microsoft.teams.card.file.consent';
const ADAPTIVE = 'application/vnd.microsoft.card.adaptive';

/** Why an activity cannot be posted as it is, or undefined. */
function invalidActivity(activity: Record<string, unknown>, personal: boolean): string | undefined {
  if (typeof activity.type !== 'string') return 'Activity.type is required';
  const attachments = Array.isArray(activity.attachments)
    ? (activity.attachments as Record<string, unknown>[])
    : [];
  for (const a of attachments) {
    if (typeof a?.contentType !== 'string') return 'Every attachment needs a contentType';
    // File consent cards are for personal chats only (bots-filesv4).
    if (a.contentType === FILE_CONSENT && !personal)
      return 'File consent cards can only be sent in personal chats';
    if (a.contentType === ADAPTIVE) {
      const card = a.content as Record<string, unknown> | undefined;
      if (card?.type !== 'AdaptiveCard')
        return 'An Adaptive Card attachment needs content.type "AdaptiveCard"';
    }
  }
  return undefined;
}

/** Send to Conversation and Reply to Activity. */
export function postActivity(
  ctx: OpContext,
  conversationId: string,
  replyTo: string | undefined,
  activity: Record<string, unknown>,
): Answer {
  const conversation = ctx.state.resolve(conversationId);
  if (conversation === undefined)
    return {
      status: 404,
      body: errorBody('ConversationNotFound', `Conversation not found: ${conversationId}`),
    };
  const personal = conversation.type === 'personal';
  const invalid = invalidActivity(activity, personal);
  if (invalid !== undefined) return { status: 400, body: errorBody('BadArgument', invalid) };
  const info = streamInfoOf(activity);
  if (info !== undefined) {
    const result = ctx.streams.apply(conversationId, personal, activity, info, ctx.now, ctx.state.nextId());
    if ('status' in result) return { status: result.status, body: errorBody(result.code, result.message) };
    ctx.onStream?.(result.stream);
    if (info.streamType === 'final') ctx.state.store(conversationId, activity, result.id);
    return { status: 201, body: { id: result.id } };
  }
  // Plain typing indicators are shown, not kept.
  if (activity.type === 'typing') return { status: 200, body: {} };
  let target = conversationId;
  if (conversation.type === 'channel' && replyTo !== undefined && !conversationId.includes(';messageid=')) {
    // A reply in a channel goes to the thread of the message it answers.
    const root = ctx.state.find(conversationId, replyTo);
    target = `${threadBase(conversationId)};messageid=${root?.conversationId.split(';messageid=')[1] ?? replyTo}`;
  }
  const toStore = replyTo === undefined ? activity : { ...activity, replyToId: replyTo };
  const stored = ctx.state.store(target, toStore);
  return { status: 201, body: { id: stored.id } };
}

/** The bot's own stored message `activityId`, or the 404/403 answer Teams gives instead. */
function ownMessage(
  ctx: OpContext,
  conversationId: string,
  activityId: string,
  verb: 'update' | 'delete',
): { conversation: FakeConversation; stored: StoredActivity } | Answer {
  const conversation = ctx.state.resolve(conversationId);
  if (conversation === undefined) {
    return {
      status: 404,
      body: errorBody('ConversationNotFound', `Conversation not found: ${conversationId}`),
    };
  }
  if (ctx.peopleMessages.has(activityId)) {
    return { status: 403, body: errorBody('Forbidden', `A bot can only ${verb} its own messages`) };
  }
  const stored = ctx.state.find(conversationId, activityId);
  if (stored === undefined || stored.deleted) {
    return { status: 404, body: errorBody('ActivityNotFound', `Activity not found: ${activityId}`) };
  }
  return { conversation, stored };
}

/** Update Activity. */
export function updateActivity(
  ctx: OpContext,
  conversationId: string,
  activityId: string,
  activity: Record<string, unknown>,
): Answer {
  const found = ownMessage(ctx, conversationId, activityId, 'update');
  if ('status' in found) return found;
  const invalid = invalidActivity(activity, found.conversation.type === 'personal');
  if (invalid !== undefined) return { status: 400, body: errorBody('BadArgument', invalid) };
  found.stored.history.push(found.stored.activity);
  found.stored.activity = { ...activity, id: activityId };
  return { status: 200, body: { id: activityId } };
}

/** Delete Activity. */
export function deleteActivity(ctx: OpContext, conversationId: string, activityId: string): Answer {
  const found = ownMessage(ctx, conversationId, activityId, 'delete');
  if ('status' in found) return found;
  found.stored.deleted = true;
  return { status: 200 };
}

/** Create Conversation: a personal chat with one person (the proactive-message path). */
export function createConversation(ctx: OpContext, body: Record<string, unknown>): Answer {
  const members = Array.isArray(body.members) ? (body.members as { id?: unknown }[]) : [];
  const tenantId =
    ((body.channelData as Record<string, unknown> | undefined)?.tenant as { id?: string } | undefined)?.id ??
    body.tenantId;
  if (members.length !== 1 || typeof members[0]?.id !== 'string') {
    return {
      status: 400,
      body: errorBody('BadArgument', 'Teams creates personal conversations with exactly one member'),
    };
  }
  if (typeof tenantId !== 'string')
    return { status: 400, body: errorBody('BadArgument', 'channelData.tenant.id is required') };
  const memberId = members[0].id;
  const person = [...ctx.state.conversations.values()]
    .flatMap((c) => c.members)
    .find((m) => m.id === memberId);
  if (person === undefined)
    return { status: 403, body: errorBody('Forbidden', `The bot is not installed for ${memberId}`) };
  const existing = [...ctx.state.conversations.values()].find(
    (c) => c.type === 'personal' && c.members.some((m) => m.id === memberId),
  );
  const conversation = existing ?? ctx.state.addConversation('personal', tenantId, [person]);
  return { status: 201, body: { id: conversation.id } };
}

/** Get Conversation Members / Get Conversation Member (Teams' TeamsChannelAccount fields). */
export function members(ctx: OpContext, conversationId: string, memberId?: string): Answer {
  const conversation = ctx.state.resolve(conversationId);
  if (conversation === undefined)
    return {
      status: 404,
      body: errorBody('ConversationNotFound', `Conversation not found: ${conversationId}`),
    };
  // The recorded roster's fields (test/fixtures/teams/recorded/channel-members-reply.json), plus userRole.
  const list = conversation.members.map((m) => {
    const [givenName, ...rest] = (m.name ?? 'User').split(' ');
    const upn = `${(m.name ?? 'user').toLowerCase().replaceAll(' ', '.')}@example.com`;
    return {
      id: m.id,
      objectId: m.aadObjectId,
      name: m.name,
      givenName,
      surname: rest.join(' '),
      email: upn,
      userPrincipalName: upn,
      tenantId: conversation.tenantId,
      userRole: 'user',
    };
  });
  if (memberId === undefined) return { status: 200, body: list };
  const one = list.find((m) => m.id === memberId || m.objectId === memberId);
  return one === undefined
    ? {
        status: 404,
        body: errorBody('MemberNotFoundInConversation', 'The member is not in this conversation'),
      }
    : { status: 200, body: one };
}
