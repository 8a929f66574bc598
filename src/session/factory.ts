/**
 * The one place sessions get their provider, tools, tool context and store:
 * built once from the configuration, then asked for a session per key (the
 * bot passes a chat key). Every option of {@link InteractiveSessionOptions}
 * that is not about one particular session passes through unchanged, so a
 * new session setting needs no copy here.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchboardError } from '../errors.js';
import { DEFAULT_PRICES, type PriceTable } from '../provider/pricing.js';
import { Sandbox } from '../sandbox/sandbox.js';
import type { SessionStore } from '../store/types.js';
import { createBuiltinTools } from '../tools/index.js';
import type { ToolPrompt, ToolServerStatus } from '../vocabulary.js';
import { InteractiveSession } from './interactive-session.js';
import type { InteractiveSessionOptions } from './session-options.js';

/** Options of a session that belong to one request, not to the factory. */
type PerSession = 'cwd' | 'owner' | 'resumeSessionId' | 'forkSession' | 'sessionName' | 'sessionStore';

/** What {@link createSessionFactory} builds every session from. */
export interface SessionFactoryOptions extends Omit<InteractiveSessionOptions, PerSession> {
  /** Where every session saves itself. */
  sessionStore: SessionStore;
  /** The tools' working directory (created if missing). */
  workspace: string;
  /** Give each key (chat) its own folder under `workspace`; default false. */
  workspacePerChat?: boolean;
  /** List prices of the models, for what a usage ledger costs; default the built-in table (`DEFAULT_PRICES`). */
  prices?: PriceTable;
}

/** One session asked of a {@link SessionFactory}. */
export interface SessionRequest {
  /** Who the session is for (a chat key); names its folder with `workspacePerChat`. */
  key: string;
  /** Owner key stored with a new session. */
  owner?: string | undefined;
  /** Loads this saved session instead of starting one. */
  resumeSessionId?: string;
  /** With `resumeSessionId`: a copy under a new id. */
  forkSession?: boolean;
  /** The session's own permission timeout, when its caller answers approvals on a timer of its own. */
  permissionTimeoutMs?: number;
}

/** The tools sessions get, as `/tools` and `/status` show them. */
export interface ToolsReport {
  /** The tools every session has (the built-in ones, unless `tools` replaced them). */
  fixed: string[];
  /** The servers of tools that come and go (MCP), each with its state and tools. */
  servers: ToolServerStatus[];
}

/** Opens sessions that all share one provider, tool set and store. */
export interface SessionFactory {
  /** The store every session saves to; lists and loads sessions for /sessions and /resume. */
  readonly sessionStore: SessionStore;
  /** The tools' sandbox every session shares (each turn gets its own); `/status` shows its state. */
  readonly sandbox: Sandbox;
  /** What the sessions' model requests cost: `/cost`, budgets and reply footers price usage ledgers with it. */
  readonly prices: PriceTable;
  /** Opens (and waits for) a new, resumed or forked session. */
  open(request: SessionRequest): Promise<InteractiveSession>;
  /** The tools sessions get now: the fixed ones and each tool server's. */
  toolsReport(): ToolsReport;
  /** The prompts the tool servers offer (`/mcp prompts`); none without MCP servers. */
  prompts?(): Promise<ToolPrompt[]>;
  /**
   * A tool server's prompt filled with `words`, as the text of a message (`/mcp run`).
   *
   * @throws SwitchboardError saying what is wrong (no such server or prompt, a missing argument).
   */
  promptText?(server: string, prompt: string, words: readonly string[]): Promise<string>;
  /** The answer to `/mcp login <server>` (see ToolSource.signIn). */
  signIn?(server: string, chat: string): Promise<string>;
  /** The answer to `/mcp logout <server>` (see ToolSource.signOut). */
  signOut?(server: string): Promise<string>;
}

/** What `/mcp login` and `/mcp logout` answer when there is no MCP server at all. */
const NO_MCP_SERVERS = 'There are no MCP servers: SWITCHBOARD_MCP_CONFIG names a file to add some.';

/**
 * @example
 * const sessions = createSessionFactory({
 *   provider: new AnthropicProvider({ apiKey }),
 *   sessionStore: createUserSessionStore('./data/sessions'),
 *   workspace: './workspace',
 * });
 * const session = await sessions.open({ key: 'telegram:42', owner: 'telegram:7' });
 */
export function createSessionFactory(options: SessionFactoryOptions): SessionFactory {
  const { workspace, workspacePerChat = false, prices = DEFAULT_PRICES, ...rest } = options;
  // One sandbox for all: bubblewrap is probed once, not per session.
  const shared = { ...rest, sandbox: options.sandbox ?? new Sandbox() };
  const fixed = (options.tools ?? createBuiltinTools()).map((tool) => tool.name);
  return {
    sessionStore: options.sessionStore,
    sandbox: shared.sandbox,
    prices,
    toolsReport: () => ({ fixed, servers: options.toolSource?.servers() ?? [] }),
    prompts: async () => (await options.toolSource?.prompts?.()) ?? [],
    async promptText(server, prompt, words) {
      const source = options.toolSource;
      if (!source?.promptText)
        throw new SwitchboardError(
          'NOT_FOUND',
          'There are no MCP servers: SWITCHBOARD_MCP_CONFIG names a file to add some.',
        );
      return source.promptText(server, prompt, words);
    },
    signIn: async (server, chat) => (await options.toolSource?.signIn?.(server, chat)) ?? NO_MCP_SERVERS,
    signOut: async (server) => (await options.toolSource?.signOut?.(server)) ?? NO_MCP_SERVERS,
    async open(request) {
      const cwd = workspacePerChat ? join(workspace, workspaceFolderName(request.key)) : workspace;
      // The tools need their working directory to exist before the first call.
      await mkdir(cwd, { recursive: true });
      return InteractiveSession.open({
        ...shared,
        cwd,
        ...(request.owner ? { owner: request.owner } : {}),
        ...(request.resumeSessionId === undefined ? {} : { resumeSessionId: request.resumeSessionId }),
        ...(request.forkSession ? { forkSession: true } : {}),
        ...(request.permissionTimeoutMs === undefined
          ? {}
          : { permissionTimeoutMs: request.permissionTimeoutMs }),
      });
    },
  };
}

/** A chat key as a folder name: `slack:C1:17.2` -> `slack_C1_17.2`; never `..` or empty. */
export function workspaceFolderName(key: string): string {
  const clean = key.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return clean.slice(0, 120) || '_';
}
