import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrubbedEnv } from '../../src/tools/env.js';
import { makeContext, makeSandbox, type Sandbox, tool } from './helpers.js';

const PLANTED = {
  ANTHROPIC_API_KEY: 'sk-ant-planted-1',
  TELEGRAM_BOT_TOKEN: '123:planted-telegram',
  SLACK_BOT_TOKEN: 'xoxb-planted',
  SLACK_SIGNING_SECRET: 'planted-signing',
  DISCORD_TOKEN: 'planted-discord',
  SWITCHBOARD_ADMINS: 'telegram:1',
  GITHUB_TOKEN: 'ghp_planted',
  AWS_SECRET_ACCESS_KEY: 'planted-aws',
  CLIENT_SECRET: 'planted-client-secret',
  OPENAI_API_KEY: 'planted-openai',
  PGPASSWORD: 'planted-pg',
  DATABASE_URL: 'postgres://app@db/app',
  REDIS_URL: 'redis://cache:6379',
  UPSTREAM: 'https://user:hunter2@example.test/api',
  GOOGLE_APPLICATION_CREDENTIALS: '/etc/gcp.json',
  NPM_CONFIG__AUTHTOKEN: 'planted-npm',
  SMTP_PASS: 'planted-smtp',
  GH_PAT: 'planted-pat',
  SENTRY_DSN: 'https://planted@o1.ingest.example.test/1',
  BASIC_AUTH: 'planted-basic',
};

describe('scrubbedEnv', () => {
  it('lets only the shell basics and the locale through: secrets under any name stay out', () => {
    const env = scrubbedEnv({
      ...PLANTED,
      GPG_PASSPHRASE: 'planted-gpg',
      STRIPE_SK: 'planted-stripe',
      PRIVATE_KEY_PEM: 'planted-pem',
      AZURE_STORAGE_CONNECTION_STRING: 'planted-azure',
      DOCKER_HOST: 'tcp://planted:2375',
      PATH: '/usr/bin:/bin',
      HOME: '/home/bot',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
      NODE_ENV: 'test',
    });
    expect(env).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/bot',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      TERM: 'xterm',
      TZ: 'UTC',
    });
  });

  it('drops an allowed variable whose value is one of the extra secrets or holds a password', () => {
    const env = scrubbedEnv(
      { PATH: '/bin', HOME: 'hunter2-long-secret', TERM: 'x hunter2-long-secret', TZ: 'ab', LANG: 'abc' },
      ['hunter2-long-secret', 'ab', ''],
    );
    expect(env).toEqual({ PATH: '/bin', LANG: 'abc' });
    expect(scrubbedEnv({ HOME: 'https://user:hunter2@example.test/' })).toEqual({});
  });

  it('reads process.env by default and skips undefined values', () => {
    process.env.SWITCHBOARD_TEST_PLANTED = 'x';
    try {
      const env = scrubbedEnv();
      expect(env.PATH).toBe(process.env.PATH);
      expect(env).not.toHaveProperty('SWITCHBOARD_TEST_PLANTED');
      expect(scrubbedEnv({ PATH: undefined, HOME: 'b' })).toEqual({ HOME: 'b' });
    } finally {
      delete process.env.SWITCHBOARD_TEST_PLANTED;
    }
  });

  describe('with Bash', () => {
    let box: Sandbox;
    beforeAll(async () => {
      box = await makeSandbox();
    });
    afterAll(() => box.cleanup());

    it('a command cannot see a planted token', async () => {
      const planted = Object.entries(PLANTED);
      for (const [name, value] of planted) process.env[name] = value;
      let result: Awaited<ReturnType<ReturnType<typeof tool>['run']>>;
      try {
        result = await tool('Bash').run(
          { command: 'env; echo "T=$TELEGRAM_BOT_TOKEN."' },
          makeContext(box.workspace, { env: { ...PLANTED } }),
        );
      } finally {
        for (const [name] of planted) delete process.env[name];
      }
      expect(result.isError).toBeUndefined();
      expect(result.content).toContain(`HOME=${box.workspace}`);
      expect(result.content).toContain('T=.');
      for (const value of Object.values(PLANTED)) expect(result.content).not.toContain(value);
    });
  });
});
