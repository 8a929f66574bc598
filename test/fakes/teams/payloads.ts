/**
 * The activities Teams posts to a bot, shaped like the recorded ones in
 * test/fixtures/teams/recorded/ (channelId `msteams`, `serviceUrl`, `from`
 * with `aadObjectId`, `conversation` with `conversationType` and
 * `tenantId`, `channelData.tenant`, channel messages in
 * `<channel>;messageid=<root>` threads, bot mentions as `<at>` text plus a
 * `mention` entity).
 * Invokes: Adaptive Card Universal Actions (`adaptiveCard/action`,
 * https://learn.microsoft.com/en-us/microsoftteams/platform/task-modules-and-cards/cards/universal-actions-for-adaptive-cards/work-with-universal-actions-for-adaptive-cards),
 * Action.Submit (a message whose `value` is the card's data), file consent
 * answers (`fileConsent/invoke`, https://learn.microsoft.com/en-us/microsoftteams/platform/bots/how-to/bots-filesv4).
 */
import type { ChannelAccount, FakeConversation } from './state.js';

/** Who the bot is in activities: `28:<appId>`. */
export interface BotIdentity {
  appId: string;
  name: string;
}

/** An activity as JSON. */
export type Activity = Record<string, unknown>;

/** What every inbound activity shares. */
export interface Envelope {
  id: string;
  serviceUrl: string;
  conversation: FakeConversation;
  /** For channels: the root message id of the thread (left out: this activity starts a new thread). */
  threadRootId?: string;
  from: ChannelAccount;
  bot: BotIdentity;
  timestamp: string;
}

/** The envelope fields of an activity in `env`. */
export function base(env: Envelope): Activity {
  const c = env.conversation;
  // A new channel post starts its own thread: its conversation id names itself as the root (recorded).
  const conversationId = c.type === 'channel' ? `${c.id};messageid=${env.threadRootId ?? env.id}` : c.id;
  const conversation: Activity = { conversationType: c.type, tenantId: c.tenantId, id: conversationId };
  if (c.type !== 'personal') conversation.isGroup = true;
  const channelData: Activity = { tenant: { id: c.tenantId } };
  if (c.type === 'channel') {
    channelData.teamsChannelId = c.id;
    channelData.teamsTeamId = c.teamId;
    channelData.channel = { id: c.id };
    channelData.team = { id: c.teamId };
  }
  return {
    id: env.id,
    timestamp: env.timestamp,
    localTimestamp: env.timestamp,
    channelId: 'msteams',
    serviceUrl: env.serviceUrl,
    from: { ...env.from },
    conversation,
    recipient: { id: `28:${env.bot.appId}`, name: env.bot.name },
    entities: [{ locale: 'en-US', country: 'US', platform: 'Web', type: 'clientInfo' }],
    channelData,
    locale: 'en-US',
  };
}

/** Options of a user's message. */
export interface MessageOptions {
  text: string;
  /** Put `<at>bot</at>` before the text with its mention entity (how channel messages reach a bot). */
  mentionBot?: boolean;
  attachments?: Activity[];
  /** Replying to (or acting on) this message. */
  replyToId?: string;
}

/** A `message` activity from a person. */
export function messageActivity(env: Envelope, options: MessageOptions): Activity {
  const activity = base(env);
  const at = `<at>${env.bot.name}</at>`;
  activity.type = 'message';
  // Recorded: the mention runs straight into the text, and the entity comes before clientInfo.
  activity.text = options.mentionBot === true ? `${at}${options.text}` : options.text;
  activity.textFormat = 'plain';
  if (options.mentionBot === true) {
    const mention = {
      type: 'mention',
      text: at,
      mentioned: { id: `28:${env.bot.appId}`, name: env.bot.name },
    };
    activity.entities = [mention, ...(activity.entities as Activity[])];
    const html = `<div><div><span itemscope="" itemtype="http://schema.skype.com/Mention" itemid="0">${env.bot.name}</span>${options.text}</div>\n</div>`;
    activity.attachments = [{ contentType: 'text/html', content: html }];
  }
  if (options.attachments !== undefined)
    activity.attachments = [...((activity.attachments as Activity[]) ?? []), ...options.attachments];
  if (options.replyToId !== undefined) activity.replyToId = options.replyToId;
  return activity;
}

/** A received file as Teams attaches it in personal chats: a pre-authorised download URL. */
export function fileDownloadAttachment(name: string, downloadUrl: string, uniqueId: string): Activity {
  const dot = name.lastIndexOf('.');
  return {
    contentType: 'application/vnd.microsoft.teams.file.download.info',
    contentUrl: downloadUrl,
    name,
    content: { downloadUrl, uniqueId, fileType: dot < 0 ? '' : name.slice(dot + 1) },
  };
}

/** The envelope of an activity a card button made: recorded ones say `channelData.source.name` "message". */
function fromCard(env: Envelope): Activity {
  const activity = base(env);
  (activity.channelData as Activity).source = { name: 'message' };
  return activity;
}

/** An Action.Execute press: `invoke` named `adaptiveCard/action` on the card message `replyToId`. */
export function cardActionInvoke(env: Envelope, replyToId: string, verb: string, data: Activity): Activity {
  return {
    ...fromCard(env),
    type: 'invoke',
    name: 'adaptiveCard/action',
    replyToId,
    value: { action: { type: 'Action.Execute', id: verb, verb, data }, trigger: 'manual' },
  };
}

/** An Action.Submit press: a `message` with the card's data as `value` and no text (recorded shape). */
export function cardSubmitMessage(env: Envelope, replyToId: string, data: Activity): Activity {
  return { ...fromCard(env), type: 'message', replyToId, value: data };
}

/** The bot (or people) joining a conversation: `conversationUpdate` with `membersAdded`. */
export function membersAdded(env: Envelope, members: ChannelAccount[]): Activity {
  // Recorded conversationUpdates carry no entities, locale or localTimestamp.
  const { entities: _e, locale: _l, localTimestamp: _t, ...rest } = base(env);
  const activity: Activity = { ...rest, type: 'conversationUpdate', membersAdded: members };
  if (env.conversation.type === 'channel') (activity.channelData as Activity).eventType = 'teamMemberAdded';
  return activity;
}

/** Where the user's answer to a file consent card says to upload. */
export interface UploadInfo {
  name: string;
  uploadUrl: string;
  contentUrl: string;
  uniqueId: string;
  fileId: string;
}

/** The user's answer to a file consent card: `invoke` named `fileConsent/invoke`. */
export function fileConsentInvoke(
  env: Envelope,
  replyToId: string,
  action: 'accept' | 'decline',
  context: unknown,
  uploadInfo?: UploadInfo,
): Activity {
  const value: Activity = { type: 'fileUpload', action, context };
  if (action === 'accept' && uploadInfo !== undefined)
    value.uploadInfo = { ...uploadInfo, fileType: uploadInfo.name.split('.').pop() };
  return { ...base(env), type: 'invoke', name: 'fileConsent/invoke', replyToId, value };
}
