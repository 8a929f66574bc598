/**
 * The Teams settings, as environment variables: a zod fragment the
 * configuration merges into its schema, and the cross-checks one value
 * cannot make by itself. No part of this loads the SDK.
 */
import type { z } from 'zod';
import { url as httpUrl, optionalString as optional, port } from '../../config/fields.js';
import type { SettingsProblem } from '../../src/bot/platform-module.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The variables, each with the message shown for a bad value. */
export const TEAMS_ENV = {
  TEAMS_APP_ID: optional.refine((v) => v === undefined || GUID.test(v), {
    message:
      "expected the bot's Microsoft App ID, a GUID like 00000000-0000-0000-0000-000000000000 (Azure Bot resource → Configuration)",
  }),
  TEAMS_APP_PASSWORD: optional,
  TEAMS_TENANT_ID: optional.refine(
    (v) => v === undefined || GUID.test(v) || /^[a-z0-9.-]+\.[a-z]{2,}$/i.test(v),
    {
      message: 'expected the directory (tenant) id, a GUID, or its domain (contoso.onmicrosoft.com)',
    },
  ),
  // 3978: the port Microsoft's bot samples and tools use for /api/messages.
  TEAMS_PORT: port(3978),
  TEAMS_AUTH_URL: httpUrl('the token endpoint, instead of login.microsoftonline.com (tests)'),
  TEAMS_OPENID_URL: httpUrl('the Bot Connector OpenID metadata ending in /openidconfiguration (tests)'),
} satisfies z.ZodRawShape;

/** The secret among them: the logger scrubs its value. */
export const TEAMS_SECRETS = ['TEAMS_APP_PASSWORD'] as const;

/** The Teams settings once configured. */
export interface TeamsSettings {
  appId: string;
  appPassword: string;
  tenantId?: string;
  port: number;
  authUrl?: string;
  openIdMetadataUrl?: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Undefined when Teams is not configured; else its settings, after the cross-checks. */
export function teamsSettings(
  env: Record<string, unknown>,
  problem: SettingsProblem,
): TeamsSettings | undefined {
  const appId = str(env.TEAMS_APP_ID);
  const appPassword = str(env.TEAMS_APP_PASSWORD);
  if (!appId && !appPassword) return undefined;
  if (!appId) {
    problem('TEAMS_APP_ID', "is needed with TEAMS_APP_PASSWORD: set it to the Azure Bot's Microsoft App ID.");
    return undefined;
  }
  if (!appPassword) {
    problem(
      'TEAMS_APP_PASSWORD',
      'is needed with TEAMS_APP_ID: create a client secret for the app (Azure Bot → Configuration → Manage Password) and set it here.',
    );
    return undefined;
  }
  const openIdMetadataUrl = str(env.TEAMS_OPENID_URL);
  if (openIdMetadataUrl && !/\/openidconfiguration$/.test(openIdMetadataUrl)) {
    problem(
      'TEAMS_OPENID_URL',
      "must end in /openidconfiguration, with the signing keys at /keys beside it, as Microsoft's does (https://login.botframework.com/v1/.well-known/openidconfiguration); leave it unset outside tests.",
    );
    return undefined;
  }
  const tenantId = str(env.TEAMS_TENANT_ID);
  const authUrl = str(env.TEAMS_AUTH_URL);
  return {
    appId,
    appPassword,
    port: typeof env.TEAMS_PORT === 'number' ? env.TEAMS_PORT : 3978,
    ...(tenantId ? { tenantId } : {}),
    ...(authUrl ? { authUrl } : {}),
    ...(openIdMetadataUrl ? { openIdMetadataUrl } : {}),
  };
}
