/**
 * The life of one MCP server's connection: started with the bot, marked
 * down when it drops or fails to start, and tried again with doubling
 * backoff on the injected clock (a server down for hours is still tried
 * every few minutes), until the bot closes it. Each attempt gets a fresh
 * SDK client and transport; an event from an attempt that is no longer the
 * current one is ignored, so a late close of an old connection never takes
 * down the new one.
 */
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { Clock, TimerHandle } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { McpServerConfig } from './config.js';
import { handshake, newClient } from './connect.js';
import type { ElicitationAsker } from './elicitation.js';
import { endSession, makeTransport, serverPid, stderrTail } from './transport.js';

/** First reconnect delay; it doubles after each failed attempt. */
export const MCP_RECONNECT_FIRST_MS = 1_000;
/** The longest wait between two attempts: a server down for hours is still tried every 5 minutes. */
export const MCP_RECONNECT_MAX_MS = 300_000;
/** How long a server has to answer `initialize` and `tools/list`. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;

/** Where a server stands. */
export type McpServerState = 'connecting' | 'connected' | 'down' | 'closed';

/** The problem a server that answered 401 shows in /status and /tools: what to run. */
export function signInNeeded(server: string): string {
  return `sign-in needed: an admin runs /mcp login ${server}`;
}

/** Options for {@link ConnectionLifecycle}. */
export interface LifecycleOptions {
  config: McpServerConfig;
  /** The scrubbed environment every tool child gets; the server's `env` is laid over it. */
  baseEnv: Record<string, string>;
  clock: Clock;
  logger: Logger;
  /** Called whenever the tools this server offers change (connected, dropped, list_changed). */
  onChange?: () => void;
  /** How long each step of the handshake may take (see {@link MCP_CONNECT_TIMEOUT_MS}). */
  connectTimeoutMs?: number;
  /** The bot's workspace, offered to servers as their one root (`roots/list`). */
  workspace?: string;
  /** An HTTP server's sign-in (see src/mcp/oauth); without it a 401 is only an error. */
  authProvider?: OAuthClientProvider;
  /** The calls running on this server now, which a server's question (elicitation) goes to. */
  askers: ReadonlySet<ElicitationAsker>;
}

/** One server's connection over the bot's lifetime: its state, its client, and the retries. */
export class ConnectionLifecycle {
  /** The server's name, as the config gives it. */
  readonly name: string;
  readonly #options: LifecycleOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #state: McpServerState = 'connecting';
  #tools: McpTool[] = [];
  #problem: string | undefined;
  #attempt = 0;
  #retry: TimerHandle | undefined;
  #retryAt: number | undefined;

  constructor(options: LifecycleOptions) {
    this.#options = options;
    this.name = options.config.name;
  }

  /** Where the server stands now. */
  get state(): McpServerState {
    return this.#state;
  }

  /** The server's tools as it listed them; empty while it is down. */
  get tools(): readonly McpTool[] {
    return this.#state === 'connected' ? this.#tools : [];
  }

  /** Why the server is down (or what went wrong last), for /status and the log. */
  get problem(): string | undefined {
    return this.#problem;
  }

  /** The server's process id, for a stdio server that is running. */
  get pid(): number | undefined {
    return serverPid(this.#transport);
  }

  /**
   * The current attempt's client, connected or still connecting. A request
   * compares it with the client it started on to tell whether the
   * connection it used is still the one in place.
   */
  get client(): Client | undefined {
    return this.#client;
  }

  /** Makes the first attempt; never rejects (a failure schedules the next attempt). */
  start(): Promise<void> {
    return this.#connect();
  }

  /** Tries at once a server that is down (after a sign-in), instead of at its next retry. */
  reconnect(): Promise<void> {
    if (this.#state !== 'down') return Promise.resolve();
    this.#cancelRetry();
    this.#attempt = 0;
    return this.#connect();
  }

  /**
   * Marks the server down for `why` (shown in /status and to the model),
   * ends its connection and schedules the next attempt. Nothing once closed.
   */
  drop(why: string): void {
    if (this.#state === 'closed') return;
    const wasUp = this.#state === 'connected';
    this.#state = 'down';
    this.#problem = why;
    void this.#disconnect();
    const delay = Math.min(MCP_RECONNECT_FIRST_MS * 2 ** this.#attempt, MCP_RECONNECT_MAX_MS);
    this.#attempt++;
    const { clock, logger } = this.#options;
    this.#retryAt = clock.now() + delay;
    this.#retry = clock.setTimeout(() => {
      this.#retry = undefined;
      this.#retryAt = undefined;
      void this.#connect();
    }, delay);
    logger.warn(
      { server: this.name, retryInMs: delay },
      `MCP server "${this.name}" is down (${why}); its tools are left out until it reconnects`,
    );
    // Only a server that was offering tools changes the list; a failed retry changes nothing.
    if (wasUp) this.#options.onChange?.();
  }

  /** What the model is told about a server that is down: why, and when it is tried next. */
  downMessage(): string {
    const next =
      this.#retryAt === undefined
        ? ''
        : ` The next attempt to reconnect is in ${Math.max(1, Math.ceil((this.#retryAt - this.#options.clock.now()) / 1000))} s.`;
    return `The MCP server "${this.name}" is not connected (${this.#problem ?? 'still connecting'}), so its tools cannot run now.${next} Tell the user, or do without it.`;
  }

  /** Stops reconnecting and ends the server: a stdio server's process group, an HTTP server's session. */
  async close(): Promise<void> {
    const wasUp = this.#state === 'connected';
    this.#state = 'closed';
    this.#cancelRetry();
    // Only a session that was set up has anything to end.
    const { clock, logger } = this.#options;
    if (wasUp) await endSession(this.#transport, { server: this.name, clock, logger });
    await this.#disconnect();
  }

  async #connect(): Promise<void> {
    const { logger } = this.#options;
    if (this.#state === 'closed') return;
    this.#state = 'connecting';
    const client = newClient({
      server: this.name,
      logger,
      askers: this.#options.askers,
      ...(this.#options.workspace === undefined ? {} : { workspace: this.#options.workspace }),
      onToolsChanged: (from, tools) => {
        if (from !== this.#client) return;
        this.#tools = tools;
        logger.info({ server: this.name, tools: tools.length }, 'MCP server changed its tools');
        this.#options.onChange?.();
      },
      // While connecting, the failed attempt reports the close itself.
      onClose: (from) => {
        if (from === this.#client && this.#state === 'connected')
          this.drop(this.#exitReason('the connection closed'));
      },
      onStreamLost: (from, message) => {
        if (from === this.#client && this.#state === 'connected')
          this.drop(`its stream broke and could not be resumed: ${message}`);
      },
    });
    const transport = makeTransport(this.#options.config, {
      baseEnv: this.#options.baseEnv,
      clock: this.#options.clock,
      logger,
      ...(this.#options.authProvider ? { authProvider: this.#options.authProvider } : {}),
    });
    // Set before connecting, so a close() meanwhile ends this attempt too.
    this.#client = client;
    this.#transport = transport;
    try {
      const tools = await handshake(
        client,
        transport,
        this.#options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS,
      );
      if (this.#closed() || client !== this.#client) return;
      this.#tools = tools;
      this.#state = 'connected';
      this.#problem = undefined;
      this.#attempt = 0;
      logger.info({ server: this.name, tools: tools.length }, 'MCP server connected');
      this.#options.onChange?.();
    } catch (err) {
      if (this.#closed() || client !== this.#client) return;
      if (err instanceof UnauthorizedError) this.drop(signInNeeded(this.name));
      else this.drop(this.#exitReason(`it could not be started: ${describeError(err)}`));
    }
  }

  /**
   * `why`, pointing at the log when a stdio server said something on
   * stderr. Its words stay in the log: they often hold what the server was
   * given (a token in its env or args), and `why` reaches /status and the model.
   */
  #exitReason(why: string): string {
    const tail = stderrTail(this.#transport);
    if (!tail) return why;
    this.#options.logger.warn(
      { server: this.name, stderr: tail.slice(-1_000) },
      `MCP server "${this.name}" stderr`,
    );
    return `${why}; its stderr is in the bot's log`;
  }

  /** A method, not a field test: the state may change while an attempt awaits. */
  #closed(): boolean {
    return this.#state === 'closed';
  }

  #cancelRetry(): void {
    if (this.#retry !== undefined) this.#options.clock.clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#retryAt = undefined;
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    if (!client) return;
    // Our own close is not a drop: it must not schedule a reconnect.
    client.onclose = () => {};
    await client.close().catch(() => undefined);
  }
}
