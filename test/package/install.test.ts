/**
 * The package as its users get it: `npm pack` on this tree, the tarball
 * installed with plain `npm install` into an empty project (the registry
 * supplies its dependencies, or npm's cache when it holds them). There,
 * `npx switchboard --help` and `--version` answer without any setting, a
 * Telegram token without grammy stops start-up with exit 2 and the install
 * line, that line run as printed makes `npx switchboard` poll the fake Bot
 * API and answer, and the README's library snippets typecheck and run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeTelegram, messageUpdate, startFakeTelegram } from '../fakes/telegram/index.js';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const KEY = 'sk-ant-package-test-0123456789';
const NPM = ['--no-audit', '--no-fund', '--loglevel=error'];

let scratch: string;
let tarball: string;
let app: string;
let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
const children: ChildProcess[] = [];

/** Only what a person's shell would have: no npm_config_* of the test run, no settings. */
function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? scratch, ...extra };
}

/** `npx switchboard …` in the project; resolves with its exit code and output. */
function npx(args: string[], env: Record<string, string>) {
  return run('npx', ['switchboard', ...args], { cwd: app, env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code,
      stdout: err.stdout ?? '',
      stderr: err.stderr ?? '',
    }),
  );
}

/** The README's ```ts blocks under "## Library". */
function librarySnippets(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('## Library'),
    readme.indexOf('\n## ', readme.indexOf('## Library') + 1),
  );
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'switchboard-package-'));
  anthropic = await startFakeAnthropic();
  telegram = await startFakeTelegram();
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
    cwd: ROOT,
    maxBuffer: 32 * 1024 * 1024,
  });
  const packed = JSON.parse(stdout) as { filename: string }[];
  tarball = join(scratch, packed[0]?.filename ?? '');
  app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'consumer', type: 'module', private: true }),
  );
  await run('npm', ['install', ...NPM, tarball], { cwd: app, env: cleanEnv(), maxBuffer: 32 << 20 });
}, 300_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all([anthropic?.close(), telegram?.close()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('the packed package', () => {
  it('holds the compiled entries, their types, the bin, what its messages and scripts name, and no sources', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').map((f) => f.replace(/^package\//, ''));
    for (const file of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/adapters/telegram/index.js',
      'dist/src/postgres.d.ts',
      'bin/switchboard.mjs',
      '.env.example',
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => /^(src|test|adapters)\/.*\.ts$/.test(f))).toEqual([]);
    // Scripts npm may run in an installed copy (an install from git runs prepare) name shipped files.
    for (const script of ['prepare', 'preinstall', 'install', 'postinstall']) {
      for (const [, file] of (PKG.scripts[script] ?? '').matchAll(/node (\S+)/g))
        expect(files).toContain(file);
    }
  });

  it('installs with plain npm, with no peer, and `npx switchboard --help` and `--version` need no setting', async () => {
    expect(existsSync(join(app, 'node_modules', 'switchboard', 'dist', 'src', 'main.js'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'grammy'))).toBe(false);
    const help = await npx(['--help'], cleanEnv());
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: switchboard/);
    const reference = /Every setting is described in (\S+)/.exec(help.stdout)?.[1] ?? '';
    expect(existsSync(reference)).toBe(true);
    expect(await npx(['--version'], cleanEnv())).toMatchObject({ code: 0, stdout: `${PKG.version}\n` });

    const unset = await npx([], cleanEnv());
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('ANTHROPIC_API_KEY is not set');
    expect(unset.stderr).toContain(`Every setting is described in ${reference}`);
  }, 120_000);

  it('says which npm install line a Telegram token needs; that line run as printed makes `npx switchboard` poll and answer', async () => {
    const env = cleanEnv({
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
      SWITCHBOARD_ALLOWED_USERS: 'telegram:123456789',
    });
    const missing = await npx([], env);
    expect(missing.code).toBe(2);
    const ranges = PKG.peerDependencies;
    const line = `npm install grammy@${ranges.grammy} @grammyjs/runner@${ranges['@grammyjs/runner']} @grammyjs/auto-retry@${ranges['@grammyjs/auto-retry']}`;
    expect(missing.stderr).toContain(line);
    expect(telegram.callsTo('getUpdates')).toEqual([]);

    await run('sh', ['-c', line], { cwd: app, env: cleanEnv(), maxBuffer: 32 << 20 });
    const child = spawn('npx', ['switchboard'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
      });
    }
    const exited = once(child, 'exit');
    await telegram
      .waitFor(() => telegram.callsTo('getUpdates').length > 0, 60_000)
      .catch(() => {
        throw new Error(`npx switchboard never polled:\n${output}`);
      });
    telegram.pushUpdate(
      messageUpdate({ chatId: 123456789, user: { id: 123456789, first_name: 'Ann' } }, 'hi'),
    );
    await telegram.waitFor(
      () => telegram.botMessages(123456789).some((m) => /You said: .*hi/.test(m.text)),
      60_000,
    );
    child.kill('SIGTERM');
    await exited;
  }, 240_000);

  it('is a library whose README snippets typecheck and run in the installed project', async () => {
    // The consumer's own tools (not the package's): the compiler and Node's types.
    for (const name of ['typescript', '@types/node']) {
      const target = join(app, 'node_modules', name);
      mkdirSync(dirname(target), { recursive: true });
      if (!existsSync(target)) symlinkSync(join(ROOT, 'node_modules', name), target, 'dir');
    }
    expect(existsSync(join(app, 'node_modules', 'grammy'))).toBe(true);
    expect(existsSync(join(app, 'node_modules', 'discord.js'))).toBe(false);

    const snippets = librarySnippets();
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          outDir: 'out',
          types: ['node'],
        },
        include: ['*.ts'],
      }),
    );
    // The second snippet talks to Telegram: point it at the fake, as TELEGRAM_API_ROOT does for the ready bot.
    const [session = '', bot = ''] = snippets;
    const botOnFake = bot.replace(
      'createTelegramAdapter({ token: process.env.TELEGRAM_BOT_TOKEN! })',
      'createTelegramAdapter({ token: process.env.TELEGRAM_BOT_TOKEN!, apiUrl: process.env.TELEGRAM_API_ROOT! })',
    );
    expect(botOnFake).not.toBe(bot);
    writeFileSync(join(app, 'session.ts'), `${session}\nexport {};\n`);
    writeFileSync(join(app, 'bot.ts'), `${botOnFake}\nexport {};\n`);
    const typecheck = await run(
      process.execPath,
      [join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app],
      {
        cwd: app,
      },
    ).then(
      () => '',
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
    // Only our own declarations and the consumer's files are ours to answer for: grammy's
    // declarations, for one, name node-fetch's types, which grammy does not depend on.
    const ours = typecheck
      .split('\n')
      .filter((line) => /^(node_modules\/switchboard\/|session\.ts|bot\.ts)/.test(line));
    expect(ours).toEqual([]);

    const env = cleanEnv({
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
    });
    const first = await run(process.execPath, [join(app, 'out', 'session.js')], { cwd: app, env });
    expect(first.stdout).toContain('You said: What is the architecture of this project?');

    const before = telegram.botMessages(123456789).length;
    const child = spawn(process.execPath, [join(app, 'out', 'bot.js')], { cwd: app, env, stdio: 'ignore' });
    children.push(child);
    const exited = once(child, 'exit');
    telegram.pushUpdate(
      messageUpdate({ chatId: 123456789, user: { id: 123456789, first_name: 'Ann' } }, 'hello'),
    );
    await telegram.waitFor(
      () =>
        telegram
          .botMessages(123456789)
          .slice(before)
          .some((m) => /You said: .*hello/.test(m.text)),
      60_000,
    );
    child.kill('SIGTERM');
    await exited;
  }, 240_000);
});
