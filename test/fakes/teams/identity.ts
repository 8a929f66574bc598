/**
 * The fake's Microsoft identity side: the Bot Framework's OpenID metadata
 * and key set (what a bot checks the connector's JWTs against), the Entra
 * token endpoint a bot gets its own access token from (client credentials),
 * and the check the fake connector makes of that token.
 *
 * - OpenID metadata at `/botframework/v1/.well-known/openidconfiguration`
 *   (real: https://login.botframework.com/v1/.well-known/openidconfiguration),
 *   issuer https://api.botframework.com, `jwks_uri` the key set.
 * - Token endpoint `/login/<tenant>/oauth2/v2.0/token` (real:
 *   https://login.microsoftonline.com/<tenant or botframework.com>/oauth2/v2.0/token),
 *   form `grant_type=client_credentials`, `client_id`, `client_secret`,
 *   `scope=https://api.botframework.com/.default`.
 * Both from "Authentication with the Bot Connector API":
 * https://learn.microsoft.com/en-us/azure/bot-service/rest-api/bot-framework-rest-connector-authentication
 */
import { readFile } from 'node:fs/promises';
import { type JWK, type JWTPayload, jwtVerify } from 'jose';
import {
  BOTFRAMEWORK_TENANT_ID,
  CONNECTOR_AUDIENCE,
  CONNECTOR_ISSUER,
  type SigningKey,
  signingKeyFromJwk,
  signToken,
} from './keys.js';

/** The bot registration the fake knows: who may get a token. */
export interface BotRegistration {
  appId: string;
  appPassword: string;
  /** The bot's tenant (single-tenant bots ask this tenant for tokens). */
  tenantId: string;
  /**
   * A multi-tenant registration, which gets tokens from the Bot Framework's
   * tenant (`botframework.com`). New registrations are single-tenant:
   * "Multi-tenant bot creation will be deprecated after July 31, 2025"
   * (https://learn.microsoft.com/en-us/azure/bot-service/abs-quickstart).
   */
  multiTenant: boolean;
}

/** How the token endpoint answered. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
}

let sharedKeys: Promise<SigningKey[]> | undefined;

/**
 * Fixed RSA key pairs made once for this fake (signing-keys.json), so no
 * test waits for key generation; fresh `kid`s per process as before.
 */
async function makeKeys(): Promise<SigningKey[]> {
  const stored = JSON.parse(await readFile(new URL('./signing-keys.json', import.meta.url), 'utf8')) as {
    keys: JWK[];
  };
  const endorsements = [['msteams'], ['webchat'], ['msteams'], []];
  const keys = await Promise.all(
    endorsements.map((channels, i) => signingKeyFromJwk(stored.keys[i] as JWK, channels)),
  );
  const [connector, other, strayPair, entra] = keys as [SigningKey, SigningKey, SigningKey, SigningKey];
  // The stray key reuses the published key's id: only its signature is wrong.
  const stray = {
    ...strayPair,
    kid: connector.kid,
    publicJwk: { ...strayPair.publicJwk, kid: connector.kid },
  };
  return [connector, other, stray, entra];
}

/** The fake's issuer: keys, metadata, tokens. */
export class FakeIdentity {
  /** Signs the connector's tokens; endorsed for `msteams`. */
  readonly connectorKey: SigningKey;
  /** Published too, but endorsed for another channel only: a token it signs must fail the endorsement check. */
  readonly otherChannelKey: SigningKey;
  /** Never published: signatures made with it must fail. */
  readonly strayKey: SigningKey;
  /** Signs the bot's access tokens (Entra's key; not in the Bot Framework key set). */
  readonly entraKey: SigningKey;
  /** Access tokens handed out, for tests that count them. */
  readonly issued: string[] = [];

  private constructor(keys: SigningKey[]) {
    [this.connectorKey, this.otherChannelKey, this.strayKey, this.entraKey] = keys as [
      SigningKey,
      SigningKey,
      SigningKey,
      SigningKey,
    ];
  }

  /**
   * The four key pairs, loaded once per process and shared by every fake
   * (each fake still checks only its own bot's tokens).
   */
  static async create(): Promise<FakeIdentity> {
    sharedKeys ??= makeKeys();
    return new FakeIdentity(await sharedKeys);
  }

  /** The OpenID metadata document, its `jwks_uri` pointing at `jwksUri`. */
  openIdMetadata(jwksUri: string): Record<string, unknown> {
    return {
      issuer: CONNECTOR_ISSUER,
      authorization_endpoint: 'https://invalid.botframework.com',
      jwks_uri: jwksUri,
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
    };
  }

  /** The published key set: the msteams key and a key endorsed for another channel. */
  jwks(): { keys: Record<string, unknown>[] } {
    return { keys: [this.connectorKey.publicJwk, this.otherChannelKey.publicJwk] };
  }

  /**
   * Answers a client-credentials request. Errors follow Entra's codes
   * (https://learn.microsoft.com/en-us/entra/identity-platform/reference-error-codes):
   * unknown client AADSTS700016 (400 unauthorized_client), wrong secret
   * AADSTS7000215 (401 invalid_client), bad scope AADSTS1002012 (400 invalid_scope),
   * another grant 400 unsupported_grant_type.
   */
  async token(
    tenant: string,
    form: URLSearchParams,
    bot: BotRegistration,
    nowSec: number,
    lifetimeSec: number,
  ): Promise<TokenAnswer> {
    const fail = (status: number, error: string, description: string): TokenAnswer => ({
      status,
      body: {
        error,
        error_description: description,
        error_codes: [Number(description.slice(6, description.indexOf(':')))],
      },
    });
    if (form.get('grant_type') !== 'client_credentials') {
      return fail(400, 'unsupported_grant_type', 'AADSTS70003: The app requested an unsupported grant type.');
    }
    if (tenant !== bot.tenantId && tenant !== 'botframework.com' && tenant !== BOTFRAMEWORK_TENANT_ID) {
      return fail(400, 'invalid_request', `AADSTS90002: Tenant '${tenant}' not found.`);
    }
    const botFrameworkTenant = tenant === 'botframework.com' || tenant === BOTFRAMEWORK_TENANT_ID;
    if (form.get('client_id') !== bot.appId || (botFrameworkTenant && !bot.multiTenant)) {
      return fail(
        400,
        'unauthorized_client',
        `AADSTS700016: Application with identifier '${form.get('client_id')}' was not found in the directory.`,
      );
    }
    if (form.get('client_secret') !== bot.appPassword) {
      return fail(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    }
    if (form.get('scope') !== `${CONNECTOR_AUDIENCE}/.default`) {
      return fail(
        400,
        'invalid_scope',
        `AADSTS1002012: The provided value for scope ${form.get('scope')} is not valid.`,
      );
    }
    const tid = tenant === 'botframework.com' ? BOTFRAMEWORK_TENANT_ID : tenant;
    const accessToken = await signToken(this.entraKey, {
      claims: {
        aud: CONNECTOR_AUDIENCE,
        iss: `https://sts.windows.net/${tid}/`,
        appid: bot.appId,
        tid,
        ver: '1.0',
      },
      nowSec,
      lifetimeSec,
    });
    this.issued.push(accessToken);
    return {
      status: 200,
      body: {
        token_type: 'Bearer',
        expires_in: lifetimeSec,
        ext_expires_in: lifetimeSec,
        access_token: accessToken,
      },
    };
  }

  /**
   * Checks the bot's `Authorization: Bearer` on a connector call: signed by
   * the fake's Entra key, audience the connector, issued to the registered
   * bot, not expired. Undefined when it passes, else why not.
   */
  async checkBotToken(
    header: string | undefined,
    bot: BotRegistration,
    nowSec: number,
  ): Promise<string | undefined> {
    const token = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
    if (token === undefined) return 'no bearer token';
    try {
      const { payload } = await jwtVerify(token, this.entraKey.publicKey, {
        audience: CONNECTOR_AUDIENCE,
        currentDate: new Date(nowSec * 1000),
        algorithms: ['RS256'],
      });
      return (payload as JWTPayload & { appid?: string }).appid === bot.appId
        ? undefined
        : 'token issued to another app';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
}
