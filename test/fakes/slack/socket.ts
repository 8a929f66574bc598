/**
 * The fake Socket Mode server: `apps.connections.open` hands out its URL; a
 * connecting client gets `hello`, then envelopes (`events_api`,
 * `slash_commands`, `interactive`) and must answer each with
 * `{envelope_id, payload}`. Ack latency is recorded: Slack retries events
 * not acknowledged within 3 seconds.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

/** An envelope's acknowledgement. */
export interface Ack {
  envelopeId: string;
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: ack payloads are free-form JSON.
  payload: any;
  latencyMs: number;
}

/** Options for one envelope. */
export interface EnvelopeOptions {
  /** Slack's redelivery counter (`retry_attempt`), with `retry_reason`. */
  retryAttempt?: number;
  retryReason?: string;
  /** Reject when no ack arrives within this many ms (default 5000). */
  ackTimeoutMs?: number;
}

interface Pending {
  type: string;
  sentAt: number;
  resolve: (ack: Ack) => void;
  reject: (err: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** The fake Socket Mode endpoint. */
export class FakeSocketMode {
  readonly acks: Ack[] = [];
  readonly #wss = new WebSocketServer({ noServer: true });
  readonly #sockets = new Set<WebSocket>();
  readonly #pending = new Map<string, Pending>();
  #waiters: Array<() => void> = [];
  /** Connections accepted so far (reconnects count). */
  connectionCount = 0;
  /** How often the server pings each connection. */
  pingIntervalMs = 10_000;

  /** Handles the HTTP upgrade for `/socket`. */
  readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (!req.url?.startsWith('/socket')) {
      socket.destroy();
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#accept(ws));
  };

  /** Open connections. */
  get connected(): number {
    return this.#sockets.size;
  }

  /** Resolves once a client is connected (at once when one is). */
  waitForConnection(): Promise<void> {
    if ([...this.#sockets].some((s) => s.readyState === s.OPEN)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Resolves once every client has closed its socket. */
  async waitForDisconnect(): Promise<void> {
    while (this.#sockets.size > 0) {
      const [ws] = this.#sockets;
      if (!ws) break;
      await new Promise<void>((resolve) => {
        if (ws.readyState === ws.CLOSED) resolve();
        else ws.once('close', () => resolve());
      });
    }
  }

  /** Sends an envelope to the connected client and resolves with its ack. */
  send(type: string, payload: unknown, options: EnvelopeOptions = {}): Promise<Ack> {
    // The newest open connection, as Slack uses while an old one is closing.
    const ws = [...this.#sockets].reverse().find((s) => s.readyState === s.OPEN);
    if (!ws) return Promise.reject(new Error('no Socket Mode client is connected'));
    const envelopeId = randomUUID();
    const frame = {
      envelope_id: envelopeId,
      type,
      payload,
      accepts_response_payload: type !== 'events_api',
      ...(options.retryAttempt !== undefined
        ? { retry_attempt: options.retryAttempt, retry_reason: options.retryReason ?? 'timeout' }
        : type === 'events_api'
          ? { retry_attempt: 0, retry_reason: '' }
          : {}),
    };
    return new Promise<Ack>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(envelopeId);
        reject(new Error(`no ack for ${type} envelope within ${options.ackTimeoutMs ?? 5000} ms`));
      }, options.ackTimeoutMs ?? 5000);
      this.#pending.set(envelopeId, { type, sentAt: performance.now(), resolve, reject, timer });
      ws.send(JSON.stringify(frame));
    });
  }

  /** Asks clients to reconnect, as Slack does when it recycles a connection. */
  sendDisconnect(reason = 'refresh_requested'): void {
    for (const ws of this.#sockets) ws.send(JSON.stringify({ type: 'disconnect', reason }));
  }

  /** Cuts every connection without a close handshake. */
  dropAll(): void {
    for (const ws of this.#sockets) ws.terminate();
  }

  async close(): Promise<void> {
    for (const p of this.#pending.values()) clearTimeout(p.timer);
    this.#pending.clear();
    for (const ws of this.#sockets) ws.terminate();
    await new Promise<void>((resolve) => this.#wss.close(() => resolve()));
  }

  #accept(ws: WebSocket): void {
    this.#sockets.add(ws);
    this.connectionCount += 1;
    // Slack pings its clients; Bolt reconnects when it hears nothing for 30 s.
    const pinger = setInterval(() => ws.ping(), this.pingIntervalMs);
    pinger.unref();
    ws.on('close', () => {
      clearInterval(pinger);
      this.#sockets.delete(ws);
    });
    ws.on('message', (data) => this.#onMessage(String(data)));
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: this.#sockets.size,
        debug_info: { host: 'fake', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0FAKE' },
      }),
    );
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  #onMessage(raw: string): void {
    let msg: { envelope_id?: string; payload?: unknown };
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    const pending = msg.envelope_id ? this.#pending.get(msg.envelope_id) : undefined;
    if (!pending || !msg.envelope_id) return;
    clearTimeout(pending.timer);
    this.#pending.delete(msg.envelope_id);
    const ack: Ack = {
      envelopeId: msg.envelope_id,
      type: pending.type,
      payload: msg.payload,
      latencyMs: performance.now() - pending.sentAt,
    };
    this.acks.push(ack);
    pending.resolve(ack);
  }
}
