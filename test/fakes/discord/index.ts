/**
 * A loopback Discord for the real discord.js client: REST under `/api/v10`
 * and a `ws` gateway on the same port. It keeps the current state of every
 * channel and message (what a user sees), records every REST call, enforces
 * Discord's limits (2000 characters, custom_id 100, 5 writes per 5 s per
 * channel answered with 429 + retry_after, the 3-second interaction
 * deadline), and has hooks to push gateway events and inject faults.
 *
 * @example
 * const fake = await startFakeDiscord();
 * const client = new Client({ intents, rest: { api: fake.apiUrl } });
 * await client.login(fake.token);
 * fake.userMessage({ channelId: fake.generalId, author: fake.user('alice'), content: `<@${fake.botUser.id}> hi` });
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  channelJson,
  type FakeChannel,
  type FakeInteraction,
  type FakeMessage,
  type FakeUser,
  memberJson,
  messageJson,
  snowflake,
} from './model.js';
import { handleRest, type RestCall } from './rest.js';
import { type FakeDiscordOptions, FakeDiscordState } from './state.js';

export type { FakeActionRow, FakeChannel, FakeInteraction, FakeMessage, FakeUser } from './model.js';
export type { RestCall } from './rest.js';
export type { FakeDiscordOptions, FakeFault } from './state.js';

/** The running fake; see {@link startFakeDiscord}. */
export class FakeDiscord extends FakeDiscordState {
  #server: Server;

  constructor(options: FakeDiscordOptions = {}) {
    super(options);
    this.#server = createServer((req, res) => {
      if (req.url?.startsWith('/api/')) void handleRest(this, req, res);
      else if (req.url?.startsWith('/attachments/')) {
        const id = req.url.split('/')[2] ?? '';
        const file = this.files.get(id);
        if (file) this.downloads.set(id, (this.downloads.get(id) ?? 0) + 1);
        if (!file) res.writeHead(404).end();
        // A stalled download: the headers and a first chunk, then nothing until the fake closes.
        else if (file.stall)
          res.writeHead(200, { 'content-type': file.contentType }).write(file.data.subarray(0, 1));
        else res.writeHead(200, { 'content-type': file.contentType }).end(file.data);
      } else res.writeHead(404).end();
    });
    this.#server.on('upgrade', (req, socket, head) => this.gateway.upgrade(req, socket, head));
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.apiUrl = `http://127.0.0.1:${port}/api`;
    this.gatewayUrl = `ws://127.0.0.1:${port}`;
  }

  async close(): Promise<void> {
    this.gateway.close();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A (cached) human user named `name`. */
  user(name: string): FakeUser {
    let user = this.users.get(name);
    if (!user) {
      user = {
        id: snowflake(),
        username: name,
        global_name: name[0]!.toUpperCase() + name.slice(1),
        discriminator: '0',
      };
      this.users.set(name, user);
    }
    return user;
  }

  /** Opens a DM channel between the bot and `user`. */
  dmChannel(user: FakeUser): FakeChannel {
    const channel: FakeChannel = { id: snowflake(), type: 1, recipients: [user] };
    this.channels.set(channel.id, channel);
    return channel;
  }

  /** A person opens a thread of their own under `parentId`. */
  userThread(parentId: string, owner: FakeUser, name: string): FakeChannel {
    return this.createThread(parentId, name, undefined, 11, owner.id);
  }

  /** Messages of a channel in order, deleted ones left out. */
  channelMessages(channelId: string): FakeMessage[] {
    return [...this.messages.values()].filter((m) => m.channel_id === channelId && !m.deleted);
  }

  /** Messages the bot wrote in a channel (interaction placeholders included). */
  botMessages(channelId: string): FakeMessage[] {
    return this.channelMessages(channelId).filter((m) => m.author.id === this.botUser.id);
  }

  /** Threads created under `parentId`. */
  threadsOf(parentId: string): FakeChannel[] {
    return [...this.channels.values()].filter((c) => c.parent_id === parentId);
  }

  /** REST calls answered 429. */
  get rateLimitedCalls(): RestCall[] {
    return this.calls.filter((c) => c.status === 429);
  }

  /** Interaction callbacks that arrived after the deadline, summed. */
  get lateInteractionCallbacks(): number {
    return [...this.interactions.values()].reduce((n, i) => n + i.late, 0);
  }

  // ---- inbound: what people do -------------------------------------------

  /** A person posts `content` in a channel; `<@id>` mentions are parsed. */
  userMessage(input: {
    channelId: string;
    author: FakeUser;
    content: string;
    /** `stall`: the attachment URL answers its headers and first byte, then nothing. */
    files?: { filename: string; contentType: string; data: Buffer; stall?: boolean; durationSecs?: number }[];
    /**
     * A voice message: flag IS_VOICE_MESSAGE (1 << 13), one audio/ogg file with
     * `duration_secs` and `waveform`, and no text (Discord's message resource docs).
     */
    voice?: boolean;
  }): FakeMessage {
    if (input.voice) {
      const [file, ...more] = input.files ?? [];
      if (!file || more.length > 0 || file.contentType !== 'audio/ogg' || file.durationSecs === undefined)
        throw new Error('a voice message carries exactly one audio/ogg file with its duration');
      if (input.content !== '') throw new Error('a voice message has no text content');
    }
    const attachments = (input.files ?? []).map((f) => {
      const id = snowflake();
      const url = `${this.apiUrl.replace(/\/api$/, '')}/attachments/${id}/${encodeURIComponent(f.filename)}`;
      this.files.set(id, { contentType: f.contentType, data: f.data, ...(f.stall ? { stall: true } : {}) });
      return {
        id,
        filename: f.filename,
        size: f.data.length,
        url,
        proxy_url: url,
        content_type: f.contentType,
        ...(f.durationSecs === undefined ? {} : { duration_secs: f.durationSecs, waveform: 'AAAAAA==' }),
      };
    });
    return this.storeMessage({
      channelId: input.channelId,
      author: input.author,
      content: input.content,
      ...(input.voice ? { flags: 1 << 13 } : {}),
      ...(attachments.length ? { attachments } : {}),
    });
  }

  /** A person edits their message. */
  editUserMessage(id: string, content: string): FakeMessage {
    const message = this.messages.get(id);
    if (!message) throw new Error(`no message ${id}`);
    this.updateMessage(message, { content });
    return message;
  }

  /** A person runs a slash command; returns the interaction. */
  slashCommand(input: {
    channelId: string;
    user: FakeUser;
    name: string;
    options?: Record<string, string>;
  }): FakeInteraction {
    const options = Object.entries(input.options ?? {}).map(([name, value]) => ({ name, type: 3, value }));
    const data = { id: snowflake(), name: input.name, type: 1, ...(options.length ? { options } : {}) };
    return this.#interact(2, input.channelId, input.user, data);
  }

  /** A person presses the button with `customId` on a message. */
  pressButton(input: { messageId: string; user: FakeUser; customId: string }): FakeInteraction {
    const message = this.messages.get(input.messageId);
    if (!message) throw new Error(`no message ${input.messageId}`);
    const has = message.components.some((row) => row.components.some((b) => b.custom_id === input.customId));
    if (!has) throw new Error(`message ${input.messageId} has no button ${input.customId}`);
    const interaction = this.#interact(
      3,
      message.channel_id,
      input.user,
      {
        custom_id: input.customId,
        component_type: 2,
      },
      message,
    );
    return interaction;
  }

  /**
   * Replays a message exactly as given (a fixture recorded or taken from
   * Discord's documentation) as MESSAGE_CREATE. Only `id`, `channel_id` and
   * `author` are read to keep it in the fake's state, so the bot can reply
   * to it; the payload itself is sent untouched, missing fields and all.
   */
  replayMessage(payload: Record<string, unknown>): void {
    const author = (payload.author ?? {}) as FakeUser;
    const id = typeof payload.id === 'string' ? payload.id : snowflake();
    const channelId = String(payload.channel_id ?? '');
    if (channelId && this.channels.has(channelId) && author.id) {
      const content = typeof payload.content === 'string' ? payload.content : '';
      this.messages.set(id, {
        id,
        channel_id: channelId,
        author,
        content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        components: [],
        flags: 0,
        mentions: [],
        history: [content],
        pings: [],
      });
    }
    this.gateway.dispatch('MESSAGE_CREATE', payload);
    this.changed();
  }

  /**
   * Replays an INTERACTION_CREATE exactly as given. The interaction is
   * registered by its `id`, `token` and `type` so the fake takes (and
   * records) the bot's callbacks within the 3-second deadline.
   */
  replayInteraction(payload: Record<string, unknown>, user: FakeUser): FakeInteraction {
    const type = Number(payload.type) as FakeInteraction['type'];
    const channelId = String(
      payload.channel_id ?? (payload.channel as { id?: string } | undefined)?.id ?? '',
    );
    const interaction = this.#register({
      id: String(payload.id ?? snowflake()),
      token: String(payload.token ?? ''),
      type,
      channelId,
      user,
    });
    this.gateway.dispatch('INTERACTION_CREATE', payload);
    this.changed();
    return interaction;
  }

  /** Sends any gateway dispatch as given (an event kind the bot does not know, a malformed one). */
  replayDispatch(t: string, d: unknown): void {
    this.gateway.dispatch(t, d);
    this.changed();
  }

  /** Records a new, unanswered interaction so its callbacks are taken and checked. */
  #register(
    fields: Pick<FakeInteraction, 'id' | 'token' | 'type' | 'channelId' | 'user' | 'messageId'>,
  ): FakeInteraction {
    const interaction: FakeInteraction = {
      ...fields,
      createdAt: Date.now(),
      callbacks: [],
      late: 0,
      ephemeral: false,
      followUpIds: [],
    };
    this.interactions.set(interaction.id, interaction);
    return interaction;
  }

  #interact(
    type: 2 | 3,
    channelId: string,
    user: FakeUser,
    data: Record<string, unknown>,
    message?: FakeMessage,
  ): FakeInteraction {
    const channel = this.channels.get(channelId);
    if (!channel) throw new Error(`no channel ${channelId}`);
    const interaction = this.#register({
      id: snowflake(),
      token: `itoken-${snowflake()}`,
      type,
      channelId,
      user,
      ...(message ? { messageId: message.id } : {}),
    });
    const guild = channel.guild_id;
    this.gateway.dispatch('INTERACTION_CREATE', {
      id: interaction.id,
      application_id: this.applicationId,
      type,
      token: interaction.token,
      version: 1,
      data,
      channel_id: channelId,
      channel: channelJson(channel),
      ...(guild ? { guild_id: guild, member: memberJson(user) } : { user }),
      ...(message ? { message: messageJson(message) } : {}),
      app_permissions: '2147483647',
      locale: 'en-US',
      ...(guild ? { guild_locale: 'en-US' } : {}),
      entitlements: [],
      authorizing_integration_owners: {},
      context: guild ? 0 : 1,
      attachment_size_limit: 8_388_608,
    });
    this.changed();
    return interaction;
  }
}

/** Starts a fake Discord on 127.0.0.1 (random port). */
export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const fake = new FakeDiscord(options);
  await fake.listen();
  return fake;
}
