/**
 * The door of Slack's HTTP mode. Bolt checks signatures and rejects requests
 * older than five minutes, but it does not remember signatures, so a request
 * captured and sent again within those five minutes would run twice. This
 * door remembers the signatures it has let through and refuses a repeat, and
 * it remembers only what passed the signature check: a forged request costs
 * a buffered body for the moment it is read, then nothing. The memory is
 * bounded in age (the replay window) and in count.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { defaultBodyLimit, HTTPModuleFunctions, isValidSlackRequest } from '@slack/bolt';
import type { Clock } from '../../src/clock.js';
import type { Logger } from '../../src/logger.js';

/** Slack refuses requests older than five minutes; half a minute more covers clock skew. */
const REPLAY_WINDOW_MS = 5 * 60_000 + 30_000;
/**
 * At most this many remembered signatures (about 30 requests a second for the
 * whole window, past any bot's real traffic). Past it the oldest is
 * forgotten first, and a replay of it is still refused by the event-id
 * window of the bot core.
 */
export const MAX_REMEMBERED_SIGNATURES = 10_000;

/** Remembers verified request signatures for the replay window and refuses repeats. */
export class ReplayGuard {
  readonly #seen = new Map<string, number>();
  constructor(private readonly clock: Clock) {}

  /** Signatures remembered now (for tests and metrics). */
  get size(): number {
    return this.#seen.size;
  }

  /** `fresh` the first time a (verified) signature is seen, `replay` after. */
  check(timestamp: string, signature: string): 'fresh' | 'replay' {
    const now = this.clock.now();
    // Entries expire in insertion order: drop from the front until one is still live.
    for (const [key, expires] of this.#seen) {
      if (expires > now && this.#seen.size < MAX_REMEMBERED_SIGNATURES) break;
      this.#seen.delete(key);
    }
    const key = `${timestamp}:${signature}`;
    if (this.#seen.has(key)) return 'replay';
    this.#seen.set(key, now + REPLAY_WINDOW_MS);
    return 'fresh';
  }
}

/** What {@link admitSlackRequest} decided. */
export type Admission = 'pass' | 'answered';

/**
 * Reads the body (up to Bolt's limit), checks the signature, and only then
 * consults the replay guard. `pass`: hand the request to Bolt's listener,
 * which finds the body already read (unsigned and forged requests go there
 * too, so Bolt answers them as it always does, and nothing is remembered).
 * `answered`: the response was written here (a replay, or a body too large).
 */
export async function admitSlackRequest(
  req: IncomingMessage,
  res: ServerResponse,
  o: { signingSecret: string; guard: ReplayGuard; logger: Logger },
): Promise<Admission> {
  const signature = req.headers['x-slack-signature'];
  const timestamp = req.headers['x-slack-request-timestamp'];
  if (typeof signature !== 'string' || typeof timestamp !== 'string') return 'pass';
  let body: string;
  try {
    body = (await HTTPModuleFunctions.bufferIncomingMessage(req, defaultBodyLimit)).rawBody.toString();
  } catch {
    res.writeHead(413).end();
    return 'answered';
  }
  const headers = { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) };
  if (!isValidSlackRequest({ signingSecret: o.signingSecret, body, headers })) return 'pass';
  if (o.guard.check(timestamp, signature) === 'fresh') return 'pass';
  // A genuine Slack retry of a request already taken needs no second run, only a 200 to stop retrying.
  const retry = req.headers['x-slack-retry-num'] !== undefined;
  o.logger.warn({ retry }, 'refused a Slack request whose signature was already used');
  res.writeHead(retry ? 200 : 401).end();
  return 'answered';
}
