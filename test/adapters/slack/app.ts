/**
 * The ready bot as `npm start` runs it (startSwitchboard(loadConfig(env)))
 * with only Slack configured, against the fake Slack (Socket Mode) and the
 * fake Anthropic API.
 */
import { join } from 'node:path';
import { loadConfig } from '../../../config/index.js';
import { type RunningApp, startSwitchboard } from '../../../src/app.js';
import { silentLogger } from '../../../src/logger.js';
import type { FakeAnthropic } from '../../fakes/anthropic.js';
import type { FakeSlack } from '../../fakes/slack/index.js';

/** Alice (U1) and Bob (U2) are allowed; nobody is admin. */
export async function startSlackApp(
  fake: FakeSlack,
  anthropic: FakeAnthropic,
  root: string,
  env: Record<string, string> = {},
): Promise<RunningApp> {
  const config = loadConfig({
    env: {
      ANTHROPIC_API_KEY: 'sk-ant-slack-e2e-0123456789',
      ANTHROPIC_BASE_URL: anthropic.url,
      SLACK_BOT_TOKEN: fake.botToken,
      ...(env.SLACK_SIGNING_SECRET ? {} : { SLACK_APP_TOKEN: fake.appToken }),
      SLACK_API_URL: fake.apiUrl,
      SWITCHBOARD_DATA_DIR: join(root, 'data'),
      SWITCHBOARD_WORKSPACE: join(root, 'workspace'),
      SWITCHBOARD_ALLOWED_USERS: 'slack:U1,slack:U2',
      SWITCHBOARD_LOG_LEVEL: 'silent',
      ...env,
    },
    argv: [],
    cwd: root,
  });
  const app = await startSwitchboard(config, { logger: silentLogger });
  if (!env.SLACK_SIGNING_SECRET) await fake.socket.waitForConnection();
  return app;
}

/** The text of the newest user turn in the newest request the model got. */
export function lastUserText(anthropic: FakeAnthropic): string {
  const messages = (anthropic.requests.at(-1)?.messages ?? []) as {
    role: string;
    content: string | { type: string; text?: string }[];
  }[];
  const last = [...messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n');
}
