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
  it('drops the bot secrets and credential-like variables, keeps ordinary ones', () => {
    const env = scrubbedEnv({
      ...PLANTED,
      PATH: '/usr/bin:/bin',
      HOME: '/home/bot',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      NODE_ENV: 'test',
      KEYBOARD_LAYOUT: 'us',
      TOKENIZER_MODEL: 'bpe',
      BASE_URL: 'https://example.test',
      PASSAGE: 'kept',
      PATH_INFO: 'kept',
    });
    expect(env).toEqual({
      PASSAGE: 'kept',
      PATH_INFO: 'kept',
      PATH: '/usr/bin:/bin',
      HOME: '/home/bot',
      LANG: 'C.UTF-8',
      TERM: 'xterm',
      NODE_ENV: 'test',
      KEYBOARD_LAYOUT: 'us',
      TOKENIZER_MODEL: 'bpe',
      BASE_URL: 'https://example.test',
    });
  });

  it('drops any variable whose value is one of the extra secrets', () => {
    const env = scrubbedEnv(
      {
        PATH: '/bin',
        INNOCENT: 'hunter2-long-secret',
        WRAPPED: 'Bearer hunter2-long-secret',
        SHORT: 'ab',
        OK: 'abc',
      },
      ['hunter2-long-secret', 'ab', ''],
    );
    expect(env).toEqual({ PATH: '/bin', OK: 'abc' });
  });

  it('reads process.env by default and skips undefined values', () => {
    process.env.SWITCHBOARD_TEST_PLANTED = 'x';
    try {
      const env = scrubbedEnv();
      expect(env.PATH).toBe(process.env.PATH);
      expect(env).not.toHaveProperty('SWITCHBOARD_TEST_PLANTED');
      expect(scrubbedEnv({ A: undefined, B: 'b' })).toEqual({ B: 'b' });
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
      const env = scrubbedEnv({ ...process.env, ...PLANTED, VISIBLE_MARKER: 'still-here' }, [
        'extra-planted-value',
      ]);
      const result = await tool('Bash').run(
        { command: 'env; echo "T=$TELEGRAM_BOT_TOKEN."' },
        makeContext(box.workspace, { env }),
      );
      expect(result.isError).toBeUndefined();
      expect(result.content).toContain('VISIBLE_MARKER=still-here');
      expect(result.content).toContain('T=.');
      for (const value of Object.values(PLANTED)) expect(result.content).not.toContain(value);
    });
  });
});
