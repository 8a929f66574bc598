/**
 * Slack as a platform module: its SLACK_* settings (Socket Mode with an app
 * token, HTTP mode with a signing secret), how its people's ids look, and
 * `create()`, which loads Bolt only when Slack is configured.
 */
import type { z } from 'zod';
import { optionalString, port, url } from '../../config/fields.js';
import { definePlatform } from '../../src/bot/platform-module.js';
import type { SlackAdapterOptions } from './index.js';
import { slackMarkdown } from './markdown.js';

const env = {
  SLACK_BOT_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xoxb-'), {
    message: 'expected a bot token starting with xoxb-',
  }),
  SLACK_APP_TOKEN: optionalString.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message: 'expected an app-level token starting with xapp- (for Socket Mode)',
  }),
  SLACK_SIGNING_SECRET: optionalString,
  SLACK_PORT: port(3000),
  SLACK_API_URL: url('the Slack Web API base, ending in /api/'),
  SLACK_COMMAND: optionalString
    .refine((v) => v === undefined || /^\/?[a-z0-9_-]{1,31}$/.test(v), {
      message: 'expected a slash command name such as switchboard',
    })
    .transform((v) => (v ?? 'switchboard').replace(/^\//, '')),
};

type Env = z.output<z.ZodObject<typeof env>>;

/** Slack's settings, present when SLACK_BOT_TOKEN is set. */
export interface SlackSettings {
  token: string;
  /** Socket Mode. */
  appToken?: string;
  /** HTTP mode, when there is no app token. */
  signingSecret?: string;
  /** HTTP mode's port. */
  port: number;
  apiUrl?: string;
  commandName: string;
}

export default definePlatform<SlackSettings, SlackAdapterOptions>({
  id: 'slack',
  title: 'Slack',
  // Member ids: U… (W… in Enterprise Grid), upper-case letters and digits.
  userId: /^[A-Z0-9]{1,32}$/,
  exampleUserId: 'U0123ABCD',
  env,
  secrets: ['SLACK_BOT_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET'],
  packages: ['@slack/bolt'],
  settings(raw, problem) {
    const e = raw as Env;
    if (!e.SLACK_BOT_TOKEN) {
      if (e.SLACK_APP_TOKEN || e.SLACK_SIGNING_SECRET)
        problem('SLACK_BOT_TOKEN', 'is not set, but other SLACK_ variables are: set the xoxb- bot token too');
      return undefined;
    }
    if (!e.SLACK_APP_TOKEN && !e.SLACK_SIGNING_SECRET)
      problem(
        'SLACK_APP_TOKEN',
        'is needed with SLACK_BOT_TOKEN: set SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode)',
      );
    return {
      token: e.SLACK_BOT_TOKEN,
      port: e.SLACK_PORT,
      commandName: e.SLACK_COMMAND,
      ...(e.SLACK_APP_TOKEN ? { appToken: e.SLACK_APP_TOKEN } : {}),
      ...(e.SLACK_SIGNING_SECRET ? { signingSecret: e.SLACK_SIGNING_SECRET } : {}),
      ...(e.SLACK_API_URL ? { apiUrl: e.SLACK_API_URL } : {}),
    };
  },
  dialect: slackMarkdown,
  // A direct message while the server has chat streams (capabilities.ts; a test keeps the two equal).
  capabilities: {
    maxMessageLength: 3900,
    buttonPayloadLimit: 2000,
    nativeStream: true,
    typingIntervalMs: 0,
    privateChat: true,
  },
  async create(settings, context, overrides) {
    const { createSlackAdapter } = await import('./index.js');
    return createSlackAdapter({
      token: settings.token,
      port: settings.port,
      commandName: settings.commandName,
      ...(settings.appToken ? { appToken: settings.appToken } : {}),
      ...(settings.signingSecret ? { signingSecret: settings.signingSecret } : {}),
      ...(settings.apiUrl ? { apiUrl: settings.apiUrl } : {}),
      routes: context.routes,
      maxFileBytes: context.maxFileBytes,
      logger: context.logger,
      clock: context.clock,
      mentions: context.mentions,
      ...overrides,
    });
  },
});
