/**
 * The payloads Slack delivers to an app, shaped as the Events API, slash
 * commands and block_actions interactivity send them.
 */
import { randomUUID } from 'node:crypto';
import type { AnyBlock } from './blocks.js';
import type { Args } from './methods.js';
import type { FakeMessage } from './state.js';

/** What the payloads need to know about the workspace. */
export interface Workspace {
  teamId: string;
  botUserId: string;
  /** The fake's base URL (response URLs point at it). */
  url: string;
  userName(id: string): string;
}

/** An `event_callback` body around `event`. */
export function eventCallback(ws: Workspace, event: Args, eventId: string): Args {
  return {
    token: 'fake-verification-token',
    team_id: ws.teamId,
    api_app_id: 'A0FAKE',
    event: { event_ts: event.ts, team: ws.teamId, ...event },
    type: 'event_callback',
    event_id: eventId,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: ws.teamId,
        user_id: ws.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

/** The `message_changed` event for an edit of `msg` (whose text is still the old one). */
export function messageChanged(msg: FakeMessage, text: string, eventTs: string): Args {
  const previous = {
    type: 'message',
    user: msg.user,
    text: msg.text,
    ts: msg.ts,
    ...(msg.threadTs ? { thread_ts: msg.threadTs } : {}),
  };
  return {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: msg.channel,
    channel_type: msg.channel.startsWith('D') ? 'im' : 'channel',
    ts: eventTs,
    message: { ...previous, text, edited: { user: msg.user, ts: eventTs } },
    previous_message: previous,
  };
}

/** A slash command's form fields. */
export function slashCommandBody(
  ws: Workspace,
  input: { channel: string; user: string; text: string; command?: string; threadTs?: string },
  responseId: string,
): Record<string, string> {
  return {
    token: 'fake-verification-token',
    team_id: ws.teamId,
    team_domain: 'fake',
    channel_id: input.channel,
    channel_name: input.channel.toLowerCase(),
    user_id: input.user,
    user_name: ws.userName(input.user),
    command: input.command ?? '/switchboard',
    text: input.text,
    api_app_id: 'A0FAKE',
    is_enterprise_install: 'false',
    response_url: `${ws.url}/response/${responseId}`,
    trigger_id: randomUUID(),
    ...(input.threadTs ? { thread_ts: input.threadTs } : {}),
  };
}

/** A `block_actions` payload for `user` pressing `button` on `msg`. */
export function blockActions(ws: Workspace, msg: FakeMessage, button: AnyBlock, user: string): Args {
  const threadTs = msg.threadTs;
  return {
    type: 'block_actions',
    user: { id: user, username: ws.userName(user), name: ws.userName(user), team_id: ws.teamId },
    api_app_id: 'A0FAKE',
    token: 'fake-verification-token',
    container: {
      type: 'message',
      message_ts: msg.ts,
      channel_id: msg.channel,
      is_ephemeral: false,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    },
    trigger_id: randomUUID(),
    team: { id: ws.teamId, domain: 'fake' },
    channel: { id: msg.channel, name: msg.channel.toLowerCase() },
    message: {
      type: 'message',
      ts: msg.ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      text: msg.text,
      user: msg.user,
      bot_id: msg.botId,
      blocks: msg.blocks,
    },
    response_url: `${ws.url}/response/${randomUUID()}`,
    actions: [
      {
        type: 'button',
        action_id: button.action_id,
        block_id: 'b',
        text: button.text,
        value: button.value,
        action_ts: String(Date.now() / 1000),
      },
    ],
    state: { values: {} },
  };
}
