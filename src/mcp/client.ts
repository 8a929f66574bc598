/**
 * One MCP server as the rest of switchboard sees it: its state and tools
 * for the tool list and /status, and the requests a turn makes of it
 * (tool calls, resource reads, prompts). The connection's life, its
 * reconnects and backoff, is lifecycle.ts's; how a request is bounded and
 * its failure worded is requests.ts's. While the server is down its tools
 * are left out of new turns, and a request that reaches it anyway (a turn
 * that began while it was up) is answered with why.
 */
import type {
  CallToolResult,
  GetPromptResult,
  Prompt as McpPrompt,
  Tool as McpTool,
  Progress,
  ReadResourceResult,
  ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../tools/types.js';
import type { ElicitationAsker } from './elicitation.js';
import { ConnectionLifecycle, type LifecycleOptions, type McpServerState } from './lifecycle.js';
import { type RequestRunner, requestRunner } from './requests.js';

/** Options for {@link McpServerConnection}. */
export interface McpConnectionOptions extends Omit<LifecycleOptions, 'askers'> {
  /** Most silence during a call (see MCP_CALL_TIMEOUT_MS in requests.ts). */
  callTimeoutMs?: number;
}

/** A server's connection, kept alive for the bot's lifetime. */
export class McpServerConnection {
  /** The server's name, as the config gives it. */
  readonly name: string;
  readonly #lifecycle: ConnectionLifecycle;
  readonly #request: RequestRunner;

  constructor(options: McpConnectionOptions) {
    this.name = options.config.name;
    const { callTimeoutMs, ...rest } = options;
    // Shared by both halves: requests join it while they run, the client's question handler reads it.
    const askers = new Set<ElicitationAsker>();
    this.#lifecycle = new ConnectionLifecycle({ ...rest, askers });
    this.#request = requestRunner({
      lifecycle: this.#lifecycle,
      clock: options.clock,
      logger: options.logger,
      askers,
      ...(callTimeoutMs === undefined ? {} : { callTimeoutMs }),
    });
  }

  /** Where the server stands now. */
  get state(): McpServerState {
    return this.#lifecycle.state;
  }

  /** The server's tools as it listed them; empty while it is down. */
  get tools(): readonly McpTool[] {
    return this.#lifecycle.tools;
  }

  /** Why the server is down (or what went wrong last), for /status and the log. */
  get problem(): string | undefined {
    return this.#lifecycle.problem;
  }

  /** The server's process id, for a stdio server that is running. */
  get pid(): number | undefined {
    return this.#lifecycle.pid;
  }

  /** Whether the server offers resources to read (its `resources` capability). */
  get hasResources(): boolean {
    return this.#capabilities?.resources !== undefined;
  }

  /** Makes the first attempt; never rejects (a failure schedules the next attempt). */
  start(): Promise<void> {
    return this.#lifecycle.start();
  }

  /** Tries at once a server that is down (after a sign-in), instead of at its next retry. */
  reconnect(): Promise<void> {
    return this.#lifecycle.reconnect();
  }

  /**
   * Stops reconnecting and ends the server: a stdio server's whole process
   * group, an HTTP server's session (a `DELETE`, as the Streamable HTTP
   * transport asks of a client that leaves).
   */
  close(): Promise<void> {
    return this.#lifecycle.close();
  }

  /** What the model is told about a server that is down. */
  downMessage(): string {
    return this.#lifecycle.downMessage();
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
    if (!this.#capabilities?.prompts) return [];
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

  /** What the server said it offers, while it is connected. */
  get #capabilities(): ServerCapabilities | undefined {
    return this.#lifecycle.state === 'connected'
      ? this.#lifecycle.client?.getServerCapabilities()
      : undefined;
  }
}
