/**
 * Creating and logging in the discord.js client. Start-up fails with a
 * message that says what to fix: a rejected token (401 on /gateway/bot or
 * gateway close 4004) or the Message Content intent not enabled (close 4014),
 * without ever echoing the token.
 */
import { createRequire } from 'node:module';
import { Client, Events, GatewayIntentBits, Partials, type RESTOptions } from 'discord.js';
import { SwitchboardError } from '../../src/errors.js';

/** Gateway close codes that mean start-up cannot succeed. */
const AUTH_FAILED = 4004;
const DISALLOWED_INTENTS = 4014;

/** The message start() rejects with when the Message Content intent is off. */
export const INTENT_MESSAGE =
  'Discord refused the Message Content intent: enable it in the Developer Portal > Bot > Privileged Gateway Intents';

/** The message start() rejects with when the token is wrong. */
export const TOKEN_MESSAGE =
  'DISCORD_BOT_TOKEN was rejected by Discord: copy the token from the Developer Portal > Bot (Reset Token) into .env';

/**
 * An HTTP agent of the undici that discord.js's REST itself loads. Undici
 * keeps one dispatcher per process under a symbol every copy shares, set by
 * whichever copy loads first: with Slack's Socket Mode (another major of
 * undici) loaded first, REST's multipart uploads reached that copy's agent
 * and failed ("action is not a function"). An agent of its own copy keeps
 * every REST call on one version.
 */
function restAgent(): NonNullable<RESTOptions['agent']> {
  const fromHere = createRequire(import.meta.url);
  const fromDiscord = createRequire(fromHere.resolve('discord.js'));
  const fromRest = createRequire(fromDiscord.resolve('@discordjs/rest'));
  const { Agent } = fromRest('undici') as { Agent: new () => NonNullable<RESTOptions['agent']> };
  return new Agent();
}

/** The gateway intents the adapter reads: guild and DM messages with their content. */
export const REQUIRED_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.DirectMessages,
] as const;

/** Partials the adapter needs: uncached DM channels and messages (edits of old messages) still arrive. */
export const REQUIRED_PARTIALS = [Partials.Channel, Partials.Message] as const;

/**
 * Checks a client someone else built before the adapter joins it: without
 * these intents and partials no message would ever reach the agent, so it
 * fails now with what to add.
 */
export function checkClient(client: Client): void {
  const intents = REQUIRED_INTENTS.filter((i) => !client.options.intents.has(i)).map(
    (i) => `GatewayIntentBits.${GatewayIntentBits[i]}`,
  );
  const partials = REQUIRED_PARTIALS.filter((p) => !client.options.partials?.includes(p)).map(
    (p) => `Partials.${Partials[p]}`,
  );
  if (intents.length + partials.length === 0) return;
  const missing = [
    ...(intents.length ? [`intents ${intents.join(', ')}`] : []),
    ...(partials.length ? [`partials ${partials.join(', ')}`] : []),
  ].join(' and ');
  throw new SwitchboardError(
    'CONFIG_INVALID',
    `Your Discord client lacks the ${missing} that switchboard reads: add them to new Client({ intents, partials })`,
  );
}

/** Resolves with the client once it is ready (at once when it already is). */
export function whenReady(client: Client): Promise<Client<true>> {
  if (client.isReady()) return Promise.resolve(client);
  return new Promise((resolve) => client.once(Events.ClientReady, (ready) => resolve(ready)));
}

/** Builds the client: guild and DM messages with their content; partial channels so uncached DMs arrive. */
export function buildClient(rest: Partial<RESTOptions>): Client {
  return new Client({
    intents: [...REQUIRED_INTENTS],
    partials: [...REQUIRED_PARTIALS],
    allowedMentions: { parse: [], repliedUser: false },
    rest: { agent: restAgent(), ...rest },
  });
}

function refusal(code: number): SwitchboardError | undefined {
  if (code === DISALLOWED_INTENTS) {
    return new SwitchboardError('PLATFORM_AUTH', INTENT_MESSAGE, { detail: { closeCode: code } });
  }
  if (code === AUTH_FAILED)
    return new SwitchboardError('PLATFORM_AUTH', TOKEN_MESSAGE, { detail: { closeCode: code } });
  return undefined;
}

/**
 * Logs in and resolves once the client is ready (guilds received). Rejects
 * with a {@link SwitchboardError} when Discord refuses the token or intents;
 * the client is destroyed before rejecting.
 */
export async function connect(client: Client, token: string): Promise<void> {
  let onDisconnect: ((event: { code: number }) => void) | undefined;
  const refused = new Promise<never>((_, reject) => {
    onDisconnect = (event) =>
      reject(
        refusal(event.code) ??
          new SwitchboardError('PLATFORM_ERROR', `Discord closed the gateway (code ${event.code}).`),
      );
    client.on(Events.ShardDisconnect, onDisconnect);
  });
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  try {
    await Promise.race([client.login(token).then(() => ready), refused]);
  } catch (err) {
    await client.destroy().catch(() => {});
    throw mapLoginError(err);
  } finally {
    if (onDisconnect) client.off(Events.ShardDisconnect, onDisconnect);
    refused.catch(() => {});
  }
}

function mapLoginError(err: unknown): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  const e = err as { code?: unknown; status?: number; message?: string };
  if (e.code === 'TokenInvalid' || e.status === 401 || e.message === 'Authentication failed') {
    return new SwitchboardError('PLATFORM_AUTH', TOKEN_MESSAGE, { cause: err });
  }
  if (e.message === 'Used disallowed intents')
    return new SwitchboardError('PLATFORM_AUTH', INTENT_MESSAGE, { cause: err });
  return new SwitchboardError('PLATFORM_ERROR', `Could not connect to Discord: ${e.message ?? String(err)}`, {
    cause: err,
  });
}
