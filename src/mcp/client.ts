/**
 * One MCP server's connection: started with the bot, its tool list kept up
 * to date (`notifications/tools/list_changed`), and reconnected with backoff
 * on the injected clock when it drops or fails to start. While it is down
 * its tools are left out of new turns, and a call that reaches it anyway
 * (a turn that began while it was up) is answered with why. A call that
 * hears nothing for the call timeout (progress notifications count) fails,
 * and the server is marked down and restarted: no call waits forever.
 */

import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  type GetPromptResult,
  McpError,
  type Prompt as McpPrompt,
  type Tool as McpTool,
  type Progress,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { type Clock, sleep, type TimerHandle } from '../clock.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ToolContext } from '../tools/types.js';
import { clientCapabilities, installClientHandlers, quietServerLogs } from './client-handlers.js';
import type { McpServerConfig } from './config.js';
import { listAllTools, makeTransport } from './connect.js';
import { type ElicitationAsker, installElicitation } from './elicitation.js';
import { startSilenceTimer } from './silence.js';
import { GroupStdioTransport } from './stdio-transport.js';

/** First reconnect delay; it doubles after each failed attempt. */
export const MCP_RECONNECT_FIRST_MS = 1_000;
/** The longest wait between two attempts: a server down for hours is still tried every 5 minutes. */
export const MCP_RECONNECT_MAX_MS = 300_000;
/** How long a server has to answer `initialize` and `tools/list`. */
export const MCP_CONNECT_TIMEOUT_MS = 30_000;
/**
 * How long a call may go without a word from the server (its result or a
 * progress notification) before it is given up and the server restarted
 * (SWITCHBOARD_MCP_TIMEOUT). A server that died without closing its
 * connection (an HTTP server whose stream broke, a stdio server that hangs)
 * would otherwise hold the turn forever.
 */
export const MCP_CALL_TIMEOUT_MS = 30_000;
/** The SDK's own request timer, left far out of the way: the silence timer above runs on the injected clock. */
const SDK_TIMEOUT_OFF_MS = 2_147_483_647;

/** Where a server stands. */
export type McpServerState = 'connecting' | 'connected' | 'down' | 'closed';

/** Options for {@link McpServerConnection}. */
export interface McpConnectionOptions {
  config: McpServerConfig;
  /** The scrubbed environment every tool child gets; the server's `env` is laid over it. */
  baseEnv: Record<string, string>;
  clock: Clock;
  logger: Logger;
  /** Called whenever the tools this server offers change (connected, dropped, list_changed). */
  onChange?: () => void;
  connectTimeoutMs?: number;
  /** Most silence during a call (see {@link MCP_CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** The bot's workspace, offered to servers as their one root (`roots/list`). */
  workspace?: string;
  /** An HTTP server's sign-in (see src/mcp/oauth); without it a 401 is only an error. */
  authProvider?: OAuthClientProvider;
}

/** The problem a server that answered 401 shows in /status and /tools: what to run. */
export function signInNeeded(server: string): string {
  return `sign-in needed: an admin runs /mcp login ${server}`;
}

/** How long an HTTP server gets to answer the `DELETE` that ends its session at shutdown. */
const SESSION_END_GRACE_MS = 2_000;
/** What the SDK's HTTP transport reports once it stops trying to resume a broken stream. */
const RESUME_GAVE_UP = /^Maximum reconnection attempts/;

/** A server's connection, kept alive for the bot's lifetime. */
export class McpServerConnection {
  readonly name: string;
  readonly #options: McpConnectionOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #state: McpServerState = 'connecting';
  #tools: McpTool[] = [];
  #problem: string | undefined;
  #attempt = 0;
  #retry: TimerHandle | undefined;
  #retryAt: number | undefined;
  /** The requests running now, which a server's question (elicitation) goes to. */
  readonly #askers = new Set<ElicitationAsker>();

  constructor(options: McpConnectionOptions) {
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
    return this.#transport instanceof GroupStdioTransport ? this.#transport.pid : undefined;
  }

  /** Makes the first attempt; never rejects (a failure schedules the next attempt). */
  start(): Promise<void> {
    return this.#connect();
  }

  /** Tries at once a server that is down (after a sign-in), instead of at its next retry. */
  reconnect(): Promise<void> {
    if (this.#state !== 'down') return Promise.resolve();
    if (this.#retry !== undefined) this.#options.clock.clearTimeout(this.#retry);
    this.#retry = undefined;
    this.#retryAt = undefined;
    this.#attempt = 0;
    return this.#connect();
  }

  /**
   * Calls `tool` with `args`. `signal` cancels the call (the SDK sends
   * `notifications/cancelled`). Rejects with a message for the model when
   * the server is down, or when it stays silent longer than the call
   * timeout (then the server is marked down and restarted). `elicit` puts
   * a question the server asks meanwhile to the person (see elicitation.ts).
   */
  call(
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    onProgress?: (progress: Progress) => void,
    elicit?: ToolContext['elicit'],
  ): Promise<CallToolResult> {
    return this.#request(tool, signal, elicit, async (client, options) => {
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        ...options,
        // Asking for progress sends a progressToken: a server that reports it shows it is alive.
        onprogress: (progress) => {
          options.rearm();
          onProgress?.(progress);
        },
      })) as CallToolResult;
      return { result, outcome: result.isError === true ? 'tool error' : 'ok' };
    });
  }

  /** Reads the resource at `uri` (`resources/read`), on the same terms as a call. */
  readResource(uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
    return this.#request(
      `resources/read ${uri.slice(0, 200)}`,
      signal,
      undefined,
      async (client, options) => ({
        result: await client.readResource({ uri }, options),
        outcome: 'ok',
      }),
    );
  }

  /** Every prompt the server offers (`prompts/list`, all pages); none without the `prompts` capability. */
  async listPrompts(signal: AbortSignal): Promise<McpPrompt[]> {
    if (this.#state !== 'connected' || !this.#client?.getServerCapabilities()?.prompts) return [];
    return this.#request('prompts/list', signal, undefined, async (client, options) => {
      const prompts: McpPrompt[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listPrompts(cursor === undefined ? {} : { cursor }, options);
        prompts.push(...page.prompts);
        cursor = page.nextCursor;
      } while (cursor);
      return { result: prompts, outcome: 'ok' };
    });
  }

  /** One prompt filled with `args` (`prompts/get`). */
  getPrompt(name: string, args: Record<string, string>, signal: AbortSignal): Promise<GetPromptResult> {
    return this.#request(`prompts/get ${name}`, signal, undefined, async (client, options) => ({
      result: await client.getPrompt({ name, arguments: args }, options),
      outcome: 'ok',
    }));
  }

  /** Whether the server offers resources to read (its `resources` capability). */
  get hasResources(): boolean {
    return this.#state === 'connected' && this.#client?.getServerCapabilities()?.resources !== undefined;
  }

  /**
   * One request to the server, bounded by the silence timer, with one log
   * line saying how it went and how long it took. While it runs, a
   * question the server asks goes to `elicit`, with the timer held.
   */
  async #request<T>(
    what: string,
    signal: AbortSignal,
    elicit: ToolContext['elicit'],
    run: (
      client: Client,
      options: { signal: AbortSignal; timeout: number; rearm: () => void },
    ) => Promise<{ result: T; outcome: string }>,
  ): Promise<T> {
    const client = this.#client;
    if (this.#state !== 'connected' || !client) throw new Error(this.downMessage());
    const { clock, logger } = this.#options;
    const started = clock.now();
    const log = (outcome: string) =>
      logger.info({ server: this.name, tool: what, outcome, ms: clock.now() - started }, 'MCP call');
    const silence = startSilenceTimer(clock, this.#options.callTimeoutMs ?? MCP_CALL_TIMEOUT_MS);
    const asker: ElicitationAsker = {
      ...(elicit === undefined ? {} : { elicit }),
      hold: silence.stop,
      release: silence.rearm,
    };
    this.#askers.add(asker);
    try {
      const { result, outcome } = await run(client, {
        signal: AbortSignal.any([signal, silence.signal]),
        timeout: SDK_TIMEOUT_OFF_MS,
        rearm: silence.rearm,
      });
      log(outcome);
      return result;
    } catch (err) {
      if (silence.signal.aborted) {
        log('no answer');
        if (client === this.#client) this.#dropped(`it did not answer ${what} for ${silence.seconds} s`);
        throw new Error(
          `The MCP server "${this.name}" did not answer ${what} for ${silence.seconds} s, so the call was given up and the server is being restarted. Tell the user, or do without it.`,
        );
      }
      log(signal.aborted ? 'cancelled' : `failed: ${describeError(err).slice(0, 200)}`);
      // Refused for want of a (new) sign-in: the token was revoked, or the call needs more scope.
      if (err instanceof UnauthorizedError && client === this.#client) {
        this.#dropped(signInNeeded(this.name));
        throw new Error(
          `The MCP server "${this.name}" needs a new sign-in (an admin runs /mcp login ${this.name}), so its tools cannot run now. Tell the user.`,
        );
      }
      // An error the server answered with is the tool's; anything else means the link is broken.
      if (!signal.aborted && !(err instanceof McpError) && client === this.#client)
        this.#dropped(`the call failed: ${describeError(err)}`);
      // The connection went while the call waited: say that, not the SDK's "Connection closed".
      if (!signal.aborted && client !== this.#client) throw new Error(this.downMessage());
      throw err;
    } finally {
      this.#askers.delete(asker);
      silence.stop();
    }
  }

  /** What the model is told about a server that is down. */
  downMessage(): string {
    const next =
      this.#retryAt === undefined
        ? ''
        : ` The next attempt to reconnect is in ${Math.max(1, Math.ceil((this.#retryAt - this.#options.clock.now()) / 1000))} s.`;
    return `The MCP server "${this.name}" is not connected (${this.#problem ?? 'still connecting'}), so its tools cannot run now.${next} Tell the user, or do without it.`;
  }

  /**
   * Stops reconnecting and ends the server: a stdio server's whole process
   * group, an HTTP server's session (a `DELETE`, as the Streamable HTTP
   * transport asks of a client that leaves).
   */
  async close(): Promise<void> {
    const wasUp = this.#state === 'connected';
    this.#state = 'closed';
    if (this.#retry !== undefined) this.#options.clock.clearTimeout(this.#retry);
    this.#retry = undefined;
    const transport = this.#transport;
    // Bounded: a server that stopped answering must not hold up the bot's shutdown.
    if (wasUp && transport instanceof StreamableHTTPClientTransport)
      await Promise.race([
        transport
          .terminateSession()
          .catch((err: unknown) =>
            this.#options.logger.debug({ server: this.name, err }, 'MCP session could not be ended'),
          ),
        sleep(this.#options.clock, SESSION_END_GRACE_MS),
      ]);
    await this.#disconnect();
  }

  async #connect(): Promise<void> {
    const { logger } = this.#options;
    if (this.#state === 'closed') return;
    this.#state = 'connecting';
    const client = new Client(
      { name: 'switchboard', version: '1' },
      {
        capabilities: clientCapabilities(this.#options.workspace),
        listChanged: {
          tools: {
            onChanged: (err, tools) => {
              if (err || !tools || client !== this.#client) return;
              this.#tools = tools;
              logger.info({ server: this.name, tools: tools.length }, 'MCP server changed its tools');
              this.#options.onChange?.();
            },
          },
        },
      },
    );
    // Set before connecting, so no close is missed; while connecting, the failed attempt reports it.
    client.onclose = () => {
      if (client === this.#client && this.#state === 'connected')
        this.#dropped(this.#exitReason('the connection closed'));
    };
    installElicitation(client, { server: this.name, logger, askers: this.#askers });
    installClientHandlers(client, {
      server: this.name,
      logger,
      ...(this.#options.workspace === undefined ? {} : { workspace: this.#options.workspace }),
    });
    // The HTTP transport resumes a broken stream a few times on its own, then only reports it:
    // the server is gone, and a call waiting on that stream would wait for nothing.
    client.onerror = (err) => {
      if (client === this.#client && this.#state === 'connected' && RESUME_GAVE_UP.test(err.message))
        this.#dropped(`its stream broke and could not be resumed: ${err.message}`);
    };
    const transport = makeTransport(this.#options.config, {
      baseEnv: this.#options.baseEnv,
      clock: this.#options.clock,
      logger,
      ...(this.#options.authProvider ? { authProvider: this.#options.authProvider } : {}),
    });
    this.#client = client;
    this.#transport = transport;
    try {
      const timeout = this.#options.connectTimeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
      await client.connect(transport, { timeout });
      const tools = await listAllTools(client, timeout);
      await quietServerLogs(client, timeout);
      if (this.#closed() || client !== this.#client) return;
      this.#tools = tools;
      this.#state = 'connected';
      this.#problem = undefined;
      this.#attempt = 0;
      logger.info({ server: this.name, tools: tools.length }, 'MCP server connected');
      this.#options.onChange?.();
    } catch (err) {
      if (this.#closed() || client !== this.#client) return;
      if (err instanceof UnauthorizedError) this.#dropped(signInNeeded(this.name));
      else this.#dropped(this.#exitReason(`it could not be started: ${describeError(err)}`));
    }
  }

  /**
   * `why`, pointing at the log when a stdio server said something on
   * stderr. Its words stay in the log: they often hold what the server was
   * given (a token in its env or args), and `why` reaches /status and the model.
   */
  #exitReason(why: string): string {
    const tail = this.#transport instanceof GroupStdioTransport ? this.#transport.stderrTail : '';
    if (!tail) return why;
    this.#options.logger.warn(
      { server: this.name, stderr: tail.slice(-1_000) },
      `MCP server "${this.name}" stderr`,
    );
    return `${why}; its stderr is in the bot's log`;
  }

  #dropped(why: string): void {
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
    if (wasUp) this.#options.onChange?.();
  }

  /** A method, not a field test: the state may change while an attempt awaits. */
  #closed(): boolean {
    return this.#state === 'closed';
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    if (!client) return;
    client.onclose = () => {};
    await client.close().catch(() => undefined);
  }
}
