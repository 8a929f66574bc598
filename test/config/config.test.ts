import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { isErrorCode, SwitchboardError } from '../../src/errors.js';

const base = { ANTHROPIC_API_KEY: 'sk-ant-test-key' };

function problems(env: Record<string, string>): { message: string; variables: string[] } {
  try {
    loadConfig({ env, cwd: '/srv/bot' });
  } catch (err) {
    if (!isErrorCode(err, 'CONFIG_INVALID')) throw err;
    return { message: err.message, variables: err.detail.variables as string[] };
  }
  throw new Error('expected CONFIG_INVALID');
}

describe('loadConfig', () => {
  it('applies the documented defaults and resolves paths against cwd', () => {
    const c = loadConfig({ env: base, cwd: '/srv/bot' });
    expect(c.model).toBe('claude-sonnet-5-5');
    expect(c.modelSettings).toEqual({ thinking: 'adaptive', fallback: true });
    expect(c.dataDir).toBe('/srv/bot/data');
    expect(c.workspace).toBe('/srv/bot/workspace');
    expect(c.permissionMode).toBe('default');
    expect(c.projectAccess).toBe('restricted');
    expect(c.approvalTimeoutMs).toBe(600_000);
    expect(c.streamIdleTimeoutMs).toBe(120_000);
    expect(c.allowedUsers).toEqual([]);
    // No platform configured: the terminal chat runs.
    expect(c.platforms).toEqual({ console: {} });
    expect(c.secrets).toEqual(['sk-ant-test-key']);
  });

  it('reads the model settings and names a bad one with what it expects', () => {
    const c = loadConfig({
      env: {
        ...base,
        SWITCHBOARD_MODEL: 'claude-next-1',
        SWITCHBOARD_CONTEXT_WINDOW: '400000',
        SWITCHBOARD_MAX_OUTPUT_TOKENS: '32000',
        SWITCHBOARD_EFFORT: 'medium',
        SWITCHBOARD_THINKING: 'between_tools',
        SWITCHBOARD_FALLBACK: 'off',
      },
      cwd: '/srv/bot',
    });
    expect(c.modelSettings).toEqual({
      thinking: 'between_tools',
      fallback: false,
      effort: 'medium',
      contextWindow: 400_000,
      maxOutputTokens: 32_000,
    });
    const p = problems({
      ...base,
      SWITCHBOARD_EFFORT: 'extreme',
      SWITCHBOARD_CONTEXT_WINDOW: '1M',
      SWITCHBOARD_THINKING: 'disabled',
      SWITCHBOARD_FALLBACK: 'sometimes',
    });
    expect(p.variables.sort()).toEqual([
      'SWITCHBOARD_CONTEXT_WINDOW',
      'SWITCHBOARD_EFFORT',
      'SWITCHBOARD_FALLBACK',
      'SWITCHBOARD_THINKING',
    ]);
    expect(p.message).toMatch(/SWITCHBOARD_EFFORT expected one of low, medium, high, xhigh, max/);
    expect(p.message).toMatch(/SWITCHBOARD_CONTEXT_WINDOW expected a whole number of tokens/);
  });

  it('reads the web settings: both tools on and five uses by default, one domain list at most', () => {
    expect(loadConfig({ env: base, cwd: '/srv/bot' }).web).toEqual({ search: true, fetch: true, maxUses: 5 });
    const c = loadConfig({
      env: {
        ...base,
        SWITCHBOARD_WEB_FETCH: 'off',
        SWITCHBOARD_WEB_MAX_USES: '2',
        SWITCHBOARD_WEB_ALLOWED_DOMAINS: 'Example.com, docs.example.org/blog',
      },
      cwd: '/srv/bot',
    });
    expect(c.web).toEqual({
      search: true,
      fetch: false,
      maxUses: 2,
      allowedDomains: ['example.com', 'docs.example.org/blog'],
    });
    const both = problems({
      ...base,
      SWITCHBOARD_WEB_ALLOWED_DOMAINS: 'example.com',
      SWITCHBOARD_WEB_BLOCKED_DOMAINS: 'spam.example',
    });
    expect(both.variables).toEqual(['SWITCHBOARD_WEB_BLOCKED_DOMAINS']);
    expect(both.message).toContain('cannot be set together with SWITCHBOARD_WEB_ALLOWED_DOMAINS');
    const bad = problems({
      ...base,
      SWITCHBOARD_WEB_SEARCH: 'maybe',
      SWITCHBOARD_WEB_MAX_USES: '0',
      SWITCHBOARD_WEB_BLOCKED_DOMAINS: 'https://spam.example',
    });
    expect(bad.variables).toEqual([
      'SWITCHBOARD_WEB_SEARCH',
      'SWITCHBOARD_WEB_BLOCKED_DOMAINS',
      'SWITCHBOARD_WEB_MAX_USES',
    ]);
    expect(bad.message).toContain('without http://');
  });

  it('names a missing ANTHROPIC_API_KEY and points at .env.example', () => {
    const p = problems({});
    expect(p.variables).toEqual(['ANTHROPIC_API_KEY']);
    expect(p.message).toMatch(/ANTHROPIC_API_KEY is not set/);
    expect(p.message).toMatch(/\.env\.example/);
  });

  it('lists every invalid variable with what is expected and what was given', () => {
    const p = problems({
      ...base,
      SWITCHBOARD_PERMISSION_MODE: 'yolo',
      SWITCHBOARD_APPROVAL_TIMEOUT: 'ten',
      SWITCHBOARD_ALLOWED_USERS: 'telegram:1,bob',
    });
    expect(p.variables.sort()).toEqual([
      'SWITCHBOARD_ALLOWED_USERS',
      'SWITCHBOARD_APPROVAL_TIMEOUT',
      'SWITCHBOARD_PERMISSION_MODE',
    ]);
    expect(p.message).toMatch(
      /SWITCHBOARD_PERMISSION_MODE expected one of plan, default, acceptEdits, bypassPermissions \(got "yolo"\)/,
    );
    expect(p.message).toMatch(/SWITCHBOARD_APPROVAL_TIMEOUT expected a number of seconds/);
  });

  it('reads the file limit in MB (default 20) and names a bad one with what it expects', () => {
    expect(loadConfig({ env: base, cwd: '/srv/bot' }).maxFileBytes).toBe(20 * 1024 * 1024);
    const half = loadConfig({ env: { ...base, SWITCHBOARD_MAX_FILE_MB: '0.5' }, cwd: '/srv/bot' });
    expect(half.maxFileBytes).toBe(512 * 1024);
    for (const bad of ['0', '-3', 'ten', '2048']) {
      const p = problems({ ...base, SWITCHBOARD_MAX_FILE_MB: bad });
      expect(p.variables).toEqual(['SWITCHBOARD_MAX_FILE_MB']);
      expect(p.message).toMatch(/SWITCHBOARD_MAX_FILE_MB expected the largest file the bot downloads, in MB/);
    }
  });

  it('reads the cache setting and the price overrides, and names them when they are wrong', () => {
    const c = loadConfig({ env: base, cwd: '/srv/bot' });
    expect(c.cache).toBe('auto');
    expect(c.prices['claude-sonnet-5-5']?.input).toBe(2);
    const set = loadConfig({
      env: { ...base, SWITCHBOARD_CACHE: '1h', SWITCHBOARD_PRICES: 'claude-sonnet-5-5=1,5,1.25,2,0.05' },
      cwd: '/srv/bot',
    });
    expect(set.cache).toBe('1h');
    expect(set.prices['claude-sonnet-5-5']?.output).toBe(5);
    expect(set.prices['claude-opus-5-5']?.input).toBe(4);
    const p = problems({
      ...base,
      SWITCHBOARD_CACHE: 'forever',
      SWITCHBOARD_PRICES: 'claude-sonnet-5-5=1,5',
    });
    expect(p.variables.sort()).toEqual(['SWITCHBOARD_CACHE', 'SWITCHBOARD_PRICES']);
    expect(p.message).toMatch(/SWITCHBOARD_CACHE expected one of auto, 5m, 1h, off \(got "forever"\)/);
    expect(p.message).toMatch(
      /SWITCHBOARD_PRICES "claude-sonnet-5-5=1,5" is not model=input,output,write5m,write1h,read/,
    );
  });

  it('reads SWITCHBOARD_ALLOW_MENTIONS: none by default, users or all, anything else named', () => {
    expect(loadConfig({ env: base, cwd: '/srv/bot' }).mentions).toBe('none');
    expect(
      loadConfig({ env: { ...base, SWITCHBOARD_ALLOW_MENTIONS: 'users' }, cwd: '/srv/bot' }).mentions,
    ).toBe('users');
    expect(
      loadConfig({ env: { ...base, SWITCHBOARD_ALLOW_MENTIONS: 'all' }, cwd: '/srv/bot' }).mentions,
    ).toBe('all');
    const p = problems({ ...base, SWITCHBOARD_ALLOW_MENTIONS: 'everyone' });
    expect(p.variables).toEqual(['SWITCHBOARD_ALLOW_MENTIONS']);
    expect(p.message).toMatch(
      /SWITCHBOARD_ALLOW_MENTIONS expected one of none, users, all .*\(got "everyone"\)/,
    );
  });

  it('never echoes a secret value in its message', () => {
    const p = problems({ ...base, TELEGRAM_BOT_TOKEN: 'not-a-token-but-secret' });
    expect(p.variables).toEqual(['TELEGRAM_BOT_TOKEN']);
    expect(p.message).not.toContain('not-a-token-but-secret');
  });

  it('requires a Slack transport and a webhook secret', () => {
    expect(problems({ ...base, SLACK_BOT_TOKEN: 'xoxb-1-2' }).variables).toEqual(['SLACK_APP_TOKEN']);
    expect(
      problems({
        ...base,
        TELEGRAM_BOT_TOKEN: '123:abcdefghijklmnop',
        TELEGRAM_WEBHOOK_URL: 'https://x.example/tg',
      }).variables,
    ).toEqual(['TELEGRAM_WEBHOOK_SECRET']);
  });

  it("reports every platform's cross-checks with the core's, in one message", () => {
    const p = problems({
      ...base,
      SLACK_APP_TOKEN: 'xapp-1-2',
      DISCORD_GUILD_ID: '123456789012',
      TELEGRAM_WEBHOOK_URL: 'https://x.example/tg',
      SWITCHBOARD_TRANSCRIBE_MODEL: 'whisper-1',
    });
    expect(p.variables).toEqual([
      'SWITCHBOARD_TRANSCRIBE_URL',
      'TELEGRAM_WEBHOOK_SECRET',
      'TELEGRAM_BOT_TOKEN',
      'SLACK_BOT_TOKEN',
      'DISCORD_BOT_TOKEN',
    ]);
    expect(p.message).toContain('SLACK_BOT_TOKEN is not set, but other SLACK_ variables are');
  });

  it("scrubs every platform's secrets, and only the platforms that run", () => {
    const c = loadConfig({
      env: {
        ...base,
        TELEGRAM_BOT_TOKEN: '123:abcdefghijklmnop',
        TELEGRAM_WEBHOOK_URL: 'https://x.example/tg',
        TELEGRAM_WEBHOOK_SECRET: 'webhook-secret-value',
        SLACK_BOT_TOKEN: 'xoxb-1-2',
        SLACK_SIGNING_SECRET: 'signing-secret-value',
      },
    });
    expect(c.secrets).toEqual([
      'sk-ant-test-key',
      '123:abcdefghijklmnop',
      'webhook-secret-value',
      'xoxb-1-2',
      'signing-secret-value',
    ]);
    expect(Object.keys(c.platforms)).toEqual(['telegram', 'slack']);
    expect(c.platforms.telegram).toMatchObject({ webhook: { port: 8080, secret: 'webhook-secret-value' } });
  });

  it('builds platform sections and turns off the console when a platform is configured', () => {
    const c = loadConfig({
      env: {
        ...base,
        TELEGRAM_BOT_TOKEN: '123:abcdefghijklmnop',
        TELEGRAM_API_ROOT: 'http://127.0.0.1:9/',
        SLACK_BOT_TOKEN: 'xoxb-1-2',
        SLACK_APP_TOKEN: 'xapp-1-2',
        DISCORD_BOT_TOKEN: 'discord-token-value',
        DISCORD_GUILD_ID: '123456789012',
        SWITCHBOARD_ADMINS: 'telegram:7',
        SWITCHBOARD_LINKED_USERS: 'alice=telegram:1,slack:U1;bob=discord:22',
        SWITCHBOARD_APPROVAL_TIMEOUT: '30',
      },
    });
    expect(Object.keys(c.platforms)).toEqual(['telegram', 'slack', 'discord']);
    expect(c.platforms.telegram).toEqual({ token: '123:abcdefghijklmnop', apiUrl: 'http://127.0.0.1:9' });
    expect(c.platforms.slack).toMatchObject({
      token: 'xoxb-1-2',
      appToken: 'xapp-1-2',
      commandName: 'switchboard',
      port: 3000,
    });
    expect(c.platforms.discord).toEqual({ token: 'discord-token-value', guildId: '123456789012' });
    expect(c.linkedUsers).toEqual({ alice: ['telegram:1', 'slack:U1'], bob: ['discord:22'] });
    expect(c.approvalTimeoutMs).toBe(30_000);
    expect(c.secrets).toContain('discord-token-value');
  });

  it('reads who may approve and the spending caps; unset caps are no caps', () => {
    const c = loadConfig({
      env: {
        ...base,
        SWITCHBOARD_APPROVERS: 'telegram:5, slack:U1',
        SWITCHBOARD_SELF_APPROVAL: 'OFF',
        SWITCHBOARD_BUDGET_USER_DAY: '5',
        SWITCHBOARD_BUDGET_MONTH: '300.50',
      },
    });
    expect(c.approvers).toEqual(['telegram:5', 'slack:U1']);
    expect(c.selfApproval).toBe(false);
    expect(c.budgets).toEqual({ userDay: 5, month: 300.5 });
    const plain = loadConfig({ env: base });
    expect(plain.selfApproval).toBe(true);
    expect(plain.budgets).toEqual({});
    expect(problems({ ...base, SWITCHBOARD_BUDGET_CHAT_DAY: '$5' }).variables).toEqual([
      'SWITCHBOARD_BUDGET_CHAT_DAY',
    ]);
    expect(problems({ ...base, SWITCHBOARD_SELF_APPROVAL: 'maybe' }).variables).toEqual([
      'SWITCHBOARD_SELF_APPROVAL',
    ]);
  });

  it('runs the console alongside platforms with --console', () => {
    const c = loadConfig({ env: { ...base, DISCORD_BOT_TOKEN: 'discord-token-value' }, argv: ['--console'] });
    expect(Object.keys(c.platforms)).toEqual(['discord', 'console']);
  });

  it('throws a SwitchboardError, not a raw zod error', () => {
    expect(() => loadConfig({ env: {} })).toThrow(SwitchboardError);
  });
});
