/**
 * A bot on the harness (RecordingAdapter, real sessions, the fake Messages
 * API) whose sessions get the tools of real MCP servers: the stdio fixture
 * (test/fixtures/mcp/notes-server.mjs, run with node) and any other server
 * a test names, read from a real `.mcp.json`-style file.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';
import { VirtualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import {
  loadMcpConfig,
  type McpServers,
  type McpServersOptions,
  startMcpServers,
} from '../../src/mcp/index.js';
import { scrubbedEnv } from '../../src/tools/index.js';
import type { StoredMessage } from '../fakes/recording-adapter.js';
import { type BotHarness, type HarnessOptions, startBotHarness } from '../helpers/bot-harness.js';

/** The stdio fixture server. */
export const NOTES_SERVER = resolve(import.meta.dirname, '../fixtures/mcp/notes-server.mjs');

/** The stdio fixture as a server entry of the file; its env is expanded from the test's environment. */
export const notesEntry = {
  command: process.execPath,
  args: [NOTES_SERVER],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: `${VAR}` is the file's own syntax, expanded by the bot.
  env: { NOTES_EVENTS: '${NOTES_EVENTS}', NOTES_TOKEN: '${NOTES_TOKEN:-default-token}' },
};

/** A bot with MCP servers, and what a test needs to watch them. */
export interface McpWorld {
  h: BotHarness;
  mcp: McpServers;
  /** The clock the servers' reconnect backoff runs on. */
  mcpClock: VirtualClock;
  /** Log lines of the MCP servers' manager. */
  logs: string[];
  /** Lines the stdio fixture appended to its events file so far. */
  events(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Writes `servers` as `{"mcpServers": ...}`, validates it as the bot does,
 * starts the servers and a bot whose sessions use them.
 */
export async function startMcpWorld(
  servers: Record<string, unknown>,
  options: {
    env?: Record<string, string>;
    harness?: HarnessOptions;
    /** Passed to startMcpServers (e.g. `callTimeoutMs`). */
    mcp?: Partial<Omit<McpServersOptions, 'servers' | 'baseEnv' | 'clock' | 'logger'>>;
  } = {},
): Promise<McpWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'switchboard-mcp-'));
  const eventsFile = join(dir, 'events.log');
  await writeFile(eventsFile, '');
  const file = join(dir, '.mcp.json');
  await writeFile(file, JSON.stringify({ mcpServers: servers }, null, 2));
  const config = loadMcpConfig(file, { NOTES_EVENTS: eventsFile, ...options.env });
  const mcpClock = new VirtualClock(Date.parse('2026-01-01T00:00:00Z'));
  const logs: string[] = [];
  const logger = createLogger({
    level: 'debug',
    secrets: config.secrets,
    destination: { write: (line: string) => logs.push(line) } as never,
  });
  const mcp = await startMcpServers({
    servers: config.servers,
    baseEnv: scrubbedEnv(),
    clock: mcpClock,
    logger,
    secrets: config.secrets,
    ...options.mcp,
  });
  // A fixed cache lifetime: `auto` may pick another one as virtual time passes, which changes the bytes.
  const h = await startBotHarness({ cache: '5m', ...options.harness, toolSource: mcp });
  return {
    h,
    mcp,
    mcpClock,
    logs,
    events: async () => (await readFile(eventsFile, 'utf8')).split('\n').filter(Boolean),
    async close() {
      await h.close();
      await mcp.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Closes each test's worlds after it: call once at the top of a test file,
 * then start worlds with the function it returns.
 */
export function closingMcpWorlds(): typeof startMcpWorld {
  const open: McpWorld[] = [];
  afterEach(async () => {
    for (const world of open.splice(0)) await world.close();
  });
  return async (servers, options) => {
    const world = await startMcpWorld(servers, options);
    open.push(world);
    return world;
  };
}

/** Waits for the approval prompt of the running turn and returns it. */
export async function approvalPrompt(h: BotHarness, after = 0): Promise<StoredMessage> {
  let prompt: StoredMessage | undefined;
  await h.until(() => {
    prompt = h.adapter
      .chatMessages(h.chat)
      .slice(after)
      .find((m) => m.text.startsWith('🔐') && m.buttons.length > 0);
    return prompt !== undefined;
  }, 'approval prompt');
  return prompt as StoredMessage;
}

/** The payload of the prompt's button whose payload starts with `prefix` (`a:`, `s:`, `d:`). */
export function button(prompt: StoredMessage, prefix: string): string {
  return prompt.buttons.flat().find((b) => b.payload.startsWith(prefix))?.payload as string;
}

/** One turn in which the model calls `tool` with `input`, then answers `reply`; returns once it has settled. */
export async function turnCalling(
  h: BotHarness,
  tool: string,
  input: Record<string, unknown>,
  reply: string,
): Promise<void> {
  h.fakeAnthropic.enqueue({ text: `Calling ${tool}.`, toolUse: [{ name: tool, input }] }, { text: reply });
  await h.message(`please use ${tool}`);
  await h.settle();
}

/** The tool names a request offered. */
// biome-ignore lint/suspicious/noExplicitAny: parsed request bodies.
export function toolNames(body: any): string[] {
  return (body.tools ?? []).map((t: { name: string }) => t.name);
}

/**
 * The tools a request's mid-conversation system messages add and remove
 * (`tool_addition` / `tool_removal`), in order: `+name` or `-name`.
 */
// biome-ignore lint/suspicious/noExplicitAny: request bodies from the fake.
export function toolChanges(body: any): string[] {
  const changes: string[] = [];
  for (const m of body.messages ?? []) {
    if (m.role !== 'system' || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type === 'tool_addition') changes.push(`+${b.tool.definition?.name ?? b.tool.name}`);
      if (b.type === 'tool_removal') changes.push(`-${b.tool.name}`);
    }
  }
  return changes;
}
