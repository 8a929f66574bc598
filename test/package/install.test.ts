/**
 * The library as a consumer gets it: `npm pack` on a tree with no build
 * (prepack compiles), the tarball unpacked into a scratch project whose
 * node_modules holds only the package's dependencies and the one optional
 * peer it uses (grammy), the README's library snippets typechecked there with
 * `skipLibCheck: false` and run against the fakes. Then the container image's
 * runtime stage, step by step from the Dockerfile: `npm ci --omit=dev` from
 * the lock, the compiled bot started as its CMD, probed by its HEALTHCHECK,
 * stopped by SIGTERM. npm runs `--offline` (from the cache `npm ci` filled):
 * no network but loopback.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  dependencies: Record<string, string>;
};
const KEY = 'sk-ant-package-test-0123456789';

let scratch: string;
let tarball: string;
let anthropic: FakeAnthropic;
let telegram: FakeTelegram;
const children: ChildProcess[] = [];

/** Links `name` from the project's node_modules into `app`'s, as an install would have placed it. */
function link(app: string, name: string): void {
  const target = join(app, 'node_modules', name);
  mkdirSync(dirname(target), { recursive: true });
  if (!existsSync(target)) symlinkSync(join(ROOT, 'node_modules', name), target, 'dir');
}

/** The parts of package-lock.json this test reads. */
interface LockFile {
  packages: Record<string, { version?: string; dependencies?: Record<string, string> }>;
}

/**
 * Lock keys (`node_modules/a`, `node_modules/a/node_modules/b`) of `roots` and
 * everything they depend on, each dependency found the way Node finds it:
 * the nearest node_modules folder up from the package that needs it.
 */
function dependencyClosure(lock: LockFile, roots: string[]): string[] {
  const found = new Set<string>();
  const locate = (from: string, name: string): string | undefined => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
      const key = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (!base) return undefined;
    }
  };
  const visit = (key: string) => {
    if (found.has(key)) return;
    found.add(key);
    for (const name of Object.keys(lock.packages[key]?.dependencies ?? {})) {
      const dependency = locate(key, name);
      if (dependency) visit(dependency);
    }
  };
  for (const root of roots) visit(root);
  return [...found];
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

/** Resolves with the child's exit code; rejects if it has not exited in `ms`. */
function exited(child: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolvePromise(code);
    });
  });
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
}, 300_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([anthropic?.close(), telegram?.close()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe('the packed library', () => {
  it('holds the compiled entries, their types, the bin and the licence, and no sources or tests', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').map((f) => f.replace(/^package\//, ''));
    for (const file of [
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/adapters/telegram/index.js',
      'dist/src/postgres.d.ts',
      'bin/switchboard.mjs',
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
    ]) {
      expect(files).toContain(file);
    }
    expect(files.filter((f) => /^(src|test|adapters)\/.*\.ts$/.test(f))).toEqual([]);
  });

  it("installs into a project with only its dependencies and grammy, where the README's snippets typecheck and run", async () => {
    const app = join(scratch, 'app');
    mkdirSync(join(app, 'node_modules'), { recursive: true });
    await run('tar', ['-xzf', tarball, '-C', scratch]);
    cpSync(join(scratch, 'package'), join(app, 'node_modules', 'switchboard'), { recursive: true });
    for (const name of Object.keys(PKG.dependencies)) link(app, name);
    for (const name of ['grammy', '@grammyjs/runner', '@grammyjs/auto-retry', '@types/node', 'typescript']) {
      link(app, name);
    }
    expect(existsSync(join(app, 'node_modules', 'discord.js'))).toBe(false);

    const snippets = librarySnippets();
    expect(snippets.length).toBeGreaterThanOrEqual(2);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'consumer', type: 'module', private: true }),
    );
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
      'createTelegramAdapter({ token: process.env.TELEGRAM_BOT_TOKEN!, apiRoot: process.env.TELEGRAM_API_ROOT! })',
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

    const env = {
      PATH: process.env.PATH ?? '',
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: anthropic.url,
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.url,
    };
    const first = await run(process.execPath, [join(app, 'out', 'session.js')], { cwd: app, env });
    expect(first.stdout).toContain('You said: What is the architecture of this project?');

    const child = spawn(process.execPath, [join(app, 'out', 'bot.js')], { cwd: app, env, stdio: 'ignore' });
    children.push(child);
    telegram.pushUpdate(
      messageUpdate({ chatId: 123456789, user: { id: 123456789, first_name: 'Ann' } }, 'hi'),
    );
    await telegram.waitFor(
      () => telegram.botMessages(123456789).some((m) => /You said: .*hi/.test(m.text)),
      60_000,
    );
    child.kill('SIGTERM');
    await exited(child, 30_000);
  }, 240_000);
});
