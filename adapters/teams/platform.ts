/**
 * Microsoft Teams, described for the core: the `teams` prefix of its chat
 * keys and allowlist entries, its people's ids, its settings, how it shows
 * Markdown and what its chats allow. `create()` loads the adapter, and with
 * it the Teams SDK, only when Teams is configured.
 *
 * People are named by their Microsoft Entra object id (a GUID, the same for
 * every app in the tenant: `teams:2f6c1a3e-...`); someone without one (a
 * federated user) by their Teams user id (`teams:29:1abc...`). See
 * `userOf` in inbound.ts.
 */
import { definePlatform } from '../../src/bot/platform-module.js';
import { TEAMS_DEFAULT_PACES, teamsCapabilities } from './capabilities.js';
import { PLATFORM } from './chat-key.js';
import type { TeamsAdapterOptions } from './index.js';
import { teamsMarkdown } from './markdown.js';
import { TEAMS_ENV, TEAMS_SECRETS, type TeamsSettings, teamsSettings } from './settings.js';

export default definePlatform<TeamsSettings, TeamsAdapterOptions>({
  id: PLATFORM,
  title: 'Microsoft Teams',
  userId: /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|29:[A-Za-z0-9_-]{1,200})$/,
  exampleUserId: '2f6c1a3e-5b7d-4c9e-8f10-0a1b2c3d4e5f',
  env: TEAMS_ENV,
  secrets: TEAMS_SECRETS,
  packages: ['@microsoft/teams.apps', '@microsoft/teams.api'],
  settings: teamsSettings,
  dialect: teamsMarkdown,
  capabilities: teamsCapabilities(TEAMS_DEFAULT_PACES, 'personal'),
  async create(settings, context, overrides) {
    const { createTeamsAdapter } = await import('./index.js');
    return createTeamsAdapter({
      appId: settings.appId,
      appPassword: settings.appPassword,
      port: settings.port,
      ...(settings.tenantId ? { tenantId: settings.tenantId } : {}),
      ...(settings.authUrl ? { authUrl: settings.authUrl } : {}),
      ...(settings.openIdMetadataUrl ? { openIdMetadataUrl: settings.openIdMetadataUrl } : {}),
      logger: context.logger,
      clock: context.clock,
      maxFileBytes: context.maxFileBytes,
      routes: context.routes,
      dataDir: context.dataDir,
      ...overrides,
    });
  },
});
