/**
 * The settings of several replicas: SWITCHBOARD_DATABASE_URL (validated, a
 * secret the logs never show), SWITCHBOARD_DATABASE_SCHEMA and
 * SWITCHBOARD_LEASE_TTL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { startSwitchboard } from '../../src/app.js';
import { isErrorCode } from '../../src/errors.js';
import { createLogger, silentLogger } from '../../src/logger.js';
import { testDatabaseUrl } from '../store-postgres/database.js';

const BASE = { ANTHROPIC_API_KEY: 'sk-ant-config-0123456789' };
const PG_URL = 'postgres://switchboard:s3cret-Passw0rd@db.internal:5432/switchboard';

function failure(env: Record<string, string>): Error & { detail?: unknown } {
  try {
    loadConfig({ env: { ...BASE, ...env }, cwd: '/tmp' });
  } catch (err) {
    expect(isErrorCode(err, 'CONFIG_INVALID')).toBe(true);
    return err as Error;
  }
  throw new Error('loadConfig accepted it');
}

describe('replica settings', () => {
  it('uses files and a 30 s lease by default', () => {
    const config = loadConfig({ env: BASE, cwd: '/tmp' });
    expect(config.database).toBeUndefined();
    expect(config.leaseTtlMs).toBe(30_000);
  });

  it('switches to PostgreSQL with a URL and schema, and treats the URL and its password as secrets', () => {
    const config = loadConfig({
      env: {
        ...BASE,
        SWITCHBOARD_DATABASE_URL: PG_URL,
        SWITCHBOARD_DATABASE_SCHEMA: 'bot_one',
        SWITCHBOARD_LEASE_TTL: '2.5',
      },
      cwd: '/tmp',
    });
    expect(config.database).toEqual({ url: PG_URL, schema: 'bot_one' });
    expect(config.leaseTtlMs).toBe(2_500);
    expect(config.secrets).toContain(PG_URL);
    expect(config.secrets).toContain('s3cret-Passw0rd');

    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: config.secrets,
      destination: { write: (line: string) => void lines.push(line) } as never,
    });
    logger.info({ url: PG_URL }, `connecting to ${PG_URL}`);
    logger.error({ err: 'password authentication failed: s3cret-Passw0rd' }, 'database down');
    const all = lines.join('\n');
    expect(all).not.toContain('s3cret-Passw0rd');
    expect(all).not.toContain(PG_URL);
    expect(all).toContain('database down');
  });

  it('rejects a URL that is not postgres:// without echoing it, a bad schema and a bad ttl', () => {
    const bad = failure({ SWITCHBOARD_DATABASE_URL: 'mysql://root:hunter22@db/x' });
    expect(bad.message).toContain('SWITCHBOARD_DATABASE_URL');
    expect(bad.message).toContain('postgres://');
    expect(bad.message).not.toContain('hunter22');
    expect(
      failure({ SWITCHBOARD_DATABASE_URL: PG_URL, SWITCHBOARD_DATABASE_SCHEMA: 'Bot-One' }).message,
    ).toContain('SWITCHBOARD_DATABASE_SCHEMA');
    expect(failure({ SWITCHBOARD_LEASE_TTL: '0' }).message).toContain('SWITCHBOARD_LEASE_TTL');
  });
});

const dbUrl = testDatabaseUrl();

describe.skipIf(!dbUrl)('start-up on PostgreSQL', () => {
  it('fails at once, without the password, when the database refuses the credentials', async () => {
    const root = await mkdtemp(join(tmpdir(), 'switchboard-replicas-config-'));
    try {
      const wrong = new URL(dbUrl as string);
      wrong.password = 'not-the-password-42';
      const config = loadConfig({
        env: {
          ...BASE,
          SWITCHBOARD_DATABASE_URL: wrong.toString(),
          SWITCHBOARD_DATA_DIR: join(root, 'data'),
          SWITCHBOARD_WORKSPACE: join(root, 'ws'),
        },
        argv: ['--console'],
        cwd: root,
      });
      const failed = await startSwitchboard(config, {
        logger: silentLogger,
        adapterOptions: { console: { input: Readable.from([]), output: new PassThrough() } },
      }).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
      expect(failed).toBeInstanceOf(Error);
      expect(failed?.message).toMatch(/password|authentication/i);
      expect(failed?.message).not.toContain('not-the-password-42');
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
