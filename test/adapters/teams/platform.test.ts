/**
 * The platform module: what Teams says about itself, its settings and their
 * cross-checks.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import teams from '../../../adapters/teams/platform.js';

function settings(env: Record<string, string>) {
  const problems: string[] = [];
  const parsed: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(teams.env)) {
    const result = z.safeParse(schema, env[name]);
    if (!result.success) problems.push(`${name}: ${result.error.issues[0]?.message}`);
    else parsed[name] = result.data;
  }
  const value = teams.settings(parsed, (variable, message) => problems.push(`${variable}: ${message}`));
  return { value, problems };
}

const APP_ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('the Teams platform module', () => {
  it('says who it is and which value is secret', () => {
    expect(teams.id).toBe('teams');
    expect(teams.title).toBe('Microsoft Teams');
    expect(teams.secrets).toEqual(['TEAMS_APP_PASSWORD']);
    expect(teams.packages).toContain('@microsoft/teams.apps');
    expect(teams.userId.test(teams.exampleUserId)).toBe(true);
    expect(teams.userId.test('29:1abcDEF_-xyz')).toBe(true);
    expect(teams.userId.test('U0123ABCD')).toBe(false);
    expect(teams.capabilities.nativeStream).toBe(true);
  });

  it('is off without credentials, on with both, with the documented default port', () => {
    expect(settings({}).value).toBeUndefined();
    expect(settings({ TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: 'secret' })).toEqual({
      value: { appId: APP_ID, appPassword: 'secret', port: 3978 },
      problems: [],
    });
  });

  it('names the missing half and the bad values', () => {
    expect(settings({ TEAMS_APP_ID: APP_ID }).problems[0]).toMatch(
      /^TEAMS_APP_PASSWORD: is needed with TEAMS_APP_ID/,
    );
    expect(settings({ TEAMS_APP_PASSWORD: 'x' }).problems[0]).toMatch(/^TEAMS_APP_ID: is needed/);
    expect(settings({ TEAMS_APP_ID: 'not-a-guid', TEAMS_APP_PASSWORD: 'x' }).problems[0]).toMatch(
      /^TEAMS_APP_ID: expected the bot's Microsoft App ID/,
    );
    expect(
      settings({ TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: 'x', TEAMS_OPENID_URL: 'http://127.0.0.1:1/meta' })
        .problems[0],
    ).toMatch(/^TEAMS_OPENID_URL: must end in \/openidconfiguration/);
    expect(
      settings({ TEAMS_APP_ID: APP_ID, TEAMS_APP_PASSWORD: 'x', TEAMS_PORT: '70000' }).problems[0],
    ).toMatch(/^TEAMS_PORT/);
  });

  it('takes a tenant and test endpoints', () => {
    const { value } = settings({
      TEAMS_APP_ID: APP_ID,
      TEAMS_APP_PASSWORD: 'x',
      TEAMS_TENANT_ID: 'contoso.onmicrosoft.com',
      TEAMS_PORT: '0',
      TEAMS_AUTH_URL: 'http://127.0.0.1:9/token',
      TEAMS_OPENID_URL: 'http://127.0.0.1:9/v1/.well-known/openidconfiguration',
    });
    expect(value).toMatchObject({
      tenantId: 'contoso.onmicrosoft.com',
      port: 0,
      authUrl: 'http://127.0.0.1:9/token',
    });
  });
});
