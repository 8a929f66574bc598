/**
 * State of the fake Discord: users, channels, messages and interactions, in
 * the shapes the v10 API returns (the subset discord.js 14 reads).
 */

/** A Discord user as the API returns it. */
export interface FakeUser {
  id: string;
  username: string;
  global_name?: string;
  discriminator: string;
  bot?: boolean;
}

/** A guild text channel, DM channel or thread. */
export interface FakeChannel {
  id: string;
  /** 0 text, 1 DM, 11 public thread, 12 private thread. */
  type: number;
  name?: string;
  guild_id?: string;
  parent_id?: string;
  owner_id?: string;
  recipients?: FakeUser[];
}

/** One component row as stored (buttons only). */
export interface FakeActionRow {
  type: 1;
  components: { type: 2; custom_id?: string; label?: string; style: number; disabled?: boolean }[];
}

/** An uploaded file as the API describes it; `url` is served by the fake. */
export interface FakeAttachment {
  id: string;
  filename: string;
  size: number;
  url: string;
  proxy_url: string;
  content_type: string;
  /** Voice messages: the recording's length (Attachment object, `duration_secs`). */
  duration_secs?: number;
  /** Voice messages: a base64 sampled waveform. */
  waveform?: string;
}

/** A message and its current state (what a user sees now). */
export interface FakeMessage {
  id: string;
  channel_id: string;
  guild_id?: string;
  author: FakeUser;
  content: string;
  timestamp: string;
  edited_timestamp: string | null;
  components: FakeActionRow[];
  flags: number;
  message_reference?: { message_id: string; channel_id: string };
  mentions: FakeUser[];
  attachments?: FakeAttachment[];
  /** Set when deleted; kept so tests can assert on deletions. */
  deleted?: boolean;
  /** Every content this message has had, in order. */
  history: string[];
  /** Who its content notifies now, by its allowed_mentions (see mentions.ts). */
  pings: string[];
  /** Interaction whose response this message is. */
  interactionId?: string;
  webhook_id?: string;
}

/** An interaction the fake dispatched, and how the bot answered it. */
export interface FakeInteraction {
  id: string;
  token: string;
  /** 2 application command, 3 component, 4 autocomplete, 5 modal submit. */
  type: 2 | 3 | 4 | 5;
  channelId: string;
  user: FakeUser;
  createdAt: number;
  /** Callback types received, in order (4 reply, 5 defer, 6 defer update, 7 update). */
  callbacks: number[];
  /** Callbacks that arrived after the deadline (answered 404 Unknown interaction). */
  late: number;
  ephemeral: boolean;
  /** The original response message, once there is one. */
  originalId?: string;
  followUpIds: string[];
  /** For button presses: the message holding the button. */
  messageId?: string;
}

let seq = 0n;
const EPOCH = 1_420_070_400_000n;

/** A fresh, increasing snowflake. */
export function snowflake(): string {
  seq += 1n;
  return (((BigInt(Date.now()) - EPOCH) << 22n) + seq).toString();
}

/**
 * A fresh snowflake that Discord routes to `shard` of `count` shards
 * ((id >> 22) % count): its timestamp part is moved back to the nearest match.
 */
export function snowflakeOnShard(shard: number, count: number): string {
  const id = BigInt(snowflake());
  const time = id >> 22n;
  const back = (((time - BigInt(shard)) % BigInt(count)) + BigInt(count)) % BigInt(count);
  return (((time - back) << 22n) | (id & 0x3fffffn)).toString();
}

/** The v10 JSON of a stored message. */
export function messageJson(m: FakeMessage): Record<string, unknown> {
  return {
    id: m.id,
    channel_id: m.channel_id,
    ...(m.guild_id === undefined ? {} : { guild_id: m.guild_id }),
    author: m.author,
    content: m.content,
    timestamp: m.timestamp,
    edited_timestamp: m.edited_timestamp,
    tts: false,
    mention_everyone: false,
    mentions: m.mentions,
    mention_roles: [],
    attachments: m.attachments ?? [],
    embeds: [],
    pinned: false,
    type: m.message_reference ? 19 : 0,
    flags: m.flags,
    components: m.components,
    ...(m.message_reference ? { message_reference: m.message_reference } : {}),
    ...(m.webhook_id ? { webhook_id: m.webhook_id } : {}),
  };
}

/** The v10 JSON of a channel. */
export function channelJson(c: FakeChannel): Record<string, unknown> {
  const base: Record<string, unknown> = { id: c.id, type: c.type };
  if (c.name !== undefined) base.name = c.name;
  if (c.guild_id !== undefined) base.guild_id = c.guild_id;
  if (c.parent_id !== undefined) base.parent_id = c.parent_id;
  if (c.owner_id !== undefined) base.owner_id = c.owner_id;
  if (c.recipients) base.recipients = c.recipients;
  if (c.type === 0) Object.assign(base, { position: 0, permission_overwrites: [], nsfw: false });
  if (c.type === 11 || c.type === 12) {
    Object.assign(base, {
      thread_metadata: {
        archived: false,
        auto_archive_duration: 1440,
        archive_timestamp: new Date().toISOString(),
        locked: false,
      },
      member_count: 1,
      message_count: 0,
      total_message_sent: 0,
      rate_limit_per_user: 0,
      flags: 0,
    });
  }
  return base;
}

/** A guild member object for `user`. */
export function memberJson(user: FakeUser): Record<string, unknown> {
  return {
    user,
    roles: [],
    joined_at: new Date(0).toISOString(),
    deaf: false,
    mute: false,
    flags: 0,
    permissions: '2147483647',
  };
}

/** Discord's "Invalid Form Body" answer for one field. */
export function formError(field: string, code: string, message: string): Record<string, unknown> {
  const errors: Record<string, unknown> = {};
  let node = errors;
  const parts = field.split('.');
  parts.forEach((part, i) => {
    const next: Record<string, unknown> = i === parts.length - 1 ? { _errors: [{ code, message }] } : {};
    node[part] = next;
    node = next;
  });
  return { code: 50035, message: 'Invalid Form Body', errors };
}
