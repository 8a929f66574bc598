/**
 * The fake's signing keys and the JWTs it signs with them: the tokens the
 * Bot Connector puts on every activity it posts to a bot, and the access
 * tokens Microsoft Entra hands a bot for its calls to the connector.
 *
 * Shapes follow "Authentication with the Bot Connector API"
 * (https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication):
 * RS256 tokens, `kid` naming a key of the published JWKS, each key carrying
 * `endorsements` (the channel ids it may sign for). A token recorded from
 * the real service (test/fixtures/teams/recorded/, SOURCE.md) has the same
 * header (`alg`, `kid`, `typ`, `x5t`) and claims (`serviceurl`, `nbf`,
 * `exp`, `iss`, `aud`).
 */
import { randomUUID } from 'node:crypto';
import { importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';

/** The issuer of every token the connector sends a bot (the docs' `iss` rule). */
export const CONNECTOR_ISSUER = 'https://api.botframework.com';
/** The audience of the bot's own tokens for calls to the connector (scope without `/.default`). */
export const CONNECTOR_AUDIENCE = 'https://api.botframework.com';
/** The Bot Framework's own tenant, whose tokens a multi-tenant bot gets (recorded `iss` and `tid`). */
export const BOTFRAMEWORK_TENANT_ID = 'd6d49420-f39b-4df7-a1dc-d59a935871db';

/** A key as jose imports it. */
type Key = Exclude<Awaited<ReturnType<typeof importJWK>>, Uint8Array>;

/** One RSA key pair with the id and endorsements the JWKS publishes for it. */
export interface SigningKey {
  kid: string;
  privateKey: Key;
  publicKey: Key;
  /** The public half as the JWKS shows it (with `kid`, `use`, `alg`, `endorsements`). */
  publicJwk: JWK & { endorsements: string[] };
}

/**
 * An RS256 key pair from a stored private JWK (signing-keys.json; importing
 * takes a millisecond where generating an RSA key takes hundreds on a busy
 * machine); `endorsements` lists the channels it may sign for (`msteams`).
 */
export async function signingKeyFromJwk(
  privateJwk: JWK,
  endorsements: string[],
  kid = randomUUID().replaceAll('-', ''),
): Promise<SigningKey> {
  const publicPart: JWK = { kty: 'RSA', n: String(privateJwk.n), e: String(privateJwk.e) };
  const privateKey = (await importJWK(privateJwk, 'RS256')) as Key;
  const publicKey = (await importJWK(publicPart, 'RS256')) as Key;
  return {
    kid,
    privateKey,
    publicKey,
    publicJwk: { ...publicPart, kid, use: 'sig', alg: 'RS256', endorsements },
  };
}

/** What to put in a token and how long it lives. */
export interface TokenSpec {
  claims: JWTPayload & Record<string, unknown>;
  /** Seconds since the epoch the token counts from (the fake's clock). */
  nowSec: number;
  /** Lifetime in seconds (negative makes an already expired token). */
  lifetimeSec: number;
  /** Seconds `nbf` lies after now (a token not yet valid). */
  notBeforeSec?: number;
}

/** Signs `spec` with `key`: RS256, `kid` and `x5t` in the header as the real service does. */
export async function signToken(key: SigningKey, spec: TokenSpec): Promise<string> {
  const nbf = spec.nowSec + (spec.notBeforeSec ?? 0);
  return new SignJWT({ ...spec.claims, nbf, exp: spec.nowSec + spec.lifetimeSec })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.kid, x5t: key.kid })
    .sign(key.privateKey);
}
