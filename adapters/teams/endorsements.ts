/**
 * The one step of the Bot Connector's inbound token check that the Teams
 * SDK leaves out. "Authenticate requests from the Bot Connector service"
 * (https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication)
 * lists: the token is a Bearer JWT; its issuer is
 * `https://api.botframework.com`; its audience is the bot's app id; it is
 * within its validity, allowing 5 minutes of clock skew; it is signed by a
 * key listed at the `jwks_uri` of the OpenID metadata document; that key's
 * `endorsements` include the activity's `channelId`; and its `serviceurl`
 * claim equals the activity's `serviceUrl`. The SDK's validator
 * (`ServiceTokenValidator`) checks all of them but the endorsement, so the
 * adapter checks that one first, from the same metadata, and refuses the
 * request with 401 before the SDK or the core sees it.
 */
import type { Clock } from '../../src/clock.js';

/** A signing key as the Bot Connector publishes it. */
interface EndorsedKey {
  kid?: string;
  endorsements?: unknown;
}

/** Options of {@link createEndorsementCheck}. */
export interface EndorsementCheckOptions {
  /** The OpenID metadata document (its `jwks_uri` lists the keys). */
  openIdMetadataUrl: string;
  clock: Clock;
  /** Keys are fetched again after this long (default 24 h; Microsoft rolls them, and says to refresh daily). */
  refreshMs?: number;
  /** An unknown key id fetches the keys again at most this often (default 5 min), so junk tokens cannot hammer the issuer. */
  unknownKidRefreshMs?: number;
  timeoutMs?: number;
}

/** The `kid` in a JWT's header, or undefined when the header cannot be read. */
export function tokenKeyId(token: string): string | undefined {
  const header = token.split('.')[0];
  if (!header) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { kid?: unknown };
    return typeof parsed.kid === 'string' ? parsed.kid : undefined;
  } catch {
    return undefined;
  }
}

/** The bearer token of an Authorization header, or undefined. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(\S+)$/i.exec(value ?? '');
  return match?.[1];
}

/**
 * A check that resolves to undefined when the token's signing key endorses
 * `channelId`, else to why not (for the log; the caller answers 401).
 */
export function createEndorsementCheck(
  options: EndorsementCheckOptions,
): (token: string, channelId: string | undefined) => Promise<string | undefined> {
  const refreshMs = options.refreshMs ?? 24 * 3600_000;
  const unknownKidRefreshMs = options.unknownKidRefreshMs ?? 5 * 60_000;
  let keys: Map<string, string[]> | undefined;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let loading: Promise<void> | undefined;

  async function getJson(url: string): Promise<unknown> {
    const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${url}`);
    return res.json();
  }

  async function load(): Promise<void> {
    const metadata = (await getJson(options.openIdMetadataUrl)) as { jwks_uri?: unknown };
    if (typeof metadata.jwks_uri !== 'string') throw new Error('the OpenID metadata has no jwks_uri');
    const jwks = (await getJson(metadata.jwks_uri)) as { keys?: EndorsedKey[] };
    const next = new Map<string, string[]>();
    for (const key of jwks.keys ?? []) {
      if (typeof key.kid !== 'string') continue;
      const endorsements = Array.isArray(key.endorsements)
        ? key.endorsements.filter((e): e is string => typeof e === 'string')
        : [];
      next.set(key.kid, endorsements);
    }
    keys = next;
    fetchedAt = options.clock.now();
  }

  function refresh(): Promise<void> {
    loading ??= load().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  return async (token, channelId) => {
    const kid = tokenKeyId(token);
    if (!kid) return 'the token has no key id';
    if (!channelId) return 'the activity has no channelId';
    const age = options.clock.now() - fetchedAt;
    try {
      if (!keys || age >= refreshMs || (!keys.has(kid) && age >= unknownKidRefreshMs)) await refresh();
    } catch (err) {
      return `the signing keys could not be read: ${(err as Error).message}`;
    }
    const endorsements = keys?.get(kid);
    if (!endorsements) return `no signing key ${kid}`;
    return endorsements.includes(channelId) ? undefined : `key ${kid} does not endorse channel ${channelId}`;
  };
}
