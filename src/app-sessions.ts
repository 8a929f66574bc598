/**
 * What the ready bot's sessions are made with: the session factory (the
 * Anthropic provider, the tools and their sandbox, MCP servers' tools), the
 * sign-ins to HTTP MCP servers, and the transcription of voice notes. Split
 * from app.ts, which assembles the whole bot from these parts.
 */
import type { Config, TranscriptionConfig } from '../config/index.js';
import type { VoiceOptions } from './bot/index.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { McpCredentialStore } from './mcp/oauth/credential-store.js';
import type { McpOAuth } from './mcp/oauth/login.js';
import { AnthropicProvider } from './provider/index.js';
import type { Sandbox } from './sandbox/index.js';
import { createSessionFactory, type SessionFactoryOptions } from './session/factory.js';
import type { SessionStore } from './store/types.js';
import { scrubbedEnv } from './tools/index.js';
import type { ToolSource } from './tools/types.js';
import { createTranscriber } from './transcribe/index.js';

/**
 * The session factory of the ready bot: the one place its sessions get the
 * provider, the tools (the MCP servers' included), the tools' workspace and
 * environment, and their settings.
 */
export function createConfiguredSessions(
  config: Config,
  sessionStore: SessionStore,
  clock: Clock,
  logger: Logger,
  sessionOptions: Partial<Omit<SessionFactoryOptions, 'sessionStore'>> | undefined,
  sandbox: Sandbox,
  toolSource: ToolSource | undefined,
) {
  return createSessionFactory({
    provider: new AnthropicProvider({
      apiKey: config.anthropic.apiKey,
      model: config.model,
      thinking: config.modelSettings.thinking,
      fallback: config.modelSettings.fallback,
      ...(config.modelSettings.effort ? { effort: config.modelSettings.effort } : {}),
      models: {
        ...(config.modelSettings.contextWindow ? { contextWindow: config.modelSettings.contextWindow } : {}),
        ...(config.modelSettings.maxOutputTokens
          ? { maxOutputTokens: config.modelSettings.maxOutputTokens }
          : {}),
      },
      logger,
      ...(config.anthropic.baseURL ? { baseURL: config.anthropic.baseURL } : {}),
    }),
    sessionStore,
    workspace: config.workspace,
    workspacePerChat: config.workspacePerChat,
    model: config.model,
    permissionMode: config.permissionMode,
    projectAccess: config.projectAccess,
    streamIdleTimeoutMs: config.streamIdleTimeoutMs,
    cache: config.cache,
    web: config.web,
    prices: config.prices,
    toolEnv: scrubbedEnv(process.env, config.secrets),
    sandbox,
    ...(toolSource ? { toolSource } : {}),
    clock,
    logger: logger.child({ component: 'bot' }),
    ...sessionOptions,
  });
}

/**
 * Sign-ins to HTTP MCP servers, when the settings they need are there
 * (SWITCHBOARD_SECRET_KEY to seal the tokens, SWITCHBOARD_PUBLIC_URL for the
 * redirect); otherwise `/mcp login` says what to set.
 */
export async function createMcpOAuth(
  config: Config,
  store: McpCredentialStore,
  clock: Clock,
  logger: Logger,
): Promise<McpOAuth | undefined> {
  if (!config.mcp || !config.secretKey || !config.publicUrl) return undefined;
  if (config.httpPort === undefined)
    logger.warn(
      'MCP sign-in needs SWITCHBOARD_HTTP_PORT (or a platform webhook port) for its callback; without one the sign-in link leads nowhere.',
    );
  const { McpOAuth } = await import('./mcp/oauth/login.js');
  const { oauthServers } = await import('./mcp/oauth/commands.js');
  const { McpSignIns } = await import('./mcp/oauth/sign-ins.js');
  const { createSecretBox, parseSecretKey } = await import('./mcp/oauth/secret-box.js');
  const oauthLogger = logger.child({ component: 'mcp-oauth' });
  const signIns = new McpSignIns(store, createSecretBox(parseSecretKey(config.secretKey)), oauthLogger);
  return new McpOAuth({
    signIns,
    servers: oauthServers(config.mcp.servers),
    publicUrl: config.publicUrl,
    clock,
    logger: oauthLogger,
  });
}

/** Voice notes through the configured transcription endpoint. */
export function voiceOptions(t: TranscriptionConfig, clock: Clock): VoiceOptions {
  return {
    transcriber: createTranscriber({
      url: t.url,
      model: t.model,
      ...(t.apiKey ? { apiKey: t.apiKey } : {}),
      clock,
    }),
    maxSeconds: t.maxSeconds,
    keepAudio: t.keepAudio,
    ...(t.pricePerMinute === undefined ? {} : { pricePerMinute: t.pricePerMinute }),
  };
}
