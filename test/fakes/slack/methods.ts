/**
 * The Web API methods of the fake Slack, built from @slack/web-api 8.2's
 * request and response types, rejecting what the real API rejects:
 * `msg_too_long`, `invalid_blocks`, `ratelimited` (429 with Retry-After) on
 * chat.update and chat.appendStream calls paced too fast, streams that are
 * not streaming, messages that do not exist.
 */
import { type AnyBlock, validateBlocks } from './blocks.js';
import type { FakeSlackLimits, FakeSlackState } from './state.js';
import { visibleText } from './state.js';
import { UPLOAD_METHODS } from './uploads.js';

// biome-ignore lint/suspicious/noExplicitAny: method arguments are parsed form/JSON fields.
export type Args = Record<string, any>;

/** A method's answer: a body (ok or error), or an HTTP-level answer. */
export type MethodResult = { body: Args } | { status: number; retryAfterSec?: number; body?: Args };

/** What the methods need besides the state. */
export interface MethodContext {
  state: FakeSlackState;
  limits: FakeSlackLimits;
  botUserId: string;
  botId: string;
  teamId: string;
  /** `on`, or how a server without native streams answers chat.*Stream. */
  streaming: 'on' | 'unknown_method' | 'http404';
  baseUrl: string;
  socketUrl: () => string;
  now: () => number;
}

const ok = (body: Args = {}): MethodResult => ({ body: { ok: true, ...body } });
const fail = (error: string, extra: Args = {}): MethodResult => ({ body: { ok: false, error, ...extra } });
const limited = (ctx: MethodContext): MethodResult => ({
  status: 429,
  retryAfterSec: ctx.limits.retryAfterSec,
  body: { ok: false, error: 'ratelimited' },
});

/** Checks text, markdown_text and blocks; returns an error result or the content to store. */
function content(
  args: Args,
  ctx: MethodContext,
  required: boolean,
): MethodResult | { text?: string; blocks?: AnyBlock[] } {
  const { text, blocks, markdown_text: markdown } = args;
  if (markdown !== undefined && (text !== undefined || blocks !== undefined))
    return fail('invalid_arguments', { detail: 'markdown_text cannot be used with text or blocks' });
  if (typeof text === 'string' && text.length > ctx.limits.maxText) return fail('msg_too_long');
  if (typeof markdown === 'string' && markdown.length > ctx.limits.maxMarkdownText)
    return fail('msg_too_long');
  if (blocks !== undefined) {
    const problem = validateBlocks(blocks);
    if (problem) return fail('invalid_blocks', { errors: [problem] });
  }
  if (typeof markdown === 'string')
    return markdown ? { text: markdown, blocks: [{ type: 'markdown', text: markdown }] } : fail('no_text');
  const hasBlocks = Array.isArray(blocks) && blocks.length > 0;
  if (required && !text && !hasBlocks) return fail('no_text');
  return {
    ...(typeof text === 'string' ? { text } : {}),
    ...(Array.isArray(blocks) ? { blocks: blocks as AnyBlock[] } : {}),
  };
}

const isResult = (x: unknown): x is MethodResult =>
  typeof x === 'object' && x !== null && ('body' in x || 'status' in x);

/** Counts a chat.update against the channel budget; true when over it. */
function overBudget(ctx: MethodContext, channel: string): boolean {
  const now = ctx.now();
  const times = (ctx.state.channelUpdates.get(channel) ?? []).filter(
    (t) => now - t < ctx.limits.budgetWindowMs,
  );
  if (times.length >= ctx.limits.updateBudget) {
    ctx.state.channelUpdates.set(channel, times);
    return true;
  }
  times.push(now);
  ctx.state.channelUpdates.set(channel, times);
  return false;
}

function streamUnavailable(ctx: MethodContext): MethodResult | undefined {
  if (ctx.streaming === 'unknown_method') return fail('unknown_method');
  if (ctx.streaming === 'http404') return { status: 404, body: { ok: false, error: 'not_found' } };
  return undefined;
}

/** Every method the fake serves. */
export const METHODS: Record<string, (args: Args, ctx: MethodContext) => MethodResult> = {
  ...UPLOAD_METHODS,
  'auth.test': (_a, ctx) =>
    ok({
      url: `${ctx.baseUrl}/`,
      team: 'Fake Team',
      user: 'switchboard',
      team_id: ctx.teamId,
      user_id: ctx.botUserId,
      bot_id: ctx.botId,
    }),
  'apps.connections.open': (_a, ctx) => ok({ url: ctx.socketUrl() }),
  'users.info': (a, ctx) => {
    if (!a.user) return fail('user_not_found');
    const name = ctx.state.userName(a.user);
    return ok({
      user: { id: a.user, name, real_name: name, profile: { display_name: name, real_name: name } },
    });
  },
  // files.info (docs.slack.dev/reference/methods/files.info): the whole file object, which a
  // Slack Connect share (file_access "check_file_info") leaves out of the event.
  'files.info': (a, ctx) => {
    const file = ctx.state.files.get(String(a.file ?? ''));
    if (!file) return fail('file_not_found');
    const url = `${ctx.baseUrl}/files/${a.file}`;
    return ok({
      file: {
        ...file.extra,
        id: a.file,
        name: file.name,
        mimetype: file.mimetype,
        size: file.data.length,
        url_private: url,
        url_private_download: url,
      },
    });
  },
  'chat.postMessage': (a, ctx) => {
    if (!a.channel) return fail('channel_not_found');
    const c = content(a, ctx, true);
    if (isResult(c)) return c;
    const ts = ctx.state.nextTs();
    const threadTs = a.thread_ts ? String(a.thread_ts) : undefined;
    const msg = ctx.state.add({
      channel: a.channel,
      ts,
      ...(threadTs ? { threadTs } : {}),
      user: ctx.botUserId,
      botId: ctx.botId,
      text: c.text ?? '',
      ...(c.blocks ? { blocks: c.blocks } : {}),
    });
    return ok({
      channel: a.channel,
      ts,
      message: { ts, text: msg.text, thread_ts: threadTs, bot_id: ctx.botId },
    });
  },
  'chat.update': (a, ctx) => {
    const msg = ctx.state.get(String(a.channel), String(a.ts));
    if (!msg || msg.deleted) return fail('message_not_found');
    if (msg.user !== ctx.botUserId) return fail('cant_update_message');
    if (msg.streamState === 'streaming') return fail('message_is_streaming');
    const now = ctx.now();
    if (
      msg.lastUpdateAt !== undefined &&
      now - msg.lastUpdateAt < ctx.limits.updateIntervalMs - ctx.limits.toleranceMs
    )
      return limited(ctx);
    if (overBudget(ctx, msg.channel)) return limited(ctx);
    const c = content(a, ctx, true);
    if (isResult(c)) return c;
    msg.lastUpdateAt = now;
    if (c.text !== undefined) msg.text = c.text;
    // Slack keeps a message's blocks when an update sends only text.
    if (c.blocks !== undefined) msg.blocks = c.blocks;
    msg.history.push(visibleText(msg));
    return ok({ channel: msg.channel, ts: msg.ts, text: msg.text });
  },
  'chat.delete': (a, ctx) => {
    const msg = ctx.state.get(String(a.channel), String(a.ts));
    if (!msg || msg.deleted) return fail('message_not_found');
    if (msg.user !== ctx.botUserId) return fail('cant_delete_message');
    msg.deleted = true;
    return ok({ channel: msg.channel, ts: msg.ts });
  },
  'chat.postEphemeral': (a, ctx) => {
    if (!a.channel) return fail('channel_not_found');
    if (!a.user) return fail('user_not_in_channel');
    const c = content(a, ctx, true);
    if (isResult(c)) return c;
    const text =
      c.blocks && c.blocks.length > 0 ? visibleText({ text: '', blocks: c.blocks } as never) : (c.text ?? '');
    ctx.state.ephemerals.push({
      channel: a.channel,
      user: a.user,
      ...(a.thread_ts ? { threadTs: String(a.thread_ts) } : {}),
      text,
    });
    return ok({ message_ts: ctx.state.nextTs() });
  },
  /**
   * views.open (https://docs.slack.dev/reference/methods/views.open): a
   * trigger_id is required, and a modal needs a plain_text title of at most
   * 24 characters and at most 100 blocks.
   */
  'views.open': (a, ctx) => {
    if (!a.trigger_id) return fail('invalid_arguments');
    const view = (typeof a.view === 'string' ? JSON.parse(a.view) : a.view) as Args | undefined;
    if (view?.type !== 'modal') return fail('invalid_arguments');
    const title = view.title as { type?: string; text?: string } | undefined;
    if (title?.type !== 'plain_text' || !title.text || title.text.length > 24)
      return fail('invalid_arguments');
    const blocks = view.blocks;
    if (!Array.isArray(blocks) || blocks.length > 100) return fail('invalid_arguments');
    const problem = validateBlocks(blocks);
    if (problem) return fail('invalid_blocks', { errors: [problem] });
    ctx.state.views.push({ triggerId: String(a.trigger_id), view });
    return ok({ view: { id: `V${ctx.state.views.length}`, ...view } });
  },
  'chat.getPermalink': (a, ctx) => {
    const msg = ctx.state.get(String(a.channel), String(a.message_ts));
    if (!msg) return fail('message_not_found');
    return ok({
      channel: msg.channel,
      permalink: `${ctx.baseUrl}/archives/${msg.channel}/p${msg.ts.replace('.', '')}`,
    });
  },
  'chat.startStream': (a, ctx) => {
    const gone = streamUnavailable(ctx);
    if (gone) return gone;
    if (!a.channel || !a.thread_ts)
      return fail('invalid_arguments', { detail: 'channel and thread_ts are required' });
    if (!String(a.channel).startsWith('D') && (!a.recipient_user_id || !a.recipient_team_id))
      return fail('invalid_arguments', {
        detail: 'recipient_user_id and recipient_team_id are required outside DMs',
      });
    // @slack/web-api 8.2: "Either markdown_text or chunks is required."
    if (!a.markdown_text && !(Array.isArray(a.chunks) && a.chunks.length > 0))
      return fail('invalid_arguments', { detail: 'markdown_text or chunks is required' });
    if (typeof a.markdown_text === 'string' && a.markdown_text.length > ctx.limits.maxMarkdownText)
      return fail('msg_too_long');
    const ts = ctx.state.nextTs();
    const now = ctx.now();
    ctx.state.add({
      channel: a.channel,
      ts,
      threadTs: String(a.thread_ts),
      user: ctx.botUserId,
      botId: ctx.botId,
      text: typeof a.markdown_text === 'string' ? a.markdown_text : '',
      streamState: 'streaming',
      streamStartedAt: now,
      lastAppendAt: now,
    });
    return ok({ channel: a.channel, ts });
  },
  'chat.appendStream': (a, ctx) => {
    const gone = streamUnavailable(ctx);
    if (gone) return gone;
    const msg = ctx.state.get(String(a.channel), String(a.ts));
    if (!msg || msg.deleted) return fail('message_not_found');
    if (msg.streamState !== 'streaming') return fail('message_not_in_streaming_state');
    const now = ctx.now();
    if (now - (msg.streamStartedAt ?? now) > ctx.limits.streamMaxMs) {
      msg.streamState = 'completed';
      return fail('message_not_in_streaming_state');
    }
    if (typeof a.markdown_text !== 'string' || a.markdown_text.length === 0) return fail('no_text');
    if (a.markdown_text.length > ctx.limits.maxMarkdownText) return fail('msg_too_long');
    if (msg.text.length + a.markdown_text.length > ctx.limits.maxMarkdownText) return fail('msg_too_long');
    if (
      msg.lastAppendAt !== undefined &&
      now - msg.lastAppendAt < ctx.limits.appendIntervalMs - ctx.limits.toleranceMs
    )
      return limited(ctx);
    msg.lastAppendAt = now;
    msg.text += a.markdown_text;
    msg.history.push(msg.text);
    return ok({ channel: msg.channel, ts: msg.ts });
  },
  'chat.stopStream': (a, ctx) => {
    const gone = streamUnavailable(ctx);
    if (gone) return gone;
    const msg = ctx.state.get(String(a.channel), String(a.ts));
    if (!msg || msg.deleted) return fail('message_not_found');
    if (msg.streamState !== 'streaming') return fail('message_not_in_streaming_state');
    if (typeof a.markdown_text === 'string') {
      if (msg.text.length + a.markdown_text.length > ctx.limits.maxMarkdownText) return fail('msg_too_long');
      msg.text += a.markdown_text;
    }
    if (a.blocks !== undefined) {
      const problem = validateBlocks(a.blocks);
      if (problem) return fail('invalid_blocks', { errors: [problem] });
    }
    msg.streamState = 'completed';
    msg.lastUpdateAt = ctx.now();
    msg.blocks = [
      ...(msg.text ? [{ type: 'markdown', text: msg.text }] : []),
      ...((a.blocks as AnyBlock[]) ?? []),
    ];
    msg.history.push(visibleText(msg));
    return ok({
      channel: msg.channel,
      ts: msg.ts,
      message: { ts: msg.ts, text: msg.text, streaming_state: 'completed' },
    });
  },
  'conversations.replies': (a, ctx) => {
    const thread = ctx.state.thread(String(a.channel), String(a.ts));
    if (thread.length === 0) return fail('thread_not_found');
    const limit = Number(a.limit ?? 1000);
    return ok({
      messages: thread.slice(0, limit).map((m) => ({
        type: 'message',
        ts: m.ts,
        user: m.user,
        ...(m.botId ? { bot_id: m.botId } : {}),
        ...(m.threadTs ? { thread_ts: m.threadTs } : { thread_ts: m.ts }),
        text: m.text,
      })),
      has_more: thread.length > limit,
    });
  },
};
