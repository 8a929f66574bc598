/**
 * The fake's JWTs checked the way a bot must check the connector's (the
 * steps of "Authentication with the Bot Connector API", connector to bot),
 * with jose's standard verification against the key set the OpenID
 * metadata names, fetched over HTTP: a valid token passes, each broken one
 * fails, and the token's header and claims have the recorded real shape.
 */
import { readFileSync } from 'node:fs';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { useCleanups } from '../../helpers/cleanups.js';
import { BROKEN_TOKENS, type FakeTeams, startFakeTeams } from './index.js';

const cleanups = useCleanups();
const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/teams/recorded/personal-message.json', import.meta.url), 'utf8'),
) as { headers: { authorization: string } };

async function start(): Promise<FakeTeams> {
  const teams = await startFakeTeams();
  cleanups.push(() => teams.close());
  return teams;
}

/** A bot's check, step by step as the docs list them; throws on the first failure. */
async function botChecks(
  teams: FakeTeams,
  token: string,
  activity: { serviceUrl: string; channelId: string },
) {
  const metadata = (await (await fetch(teams.openIdMetadataUrl)).json()) as {
    issuer: string;
    jwks_uri: string;
  };
  const keys = createRemoteJWKSet(new URL(metadata.jwks_uri));
  const { payload, protectedHeader } = await jwtVerify(token, keys, {
    issuer: 'https://api.botframework.com',
    audience: teams.appId,
    algorithms: ['RS256'],
    clockTolerance: 300,
  });
  const jwks = (await (await fetch(metadata.jwks_uri)).json()) as {
    keys: (JWK & { endorsements?: string[] })[];
  };
  const key = jwks.keys.find((k) => k.kid === protectedHeader.kid);
  if (!key?.endorsements?.includes(activity.channelId)) throw new Error('key not endorsed for the channel');
  if (payload.serviceurl !== activity.serviceUrl)
    throw new Error('serviceurl claim differs from the activity');
  return payload;
}

describe('fake Teams: the connector JWTs', () => {
  it('publishes OpenID metadata whose issuer and jwks_uri a bot can use', async () => {
    const teams = await start();
    const metadata = (await (await fetch(teams.openIdMetadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: 'https://api.botframework.com',
      jwks_uri: teams.jwksUri,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const jwks = (await (await fetch(teams.jwksUri)).json()) as { keys: Record<string, unknown>[] };
    expect(jwks.keys.some((k) => (k.endorsements as string[]).includes('msteams'))).toBe(true);
    expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  });

  it('signs a token that passes every check, shaped like the recorded real one', async () => {
    const teams = await start();
    const token = (await teams.inboundToken('valid')) as string;
    const payload = await botChecks(teams, token, { serviceUrl: teams.serviceUrl, channelId: 'msteams' });
    expect(payload.aud).toBe(teams.appId);
    const real = recorded.headers.authorization.slice('Bearer '.length);
    expect(Object.keys(decodeProtectedHeader(token)).sort()).toEqual(
      Object.keys(decodeProtectedHeader(real)).sort(),
    );
    expect(Object.keys(decodeJwt(token)).sort()).toEqual(Object.keys(decodeJwt(real)).sort());
  });

  // Each broken token must fail the one check it breaks, not some other.
  const failures: Record<string, RegExp> = {
    'bad-signature': /signature verification failed/,
    'wrong-audience': /"aud" claim/,
    'wrong-issuer': /"iss" claim/,
    expired: /"exp" claim/,
    'not-yet-valid': /"nbf" claim/,
    'wrong-service-url': /serviceurl claim/,
    'unendorsed-key': /not endorsed/,
    'unknown-key': /no applicable key/,
  };

  it.each(BROKEN_TOKENS)('signs a %s token that a correct check refuses for that reason', async (auth) => {
    const teams = await start();
    const token = (await teams.inboundToken(auth)) as string;
    await expect(
      botChecks(teams, token, { serviceUrl: teams.serviceUrl, channelId: 'msteams' }),
    ).rejects.toThrow(failures[auth] as RegExp);
  });

  it('gives no token for auth "none"', async () => {
    const teams = await start();
    expect(await teams.inboundToken('none')).toBeUndefined();
  });
});
