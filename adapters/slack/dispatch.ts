/**
 * Interactive payloads the bot offers nothing for. Slack shows the person an
 * error when an interactive payload is not acknowledged within 3 seconds (in
 * HTTP mode Bolt answers 404 after that), so every one is acknowledged here,
 * before Bolt looks for a listener, and the person is told in one line what
 * the bot cannot do: a button on a message the bot did not post (or an old
 * version's), a form (view_submission), a global or message shortcut, the
 * options of an external select, legacy attachment buttons and dialogs.
 * The bot's own approval and Stop buttons pass on to their listener.
 * https://docs.slack.dev/interactivity/handling-user-interaction#acknowledgment_response
 */
import type { App } from '@slack/bolt';
import type { Logger } from '../../src/logger.js';
import { ACTION_ID_PATTERN } from './buttons.js';

/** Said for a button or menu the bot does not (or no longer) offer. */
export const INACTIVE_CONTROL = 'This control is no longer active.';
/** Said for a shortcut: switchboard declares none. */
export const NO_SHORTCUTS = "I don't have shortcuts; mention me in a channel or send me a DM.";
/** Said when a form the bot never opened is submitted. */
export const NO_FORMS = "I don't take forms; mention me in a channel or send me a DM.";

type Body = Record<string, unknown>;
type AckFn = (response?: Record<string, unknown>) => Promise<void>;
type RespondFn = (message: Record<string, unknown>) => Promise<unknown>;

/** The kinds of interactive payload (`body.type`) Slack sends to an app. */
const INTERACTIVE = new Set([
  'block_actions',
  'block_suggestion',
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'interactive_message',
  'dialog_submission',
  'dialog_cancellation',
  'dialog_suggestion',
]);

/** True for a press of one of the bot's own buttons, which its listener answers. */
export function isOwnButton(body: Body): boolean {
  if (body.type !== 'block_actions' || !Array.isArray(body.actions)) return false;
  const action = body.actions[0] as { type?: unknown; action_id?: unknown } | undefined;
  return (
    action?.type === 'button' &&
    typeof action.action_id === 'string' &&
    ACTION_ID_PATTERN.test(action.action_id)
  );
}

/** A one-section modal carrying `text`, for answers that have no channel to go to. */
function noticeView(text: string): Record<string, unknown> {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'switchboard' },
    close: { type: 'plain_text', text: 'OK' },
    blocks: [{ type: 'section', text: { type: 'plain_text', text } }],
  };
}

/**
 * Installs the global middleware that acknowledges and answers every
 * interactive payload no listener of the bot takes. Events and slash
 * commands pass through untouched.
 */
export function acknowledgeUnhandled(app: App, logger: Logger): void {
  app.use(async (args) => {
    const body = (args.body ?? {}) as Body;
    const kind = typeof body.type === 'string' ? body.type : '';
    if (!INTERACTIVE.has(kind) || isOwnButton(body)) {
      await args.next();
      return;
    }
    const ack = (args as { ack?: AckFn }).ack;
    const respond = (args as { respond?: RespondFn }).respond;
    const user = (body.user as { id?: unknown } | undefined)?.id;
    const say = async (text: string) => {
      if (respond) await respond({ response_type: 'ephemeral', replace_original: false, text });
      else if (typeof body.trigger_id === 'string')
        await args.client.views.open({ trigger_id: body.trigger_id, view: noticeView(text) as never });
    };
    try {
      if (kind === 'block_suggestion' || kind === 'dialog_suggestion') await ack?.({ options: [] });
      else if (kind === 'view_submission')
        await ack?.({ response_action: 'update', view: noticeView(NO_FORMS) });
      else await ack?.();
      logger.info({ kind, user }, 'answered a Slack interaction the bot does not offer');
      if (kind === 'block_actions' || kind === 'interactive_message') await say(INACTIVE_CONTROL);
      else if (kind === 'shortcut' || kind === 'message_action') await say(NO_SHORTCUTS);
    } catch (err) {
      logger.warn({ err, kind, user }, 'could not answer a Slack interaction the bot does not offer');
    }
  });
}

/** What Bolt hands its App for each payload. */
interface ReceiverEventLike {
  body: Record<string, unknown>;
  ack: (response?: unknown) => Promise<void>;
}

/**
 * Guards Bolt's processing of every payload, whatever the receiver: a
 * payload Bolt cannot classify (a kind newer than this Bolt, an
 * `event_callback` without its event) returns without an acknowledgement,
 * and one a built-in step cannot read (a block_actions without `actions`)
 * throws before any listener runs. Either way the payload is acknowledged
 * here, so Slack neither retries it nor shows the person an error, and the
 * failure is logged with the payload's kind and id.
 */
export function acknowledgeAlways(app: App, logger: Logger): void {
  const process = app.processEvent.bind(app);
  app.processEvent = async (event: ReceiverEventLike): Promise<void> => {
    let acked = false;
    const ack = event.ack;
    const tracked = {
      ...event,
      ack: async (response?: unknown) => {
        acked = true;
        await ack(response);
      },
    };
    const body = event.body ?? {};
    const kind =
      typeof body.type === 'string' ? body.type : body.command !== undefined ? 'slash_command' : 'unknown';
    try {
      await process(tracked as never);
    } catch (err) {
      logger.error({ err, kind, id: body.event_id ?? body.trigger_id }, 'Slack payload could not be handled');
    } finally {
      if (!acked) {
        logger.warn(
          { kind, id: body.event_id ?? body.trigger_id },
          'acknowledged a Slack payload nothing took',
        );
        await ack().catch((err) => logger.warn({ err, kind }, 'could not acknowledge a Slack payload'));
      }
    }
  };
}

type WsListener = (data: unknown, isBinary: boolean) => unknown;

/**
 * Socket Mode: @slack/socket-mode reads `payload.event.type` of every
 * events_api envelope without checking, in a handler nothing catches, so one
 * envelope without its event ends the process. Its message listeners are
 * replaced by one that repairs such an envelope (an event Bolt acknowledges
 * and the bot ignores) and logs, rather than crashes on, whatever still
 * fails.
 */
export function guardSocketMessages(
  client: {
    listeners(event: string): unknown[];
    removeAllListeners(event: string): unknown;
    on(event: string, fn: WsListener): unknown;
  },
  logger: Logger,
): void {
  const handlers = client.listeners('ws_message') as WsListener[];
  client.removeAllListeners('ws_message');
  client.on('ws_message', (data, isBinary) => {
    const repaired = isBinary ? data : repairEnvelope(data, logger);
    for (const handler of handlers) {
      Promise.resolve()
        .then(() => handler(repaired, isBinary))
        .catch((err) =>
          logger.error({ err }, 'a Socket Mode message could not be handled; the connection stays up'),
        );
    }
  });
}

/** Name given to the event of an events_api envelope that came without a readable one. */
export const UNREADABLE_EVENT = 'switchboard_unreadable_event';

function repairEnvelope(data: unknown, logger: Logger): unknown {
  const text =
    typeof data === 'string'
      ? data
      : data instanceof ArrayBuffer
        ? new TextDecoder().decode(data)
        : undefined;
  if (text === undefined) return data;
  let envelope: { type?: unknown; envelope_id?: unknown; payload?: { event?: unknown } };
  try {
    envelope = JSON.parse(text);
  } catch {
    return data;
  }
  if (envelope?.type !== 'events_api') return data;
  const event = envelope.payload?.event as { type?: unknown } | undefined;
  if (event && typeof event === 'object' && typeof event.type === 'string') return data;
  logger.warn(
    { envelope: envelope.envelope_id },
    'Slack sent an events_api envelope without a readable event',
  );
  return JSON.stringify({
    ...envelope,
    payload: { ...(envelope.payload ?? {}), event: { type: UNREADABLE_EVENT } },
  });
}
