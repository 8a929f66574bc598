/**
 * The fake gateway (plain JSON over `ws`, no compression): HELLO, IDENTIFY ->
 * READY + GUILD_CREATE, heartbeat ACK, RESUME -> replay + RESUMED, dispatches
 * with sequence numbers, and closing with a code (4004 bad token, 4014 the
 * Message Content intent not allowed).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { channelJson, memberJson } from './model.js';
import type { FakeDiscordState as FakeDiscord } from './state.js';

/** The Message Content privileged intent bit. */
export const MESSAGE_CONTENT_INTENT = 1 << 15;

interface GatewaySession {
  id: string;
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
  readonly log: { op: 'identify' | 'resume' | 'close'; code?: number; intents?: number }[] = [];
  #current: GatewaySession | undefined;

  constructor(private readonly fake: FakeDiscord) {
    this.wss.on('connection', (socket) => this.#accept(socket));
  }

  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  /** Sends a dispatch to the live session (buffered for resume while disconnected). */
  dispatch(t: string, d: unknown): void {
    const session = this.#current;
    if (!session) return;
    const frame = { s: ++session.seq, t, d };
    session.sent.push(frame);
    if (session.socket?.readyState === 1) session.socket.send(JSON.stringify({ op: 0, ...frame }));
  }

  /** True while a session's socket is open and identified. */
  get connected(): boolean {
    return this.#current?.socket?.readyState === 1;
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

  #accept(socket: WebSocket): void {
    socket.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.fake.heartbeatIntervalMs } }));
    socket.on('message', (raw) => {
      let frame: { op: number; d: Record<string, unknown> };
      try {
        frame = JSON.parse(String(raw));
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      this.#onFrame(socket, frame);
    });
    socket.on('close', (code) => {
      for (const session of this.sessions.values()) if (session.socket === socket) session.socket = undefined;
      this.log.push({ op: 'close', code });
      this.fake.changed();
    });
  }

  #onFrame(socket: WebSocket, frame: { op: number; d: Record<string, unknown> }): void {
    const { op, d } = frame;
    if (op === 1) {
      socket.send(JSON.stringify({ op: 11 }));
      return;
    }
    if (op === 2) {
      const intents = Number(d.intents ?? 0);
      this.log.push({ op: 'identify', intents });
      if (d.token !== this.fake.token) {
        socket.close(4004, 'Authentication failed.');
        return;
      }
      if (intents & MESSAGE_CONTENT_INTENT && !this.fake.messageContentAllowed) {
        socket.close(4014, 'Disallowed intent(s).');
        return;
      }
      const session: GatewaySession = { id: randomUUID(), seq: 0, sent: [], socket };
      this.sessions.set(session.id, session);
      this.#current = session;
      this.dispatch('READY', this.#ready(session.id));
      this.dispatch('GUILD_CREATE', this.#guild());
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
      const after = Number(d.seq ?? 0);
      for (const f of session.sent) if (f.s > after) socket.send(JSON.stringify({ op: 0, ...f }));
      this.dispatch('RESUMED', {});
      this.fake.changed();
    }
  }

  #ready(sessionId: string): Record<string, unknown> {
    return {
      v: 10,
      user: this.fake.botUser,
      guilds: [{ id: this.fake.guildId, unavailable: true }],
      session_id: sessionId,
      resume_gateway_url: this.fake.gatewayUrl,
      application: { id: this.fake.applicationId, flags: 0 },
      shard: [0, 1],
    };
  }

  #guild(): Record<string, unknown> {
    const guildId = this.fake.guildId;
    const inGuild = [...this.fake.channels.values()].filter((c) => c.guild_id === guildId);
    return {
      id: guildId,
      name: 'Fake Guild',
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
