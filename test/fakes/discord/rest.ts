/**
 * The fake's REST API (`/api/v10/...`): routes discord.js calls, each
 * checked like the real API (auth, 2000-character content, components,
 * per-channel rate limit with 429 + retry_after, the 3-second interaction
 * deadline) and applied to the stored state.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isMultipart } from '../multipart.js';
import type { AllowedMentionsBody } from './mentions.js';
import {
  channelJson,
  type FakeActionRow,
  type FakeMessage,
  formError,
  messageJson,
  snowflake,
} from './model.js';
import { peerProcess } from './peers.js';
import type { FakeDiscordState as FakeDiscord } from './state.js';
import { checkUploadSize, readMultipartMessage, storeUploads, uploadedFiles } from './uploads.js';
import { validateCommands, validateMessageBody } from './validate.js';

/** A REST call as the fake saw it. */
export interface RestCall {
  method: string;
  /** Path after `/api/v10`, e.g. `/channels/1/messages/2`. */
  path: string;
  /** Path with ids replaced: `/channels/:id/messages/:id`. */
  route: string;
  body: unknown;
  /** The HTTP status answered; -1 for a dropped connection, -2 for a call left unanswered (`hang`). */
  status: number;
  at: number;
  /** The calling process, when the fake was started with `trackProcesses`. */
  pid?: number;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };

/** Normalises a path into a route template (ids and tokens become `:id`). */
export function routeOf(path: string): string {
  return path
    .split('/')
    .map((part, i, all) => {
      if (/^\d+$/.test(part)) return ':id';
      if (all[i - 2] === 'interactions' || (all[i - 2] === 'webhooks' && i === 3)) return ':token';
      return part;
    })
    .join('/');
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Handles one HTTP request under `/api/v10`. */
export async function handleRest(
  fake: FakeDiscord,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname.replace(/^\/api\/v\d+/, '');
  const method = req.method ?? 'GET';
  // A message with files: the JSON in payload_json, the files beside it, served back from this host.
  const body = isMultipart(req)
    ? { ...(await readMultipartMessage(req)), __base: `http://${req.headers.host}` }
    : await readBody(req);
  const call: RestCall = {
    method,
    path: decodeURIComponent(path),
    route: routeOf(path),
    body,
    status: 0,
    at: Date.now(),
  };
  if (fake.trackProcesses) {
    const pid = peerProcess(req.socket);
    if (pid !== undefined) call.pid = pid;
  }
  fake.calls.push(call);
  let reply: Reply | 'drop' | 'hang';
  try {
    reply = (await fake.applyFault(call)) ?? route(fake, call, req.headers.authorization, url.searchParams);
  } catch (err) {
    reply = { status: 500, body: { code: 0, message: String(err) } };
  }
  if (reply === 'hang') {
    call.status = -2;
    fake.changed();
    return;
  }
  if (reply === 'drop') {
    call.status = -1;
    res.socket?.destroy();
    fake.changed();
    return;
  }
  call.status = reply.status;
  const headers = { ...(reply.headers ?? {}) };
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
  } else {
    res
      .writeHead(reply.status, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify(reply.body));
  }
  fake.changed();
}

function route(fake: FakeDiscord, call: RestCall, auth: string | undefined, query: URLSearchParams): Reply {
  const parts = call.path.split('/').filter(Boolean);
  const body = (call.body ?? {}) as Record<string, unknown>;
  const isInteraction = parts[0] === 'interactions' || parts[0] === 'webhooks';
  if (!isInteraction && auth !== `Bot ${fake.token}`) {
    return { status: 401, body: { message: '401: Unauthorized', code: 0 } };
  }
  const [root, a, b, c, d] = parts;
  const m = call.method;
  if (root === 'gateway' && a === 'bot' && m === 'GET') {
    return {
      status: 200,
      body: {
        url: fake.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
      },
    };
  }
  if (root === 'users' && a === '@me' && m === 'GET') return { status: 200, body: fake.botUser };
  if (root === 'users' && a === '@me' && b === 'channels' && m === 'POST') return openDm(fake, body);
  if (root === 'applications' && m === 'PUT') {
    if (a !== fake.applicationId) return notFound(10002, 'Unknown Application');
    const guild = b === 'guilds' ? c : undefined;
    if (guild !== undefined && !fake.guilds.has(guild)) return notFound(10004, 'Unknown Guild');
    const rejection = validateCommands(call.body);
    if (rejection) return rejection;
    const commands = (call.body as Record<string, unknown>[]).map((cmd) => ({
      ...cmd,
      id: snowflake(),
      application_id: fake.applicationId,
      version: snowflake(),
      type: cmd.type ?? 1,
      ...(guild ? { guild_id: guild } : {}),
    }));
    fake.commands.set(guild ?? 'global', commands);
    return { status: 200, body: commands };
  }
  if (root === 'channels' && a) return channelRoute(fake, call, a, b, c, d, body);
  if (root === 'interactions' && a && b && c === 'callback' && m === 'POST') {
    return interactionCallback(fake, a, body, query);
  }
  if (root === 'webhooks' && a && b) return webhookRoute(fake, call, b, c, d, body);
  return notFound(0, `404: Not Found (${m} ${call.route})`);
}

/**
 * Create DM (https://discord.com/developers/docs/resources/user#create-dm):
 * the existing DM channel with `recipient_id`, else a new one. A user in
 * `fake.closedDms` has DMs from server members off: the channel opens, but
 * a message to it is refused with 50007 (see channelRoute).
 */
function openDm(fake: FakeDiscord, body: Record<string, unknown>): Reply {
  const recipient = [...fake.knownUsers()].find((u) => u.id === body.recipient_id);
  if (!recipient)
    return { status: 400, body: formError('recipient_id', 'NUMBER_TYPE_COERCE', 'Unknown user') };
  const existing = [...fake.channels.values()].find(
    (c) => c.type === 1 && c.recipients?.some((r) => r.id === recipient.id),
  );
  const channel = existing ?? { id: snowflake(), type: 1, recipients: [recipient] };
  fake.channels.set(channel.id, channel);
  return { status: 200, body: channelJson(channel) };
}

function notFound(code: number, message: string): Reply {
  return { status: 404, body: { code, message } };
}

function channelRoute(
  fake: FakeDiscord,
  call: RestCall,
  channelId: string,
  sub: string | undefined,
  messageId: string | undefined,
  tail: string | undefined,
  body: Record<string, unknown>,
): Reply {
  const channel = fake.channels.get(channelId);
  if (!channel) return notFound(10003, 'Unknown Channel');
  const m = call.method;
  if (sub === undefined && m === 'GET') return { status: 200, body: channelJson(channel) };
  if (sub === 'typing' && m === 'POST') return { status: 204 };
  if (sub === 'threads' && m === 'POST') {
    const thread = fake.createThread(
      channelId,
      String(body.name ?? 'thread'),
      undefined,
      Number(body.type ?? 11),
    );
    return { status: 201, body: channelJson(thread) };
  }
  if (sub !== 'messages') return notFound(0, '404: Not Found');
  if (messageId && tail === 'threads' && m === 'POST') {
    const starter = fake.messages.get(messageId);
    if (!starter || starter.channel_id !== channelId) return notFound(10008, 'Unknown Message');
    if (fake.channels.has(messageId)) {
      return {
        status: 400,
        body: { code: 160004, message: 'A thread has already been created for this message' },
      };
    }
    const thread = fake.createThread(channelId, String(body.name ?? 'thread'), messageId, 11);
    return { status: 201, body: channelJson(thread) };
  }
  const limited = fake.takeRate(channelId);
  if (limited.retryAfterMs > 0) return rateLimited(limited);
  const headers = limited.headers;
  if (!messageId && m === 'POST') {
    const recipient = channel.type === 1 ? channel.recipients?.[0] : undefined;
    if (recipient && fake.closedDms.has(recipient.id)) {
      return { status: 403, body: { code: 50007, message: 'Cannot send messages to this user' } };
    }
    const files = uploadedFiles(body);
    const rejection =
      checkUploadSize(files, fake.maxUploadBytes) ?? validateMessageBody(body, files.length === 0);
    if (rejection) return rejection;
    let reference: FakeMessage['message_reference'];
    const ref = body.message_reference as { message_id?: string; fail_if_not_exists?: boolean } | undefined;
    if (ref?.message_id) {
      const target = fake.messages.get(ref.message_id);
      if (target && target.channel_id === channelId && !target.deleted) {
        reference = { message_id: target.id, channel_id: channelId };
      } else if (ref.fail_if_not_exists !== false) {
        return {
          status: 400,
          body: formError('message_reference', 'REPLIES_UNKNOWN_MESSAGE', 'Unknown message'),
        };
      }
    }
    const message = fake.storeMessage({
      channelId,
      author: fake.botUser,
      content: String(body.content ?? ''),
      components: (body.components as FakeActionRow[] | undefined) ?? [],
      ...(reference ? { reference } : {}),
      ...(body.allowed_mentions ? { allowedMentions: body.allowed_mentions as AllowedMentionsBody } : {}),
      ...(files.length
        ? { attachments: storeUploads(files, fake.files, String(body.__base), snowflake) }
        : {}),
    });
    return { status: 200, body: messageJson(message), headers };
  }
  const message = messageId ? fake.messages.get(messageId) : undefined;
  if (!message || message.channel_id !== channelId || message.deleted)
    return notFound(10008, 'Unknown Message');
  if (m === 'GET') return { status: 200, body: messageJson(message), headers };
  if (m === 'DELETE') {
    message.deleted = true;
    return { status: 204, headers };
  }
  if (m === 'PATCH') {
    if (message.author.id !== fake.botUser.id) {
      return {
        status: 403,
        body: { code: 50005, message: 'Cannot edit a message authored by another user' },
      };
    }
    const rejection = validateMessageBody(body, false);
    if (rejection) return rejection;
    fake.updateMessage(message, body);
    return { status: 200, body: messageJson(message), headers };
  }
  return { status: 405, body: { code: 0, message: '405: Method Not Allowed' } };
}

/**
 * A 429 as Discord sends it: `retry_after` in seconds (float) and the
 * X-RateLimit headers. Discord rounds the Retry-After header up to whole
 * seconds; the fake sends the exact float there too so scaled-down tests wait
 * only as long as their scaled window.
 */
export function rateLimited(limited: {
  retryAfterMs: number;
  headers: Record<string, string>;
  /** The bot's global limit: `X-RateLimit-Global` is sent and the scope is `global`. */
  global?: boolean;
}): Reply {
  const seconds = limited.retryAfterMs / 1000;
  const global = limited.global === true;
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: seconds, global },
    headers: {
      ...limited.headers,
      'retry-after': String(seconds),
      'x-ratelimit-scope': global ? 'global' : 'user',
      ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    },
  };
}

function interactionCallback(
  fake: FakeDiscord,
  interactionId: string,
  body: Record<string, unknown>,
  query: URLSearchParams,
): Reply {
  const interaction = fake.interactions.get(interactionId);
  if (!interaction) return notFound(10062, 'Unknown interaction');
  if (Date.now() - interaction.createdAt > fake.interactionDeadlineMs) {
    interaction.late += 1;
    return notFound(10062, 'Unknown interaction');
  }
  if (interaction.callbacks.length > 0) {
    return { status: 400, body: { code: 40060, message: 'Interaction has already been acknowledged.' } };
  }
  const type = Number(body.type);
  const data = (body.data ?? {}) as Record<string, unknown>;
  // An autocomplete interaction takes only the choices result (type 8), and only it takes one
  // (https://discord.com/developers/docs/interactions/receiving-and-responding#responding-to-an-interaction).
  if ((interaction.type === 4) !== (type === 8)) {
    return {
      status: 400,
      body: formError('type', 'INTERACTION_RESPONSE_TYPE_INVALID', 'Invalid response type'),
    };
  }
  if (type === 4 || type === 7) {
    const rejection = validateMessageBody(data, type === 4);
    if (rejection) return rejection;
  }
  interaction.callbacks.push(type);
  const flags = Number(data.flags ?? 0);
  let message: FakeMessage | undefined;
  if (type === 4 || type === 5) {
    interaction.ephemeral = (flags & 64) !== 0;
    message = fake.storeMessage({
      channelId: interaction.channelId,
      author: fake.botUser,
      content: type === 4 ? String(data.content ?? '') : '',
      components: (data.components as FakeActionRow[] | undefined) ?? [],
      flags: type === 5 ? flags | 128 : flags,
      interactionId,
    });
    interaction.originalId = message.id;
  } else if (type === 7) {
    const target = interaction.messageId ? fake.messages.get(interaction.messageId) : undefined;
    if (target) fake.updateMessage(target, data);
  }
  if (query.get('with_response') === 'true') {
    return {
      status: 200,
      body: {
        interaction: { id: interaction.id, type: interaction.type },
        ...(message ? { resource: { type, message: messageJson(message) } } : {}),
      },
    };
  }
  return { status: 204 };
}

function webhookRoute(
  fake: FakeDiscord,
  call: RestCall,
  token: string,
  sub: string | undefined,
  target: string | undefined,
  body: Record<string, unknown>,
): Reply {
  const interaction = [...fake.interactions.values()].find((i) => i.token === token);
  if (!interaction) return notFound(10015, 'Unknown Webhook');
  if (interaction.callbacks.length === 0) return notFound(10015, 'Unknown Webhook');
  if (sub === undefined && call.method === 'POST') {
    const rejection = validateMessageBody(body, true);
    if (rejection) return rejection;
    const message = fake.storeMessage({
      channelId: interaction.channelId,
      author: fake.botUser,
      content: String(body.content ?? ''),
      components: (body.components as FakeActionRow[] | undefined) ?? [],
      flags: Number(body.flags ?? 0),
      interactionId: interaction.id,
    });
    interaction.followUpIds.push(message.id);
    return { status: 200, body: messageJson(message) };
  }
  if (sub !== 'messages' || !target) return notFound(0, '404: Not Found');
  const id = target === '@original' ? interaction.originalId : target;
  const message = id ? fake.messages.get(id) : undefined;
  if (!message || message.deleted) return notFound(10008, 'Unknown Message');
  if (call.method === 'GET') return { status: 200, body: messageJson(message) };
  if (call.method === 'DELETE') {
    message.deleted = true;
    return { status: 204 };
  }
  if (call.method === 'PATCH') {
    const rejection = validateMessageBody(body, false);
    if (rejection) return rejection;
    fake.updateMessage(message, body);
    message.flags &= ~128;
    return { status: 200, body: messageJson(message) };
  }
  return { status: 405, body: { code: 0, message: '405: Method Not Allowed' } };
}
