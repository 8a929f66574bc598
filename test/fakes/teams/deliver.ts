/**
 * Posting an activity to the bot's messaging endpoint the way the Bot
 * Connector does: `POST` JSON with `Authorization: Bearer <JWT>`, and the
 * broken tokens a bot must refuse. The rules a bot checks (from
 * "Authentication with the Bot Connector API", connector to bot:
 * https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication):
 * the token is in the Authorization header with the Bearer scheme; `iss` is
 * https://api.botframework.com; `aud` is the bot's app id; within its
 * validity period (5 minutes of clock skew allowed); signed by a key of the
 * OpenID metadata's `jwks_uri`; the key's endorsements include the
 * activity's channelId; the `serviceUrl` claim equals the activity's
 * serviceUrl. Each variant below breaks exactly one of them.
 */
import { performance } from 'node:perf_hooks';
import type { FakeIdentity } from './identity.js';
import { CONNECTOR_ISSUER, signToken } from './keys.js';

/** A valid token, none, or one broken in one way. */
export type InboundAuth =
  | 'valid'
  | 'none'
  | 'bad-signature'
  | 'wrong-audience'
  | 'wrong-issuer'
  | 'expired'
  | 'not-yet-valid'
  | 'wrong-service-url'
  | 'unendorsed-key'
  | 'unknown-key';

/** Everything wrong a token can be (the variants other than `valid` and `none`). */
export const BROKEN_TOKENS: readonly InboundAuth[] = [
  'bad-signature',
  'wrong-audience',
  'wrong-issuer',
  'expired',
  'not-yet-valid',
  'wrong-service-url',
  'unendorsed-key',
  'unknown-key',
];

/** The claims context of an inbound token. */
export interface InboundTokenContext {
  appId: string;
  serviceUrl: string;
  nowSec: number;
  lifetimeSec: number;
}

// Beyond the 5 minutes of skew the docs allow, so a bot that honours the skew still refuses.
const SKEW_PAST_SEC = 10 * 60;

/** Signs the connector's token for one activity, valid or broken as `auth` says. */
export async function inboundToken(
  identity: FakeIdentity,
  auth: InboundAuth,
  ctx: InboundTokenContext,
): Promise<string | undefined> {
  if (auth === 'none') return undefined;
  // The real token names the claim `serviceurl` (recorded header in test/fixtures/teams/recorded/).
  const claims: Record<string, unknown> = {
    serviceurl: ctx.serviceUrl,
    iss: CONNECTOR_ISSUER,
    aud: ctx.appId,
  };
  let key = identity.connectorKey;
  let nowSec = ctx.nowSec;
  let notBeforeSec = 0;
  if (auth === 'bad-signature') key = identity.strayKey;
  if (auth === 'unendorsed-key') key = identity.otherChannelKey;
  if (auth === 'unknown-key') key = identity.entraKey;
  if (auth === 'wrong-audience') claims.aud = '00000000-0000-0000-0000-000000000000';
  if (auth === 'wrong-issuer') claims.iss = 'https://sts.windows.net/f8cdef31-a31e-4b4a-93e4-5f571e91255a/';
  if (auth === 'wrong-service-url') claims.serviceurl = 'https://smba.trafficmanager.net/amer/';
  if (auth === 'expired') nowSec -= ctx.lifetimeSec + SKEW_PAST_SEC;
  if (auth === 'not-yet-valid') notBeforeSec = SKEW_PAST_SEC;
  return signToken(key, { claims, nowSec, lifetimeSec: ctx.lifetimeSec, notBeforeSec });
}

/** What the bot answered. */
export interface BotAnswer {
  status: number;
  /** The parsed JSON body, or undefined when the body was empty or not JSON. */
  body: unknown;
  text: string;
  /** Wall milliseconds the bot took (an HTTP answer can only be timed on the wall clock). */
  elapsedMs: number;
  /** True when it took longer than the invoke deadline. */
  late: boolean;
  /** The answers to the same invoke posted again because the first was late (see `retriesWhenLate`). */
  retries?: BotAnswer[];
}

/** Options of {@link postToBot}. */
export interface PostToBotOptions {
  deadlineMs: number;
  /**
   * Post the same activity again each time `deadlineMs` passes without an
   * answer, up to this many times: "If the app doesn't respond within five
   * seconds, the Teams client retries the request twice"
   * (https://learn.microsoft.com/en-us/microsoftteams/platform/messaging-extensions/how-to/action-commands/respond-to-task-module-submit).
   * Default 0: a test opts in, so a slow machine never sends a duplicate
   * nobody asked for.
   */
  retriesWhenLate?: number;
}

async function postOnce(
  endpoint: string,
  activity: unknown,
  token: string | undefined,
  deadlineMs: number,
): Promise<BotAnswer> {
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Microsoft-SkypeBotApi (Microsoft-BotFramework/3.0)',
  };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const started = performance.now();
  const res = await fetch(endpoint, { method: 'POST', headers, body: JSON.stringify(activity) });
  const text = await res.text();
  const elapsedMs = performance.now() - started;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text, elapsedMs, late: elapsedMs > deadlineMs };
}

/**
 * POSTs `activity` to `endpoint` with `token`, measures the answer against
 * the deadline, and re-posts a late invoke as Teams does when asked to.
 * Resolves once every post it made is answered.
 */
export async function postToBot(
  endpoint: string,
  activity: unknown,
  token: string | undefined,
  options: PostToBotOptions,
): Promise<BotAnswer> {
  const first = postOnce(endpoint, activity, token, options.deadlineMs);
  const again: Promise<BotAnswer>[] = [];
  let left = options.retriesWhenLate ?? 0;
  if (left > 0) {
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const arm = () => {
        timer = setTimeout(() => {
          again.push(postOnce(endpoint, activity, token, options.deadlineMs));
          left -= 1;
          if (left > 0) arm();
          else resolve();
        }, options.deadlineMs);
      };
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      first.then(done, done);
      arm();
    });
  }
  const [answer, ...retries] = await Promise.all([first, ...again]);
  return retries.length > 0 ? { ...(answer as BotAnswer), retries } : (answer as BotAnswer);
}
