/**
 * The bot's own access token for the Bot Connector: the OAuth 2.0 client
 * credentials grant the Bot Connector documents
 * (https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication,
 * "Step 1: Request an access token"): POST the app id and password to the
 * tenant's token endpoint with scope `https://api.botframework.com/.default`.
 *
 * The Teams SDK would do this through MSAL, but MSAL refuses any authority
 * that is not https, so that path could never run against the loopback
 * token issuer the tests start. The SDK takes a token function instead
 * (its `token` option), and this is it: one POST, cached until five minutes
 * before the token expires, one request in flight at a time.
 */
import type { Clock } from '../../src/clock.js';
import { SwitchboardError } from '../../src/errors.js';

/** Microsoft's public cloud: where tokens come from and what they are for. */
export const LOGIN_ENDPOINT = 'https://login.microsoftonline.com';
/** The tenant a multi-tenant bot asks for tokens in. */
export const BOT_TENANT = 'botframework.com';
/** The scope of a Bot Connector token. */
export const BOT_SCOPE = 'https://api.botframework.com/.default';

/** Where to ask: the token URL of a tenant. */
export function tokenUrl(tenantId: string | undefined, loginEndpoint = LOGIN_ENDPOINT): string {
  return `${loginEndpoint.replace(/\/+$/, '')}/${tenantId ?? BOT_TENANT}/oauth2/v2.0/token`;
}

/** Options of {@link createTokenSource}. */
export interface TokenSourceOptions {
  appId: string;
  appPassword: string;
  /** The token endpoint ({@link tokenUrl}). */
  url: string;
  clock: Clock;
  /** Give up on one token request after this long (default 10 s). */
  timeoutMs?: number;
}

/** Renew this long before a token expires. */
const MARGIN_MS = 5 * 60_000;

/** A function that resolves to a valid bearer token, asking the issuer only when needed. */
export function createTokenSource(options: TokenSourceOptions): () => Promise<string> {
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;

  async function request(): Promise<string> {
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: options.appId,
      client_secret: options.appPassword,
      scope: BOT_SCOPE,
    });
    let res: Response;
    try {
      res = await fetch(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new SwitchboardError(
        'PLATFORM_ERROR',
        `Could not reach the Microsoft token endpoint for the bot's Teams token: ${(err as Error).message}`,
        { cause: err },
      );
    }
    const json = (await res.json().catch(() => ({}))) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    if (!res.ok || typeof json.access_token !== 'string') {
      const reason = typeof json.error === 'string' ? json.error : `HTTP ${res.status}`;
      throw new SwitchboardError(
        'PLATFORM_AUTH',
        `Microsoft refused the bot's Teams credentials (${reason}): check TEAMS_APP_ID and TEAMS_APP_PASSWORD, and TEAMS_TENANT_ID for a single-tenant bot.`,
        { detail: { status: res.status, error: reason } },
      );
    }
    const lifetimeMs =
      (typeof json.expires_in === 'number' ? json.expires_in : Number(json.expires_in)) * 1000;
    const now = options.clock.now();
    cached = {
      token: json.access_token,
      renewAt: now + Math.max(0, (Number.isFinite(lifetimeMs) ? lifetimeMs : 0) - MARGIN_MS),
    };
    return json.access_token;
  }

  return async () => {
    if (cached && options.clock.now() < cached.renewAt) return cached.token;
    pending ??= request().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}
