/**
 * The checks every event passes before it is routed: a delivery the bot has
 * already handled is dropped (its responder told so), and a person not on
 * the allowlist is told their id and how to be allowed, and runs nothing.
 */
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BotStateStore } from '../store/types.js';
import { type AccessDecision, type AccessPolicy, userKey } from './access.js';
import { type AccessGate, type ChatEvent, chatPlatform } from './adapter-contract.js';
import { say } from './text.js';

/** Who sent an admitted event, as the router needs them. */
export interface Sender {
  /** `platform:userId`. */
  key: string;
  /** Owner key of sessions they create (linked ids are one person). */
  owner: string;
}

/** What {@link admit} checks against. */
export interface AdmissionDeps {
  access: AccessPolicy;
  stateStore: BotStateStore;
  logger: Logger;
  /** Tells the sender something (their responder, or the chat). */
  answer: (event: ChatEvent, text: string) => Promise<void>;
}

/** The sender of an event to route, or undefined when it was dropped or refused (and answered). */
export async function admit(deps: AdmissionDeps, event: ChatEvent): Promise<Sender | undefined> {
  const { access, logger } = deps;
  const platform = chatPlatform(event.chat);
  if (event.deliveryId !== undefined && !(await firstDelivery(deps, `${platform}:${event.deliveryId}`))) {
    logger.debug({ chat: event.chat, type: event.type }, 'duplicate delivery ignored');
    // A redelivered press or slash command still holds a responder waiting for its one answer.
    const respond = event.type === 'button' || event.type === 'command' ? event.respond : undefined;
    await respond?.({ text: say.alreadyHandled, ephemeral: true });
    return undefined;
  }
  const key = userKey(platform, event.user.id);
  const decision = access.check(key);
  if (decision !== 'allowed') {
    logger.warn({ chat: event.chat, user: key, decision, type: event.type }, 'event from a user not allowed');
    if (event.type !== 'edit') await deps.answer(event, refusal(decision, key));
    return undefined;
  }
  return { key, owner: access.ownerKey(key) };
}

function refusal(decision: Exclude<AccessDecision, 'allowed'>, key: string): string {
  return decision === 'no-allowlist' ? say.noAllowlist(key) : say.notAllowed(key);
}

/**
 * The gate an adapter of `platform` asks before it opens anything for a
 * person (a Discord thread, a Slack thread), so a stranger is refused
 * privately with the same words {@link admit} would use.
 */
export function accessGate(access: AccessPolicy, platform: string, logger: Logger): AccessGate {
  return {
    refusal(userId) {
      const key = userKey(platform, userId);
      const decision = access.check(key);
      if (decision === 'allowed') return undefined;
      logger.warn({ user: key, decision }, 'a user not allowed was refused before anything was opened');
      return refusal(decision, key);
    },
  };
}

/** False for a redelivery. A state store that cannot record it must not cost the user their message. */
async function firstDelivery(deps: AdmissionDeps, id: string): Promise<boolean> {
  try {
    return await deps.stateStore.markDelivered(id);
  } catch (err) {
    deps.logger.error(
      { err: describeError(err) },
      'could not record a delivery id; handling the event anyway',
    );
    return true;
  }
}
