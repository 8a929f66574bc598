/**
 * The fake gateway (plain JSON over `ws`, no compression): HELLO, IDENTIFY ->
 * READY + GUILD_CREATE, heartbeat ACK, RESUME -> replay + RESUMED, dispatches
 * with sequence numbers, and closing with a code (4004 bad token, 4014 the
 * Message Content intent not allowed).
 *
 * Shard-aware like Discord: IDENTIFY may carry `shard: [id, count]`; READY
 * and GUILD_CREATE list only the guilds of that shard ((guild_id >> 22) %
 * count), each guild dispatch goes only to the socket of its guild's shard,
 * and dispatches without a guild (DMs) go to shard 0. A client that sends no
 * shard is shard [0, 1] and gets everything.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { channelJson, memberJson } from './model.js';
import { peerProcess } from './peers.js';
import type { FakeDiscordState as FakeDiscord } from './state.js';

/** The Message Content privileged intent bit. */
export const MESSAGE_CONTENT_INTENT = 1 << 15;

interface GatewaySession {
  id: string;
  /** `[shard id, shard count]` from IDENTIFY; [0, 1] when the client sent none. */
  shard: [number, number];
  /** The client process, when the fake tracks processes. */
  pid?: number;
  seq: number;
  /** Every dispatch with its sequence, for RESUME replay. */
  sent: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
}

/** One gateway endpoint shared by every connection to the fake. */
export class FakeGateway {
  readonly wss = new WebSocketServer({ noServer: true });
  readonly sessions = new Map<string, GatewaySession>();
  /** Sockets that completed IDENTIFY or RESUME, in order. */
  readonly log: {
    op: 'identify' | 'resume' | 'close';
    code?: number;
    intents?: number;
    shard?: [number, number];
    /** The process that sent IDENTIFY, when the fake tracks processes. */
    pid?: number;
  }[] = [];
  /** Every dispatch and the shard whose session it was sent to (`undefined`: no shard was connected). */
  readonly dispatches: { t: string; guildId?: string; shard: number | undefined; session?: string }[] = [];
  /** The last identified session of each shard id. */
  readonly #shards = new Map<number, GatewaySession>();
  /** The last session that identified or resumed: the target of drop() and closeWith(). */
  #current: GatewaySession | undefined;

  constructor(private readonly fake: FakeDiscord) {
    this.wss.on('connection', (socket: WebSocket, req: IncomingMessage) => {
      const pid = this.fake.trackProcesses ? peerProcess(req.socket as Socket) : undefined;
      this.#accept(socket, pid);
    });
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /**
   * Sends a dispatch to the session of the shard that owns its guild (shard 0
   * without a guild); buffered for resume while that session is disconnected.
   */
  dispatch(t: string, d: unknown): void {
    const guildId = dispatchGuild(t, d);
    const session = this.#sessionFor(guildId);
    this.dispatches.push({
      t,
      ...(guildId ? { guildId } : {}),
      shard: session?.shard[0],
      ...(session ? { session: session.id } : {}),
    });
    if (session) this.#send(session, t, d);
  }

  /** True while the last session that identified or resumed has its socket open. */
  get connected(): boolean {
    return this.#current?.socket?.readyState === 1;
  }

  /** True while the session of shard `id` has its socket open. */
  shardConnected(id: number): boolean {
    return this.#shards.get(id)?.socket?.readyState === 1;
  }

  /** The shard id serving `guildId` for a client of `count` shards (Discord's formula). */
  static shardOf(guildId: string, count: number): number {
    return Number((BigInt(guildId) >> 22n) % BigInt(count));
  }

  /** Kills the socket without a close frame (the client sees 1006 and resumes). */
  drop(): void {
    this.#current?.socket?.terminate();
  }

  /** Forgets every session, so the next RESUME is refused (op 9) and the client must IDENTIFY again. */
  forgetSessions(): void {
    this.sessions.clear();
  }

  /** Closes the socket with `code`. */
  closeWith(code: number, reason = ''): void {
    this.#current?.socket?.close(code, reason);
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  #sessionFor(guildId: string | undefined): GatewaySession | undefined {
    // All shards of one client share the count; an unsharded client has [0, 1].
    const count = this.#current?.shard[1] ?? 1;
    return this.#shards.get(guildId ? FakeGateway.shardOf(guildId, count) : 0);
  }

  #send(session: GatewaySession, t: string, d: unknown): void {
    const frame = { s: ++session.seq, t, d };
    session.sent.push(frame);
    if (session.socket?.readyState === 1) session.socket.send(JSON.stringify({ op: 0, ...frame }));
  }

  #accept(socket: WebSocket, pid: number | undefined): void {
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.fake.heartbeatIntervalMs } }));
    socket.on('message', (raw) => {
      let frame: { op: number; d: Record<string, unknown> };
      try {
        frame = JSON.parse(String(raw));
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      this.#onFrame(socket, frame, pid);
    });
    socket.on('close', (code) => {
      for (const session of this.sessions.values()) if (session.socket === socket) session.socket = undefined;
      this.log.push({ op: 'close', code });
      this.fake.changed();
    });
  }

  #onFrame(
    socket: WebSocket,
    frame: { op: number; d: Record<string, unknown> },
    pid: number | undefined,
  ): void {
    const { op, d } = frame;
    if (op === 1) {
      socket.send(JSON.stringify({ op: 11 }));
      return;
    }
    if (op === 2) {
      const intents = Number(d.intents ?? 0);
      const shard = parseShard(d.shard);
      if (shard === 'invalid') {
        socket.close(4010, 'Invalid shard.');
        return;
      }
      const from = pid === undefined ? {} : { pid };
      this.log.push({ op: 'identify', intents, ...(d.shard ? { shard } : {}), ...from });
      if (d.token !== this.fake.token) {
        socket.close(4004, 'Authentication failed.');
        return;
      }
      if (intents & MESSAGE_CONTENT_INTENT && !this.fake.messageContentAllowed) {
        socket.close(4014, 'Disallowed intent(s).');
        return;
      }
      const session: GatewaySession = { id: randomUUID(), shard, ...from, seq: 0, sent: [], socket };
      this.sessions.set(session.id, session);
      this.#current = session;
      this.#shards.set(shard[0], session);
      const guilds = [...this.fake.guilds.keys()].filter(
        (g) => FakeGateway.shardOf(g, shard[1]) === shard[0],
      );
      this.#send(session, 'READY', this.#ready(session, guilds));
      for (const guildId of guilds) this.dispatch('GUILD_CREATE', this.#guild(guildId));
      this.fake.changed();
      return;
    }
    if (op === 6) {
      this.log.push({ op: 'resume' });
      const session = this.sessions.get(String(d.session_id));
      if (!session || d.token !== this.fake.token) {
        socket.send(JSON.stringify({ op: 9, d: false }));
        return;
      }
      session.socket = socket;
      this.#current = session;
      this.#shards.set(session.shard[0], session);
      const after = Number(d.seq ?? 0);
      for (const f of session.sent) if (f.s > after) socket.send(JSON.stringify({ op: 0, ...f }));
      this.#send(session, 'RESUMED', {});
      this.fake.changed();
    }
  }

  #ready(session: GatewaySession, guilds: string[]): Record<string, unknown> {
    return {
      v: 10,
      user: this.fake.botUser,
      guilds: guilds.map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      resume_gateway_url: this.fake.gatewayUrl,
      application: { id: this.fake.applicationId, flags: 0 },
      shard: session.shard,
    };
  }

  #guild(guildId: string): Record<string, unknown> {
    const inGuild = [...this.fake.channels.values()].filter((c) => c.guild_id === guildId);
    return {
      id: guildId,
      name: this.fake.guilds.get(guildId) ?? 'Fake Guild',
      owner_id: '1',
      unavailable: false,
      member_count: 2,
      large: false,
      joined_at: new Date(0).toISOString(),
      features: [],
      emojis: [],
      stickers: [],
      roles: [
        {
          id: guildId,
          name: '@everyone',
          permissions: '2147483647',
          position: 0,
          color: 0,
          hoist: false,
          managed: false,
          mentionable: false,
          flags: 0,
        },
      ],
      members: [memberJson(this.fake.botUser)],
      channels: inGuild.filter((c) => c.type === 0).map(channelJson),
      threads: inGuild.filter((c) => c.type === 11 || c.type === 12).map(channelJson),
      voice_states: [],
      presences: [],
      stage_instances: [],
      guild_scheduled_events: [],
    };
  }
}

/** The guild a dispatch belongs to: `guild_id`, or the id of a guild event itself. */
function dispatchGuild(t: string, d: unknown): string | undefined {
  if (!d || typeof d !== 'object') return undefined;
  const data = d as { guild_id?: unknown; id?: unknown };
  if (typeof data.guild_id === 'string') return data.guild_id;
  if (t.startsWith('GUILD_') && typeof data.id === 'string') return data.id;
  return undefined;
}

/** IDENTIFY's `shard`: absent means [0, 1]; anything but `[id, count]` with id < count is invalid. */
function parseShard(value: unknown): [number, number] | 'invalid' {
  if (value === undefined || value === null) return [0, 1];
  if (!Array.isArray(value) || value.length !== 2) return 'invalid';
  const [id, count] = value as unknown[];
  if (!Number.isInteger(id) || !Number.isInteger(count)) return 'invalid';
  if ((id as number) < 0 || (count as number) < 1 || (id as number) >= (count as number)) return 'invalid';
  return [id as number, count as number];
}
