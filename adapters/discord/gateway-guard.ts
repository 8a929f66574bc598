/**
 * The adapter's boundary with discord.js's gateway handling. discord.js
 * builds its objects from each dispatch inside the gateway's message handler,
 * where nothing catches: a field it expects and Discord leaves out (a slash
 * command without `entitlements`, as Discord's own documentation shows one;
 * a DM button press without `authorizing_integration_owners`) throws a
 * TypeError there, the rejection goes unhandled and Node ends the process,
 * taking every other platform of `npm start` with it.
 *
 * Two layers keep the process alive: dispatches are read tolerantly (fields
 * the documentation marks optional, or omits in its examples, are filled
 * with their empty value before discord.js reads them), and the packet
 * handler is guarded, so whatever still throws is logged with the event's
 * kind and id and an interaction gets an answer instead of Discord's
 * "This interaction failed".
 */
import { type Client, Events, InteractionResponseType, MessageFlags, Routes } from 'discord.js';
import type { Logger } from '../../src/logger.js';

/** Said to a person whose interaction could not be read. */
export const UNREADABLE_INTERACTION =
  'I could not read that request from Discord; please try again, or mention me with your question.';

/** Interaction types (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-type). */
const AUTOCOMPLETE = 4;
const PING = 1;

type Packet = { t?: unknown; d?: unknown };
type Dispatch = Record<string, unknown>;

function isRecord(value: unknown): value is Dispatch {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Fills what discord.js 14 reads unconditionally but Discord may leave out
 * of an INTERACTION_CREATE: `entitlements` (documented as present for
 * monetized apps, absent from the documentation's examples) and
 * `authorizing_integration_owners` (absent from DM payloads recorded before
 * user-installable apps). Mutates the packet in place, before discord.js
 * reads it.
 */
export function fillInteraction(d: Dispatch): void {
  if (!Array.isArray(d.entitlements)) d.entitlements = [];
  if (!isRecord(d.authorizing_integration_owners)) d.authorizing_integration_owners = {};
  // discord.js takes the channel only from the `channel` object, which the documentation's examples
  // leave out; given just its id it uses the cached channel.
  if (!isRecord(d.channel) && typeof d.channel_id === 'string') d.channel = { id: d.channel_id };
  // A message component's message: discord.js reads its arrays without checking.
  const message = d.message;
  if (isRecord(message)) fillMessage(message);
}

/** Arrays discord.js maps over when present in a message but that older payloads omit. */
function fillMessage(m: Dispatch): void {
  for (const key of ['attachments', 'embeds', 'mentions', 'components'] as const) {
    if (m[key] !== undefined && !Array.isArray(m[key])) m[key] = [];
  }
  const snapshots = m.message_snapshots;
  if (snapshots !== undefined) {
    // A forward without the reference it depends on cannot be resolved; read the message without it.
    if (!Array.isArray(snapshots) || !isRecord(m.message_reference)) delete m.message_snapshots;
    else m.message_snapshots = snapshots.filter((s) => isRecord(s) && isRecord(s.message));
  }
}

/** Makes `packet.d` tolerable for discord.js, by kind. */
export function tolerate(packet: Packet): void {
  const d = packet.d;
  if (!isRecord(d)) return;
  if (packet.t === 'INTERACTION_CREATE') fillInteraction(d);
  else if (packet.t === 'MESSAGE_CREATE' || packet.t === 'MESSAGE_UPDATE') fillMessage(d);
}

/** What the guard needs besides the client. */
export interface GuardOptions {
  logger: Logger;
}

/** The discord.js packet handler, which its typings keep private. */
interface PacketHandling {
  handlePacket(packet?: unknown, shard?: unknown): boolean;
}

/**
 * Installs both layers on a client before it logs in. The raw listener runs
 * before discord.js builds its objects from the same packet (it emits `raw`
 * first), so the filled fields are what discord.js reads.
 */
export function guardGateway(client: Client, options: GuardOptions): void {
  const { logger } = options;
  client.on(Events.Raw, (packet: Packet) => {
    try {
      tolerate(packet);
    } catch (err) {
      logger.warn({ err, kind: packet?.t }, 'could not normalise a Discord dispatch');
    }
  });
  // handlePacket is where discord.js turns a dispatch into objects and events; its typings call it
  // private, but it is the one place every dispatch passes through synchronously.
  const ws = client.ws as unknown as PacketHandling;
  const original = ws.handlePacket.bind(ws);
  ws.handlePacket = (packet?: unknown, shard?: unknown): boolean => {
    try {
      return original(packet, shard);
    } catch (err) {
      const p = (packet ?? {}) as Packet;
      const d = isRecord(p.d) ? p.d : {};
      logger.error(
        { err, kind: String(p.t), id: typeof d.id === 'string' ? d.id : undefined },
        'discord.js could not read a Discord event; it was skipped and the bot keeps running',
      );
      if (p.t === 'INTERACTION_CREATE') void answerUnreadable(client, d, logger);
      return true;
    }
  };
}

/** Answers an interaction discord.js could not read, straight through REST, within Discord's 3 s. */
async function answerUnreadable(client: Client, d: Dispatch, logger: Logger): Promise<void> {
  const { id, token, type } = d;
  if (typeof id !== 'string' || typeof token !== 'string' || type === PING) return;
  const body =
    type === AUTOCOMPLETE
      ? { type: InteractionResponseType.ApplicationCommandAutocompleteResult, data: { choices: [] } }
      : {
          type: InteractionResponseType.ChannelMessageWithSource,
          data: {
            content: UNREADABLE_INTERACTION,
            flags: MessageFlags.Ephemeral,
            allowed_mentions: { parse: [] },
          },
        };
  try {
    await client.rest.post(Routes.interactionCallback(id, token), { body, auth: false });
  } catch (err) {
    logger.warn({ err, id }, 'could not answer an unreadable Discord interaction');
  }
}
