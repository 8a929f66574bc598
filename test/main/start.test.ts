/**
 * The ready bot as `npm start` runs it: a child process of scripts/start.mjs,
 * configured only through its environment.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';

const ROOT = resolve(import.meta.dirname, '../..');
// `npm start` is `node scripts/start.mjs`: the compiled bot (rebuilt first when stale).
const START = join(ROOT, 'scripts/start.mjs');
const KEY = 'sk-ant-start-test-key-0123456789';

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const children: ChildProcess[] = [];
let dir: string;
let fake: FakeAnthropic;

function run(env: Record<string, string>, args: string[] = []): Run {
  const child = spawn(process.execPath, [START, ...args], {
    cwd: dir,
    // Only what the test gives: no key or token leaks in from the developer's shell.
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    err += String(d);
  });
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('npm start', () => {
  it('exits 2 naming ANTHROPIC_API_KEY on a fresh clone (no .env)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-start-'));
    const r = run({});
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toMatch(/ANTHROPIC_API_KEY is not set/);
    expect(r.stderr()).toMatch(/\.env\.example/);
  });

  it('exits 2 naming each invalid variable, read from .env', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-start-'));
    await writeFile(join(dir, '.env'), `ANTHROPIC_API_KEY=${KEY}\nSWITCHBOARD_PERMISSION_MODE=yolo\n`);
    const r = run({});
    expect(await r.exited).toBe(2);
    expect(r.stderr()).toMatch(/SWITCHBOARD_PERMISSION_MODE expected one of plan, default/);
    expect(r.stderr()).not.toContain(KEY);
  });

  it('runs the console chat over a pipe: streams the reply, persists the session, exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-start-'));
    fake.reset();
    fake.enqueue({ text: ['Hello', ' from', ' the', ' console', '.'] });
    const r = run({
      ANTHROPIC_API_KEY: KEY,
      ANTHROPIC_BASE_URL: fake.url,
      SWITCHBOARD_DATA_DIR: './data',
      SWITCHBOARD_WORKSPACE: './ws',
      SWITCHBOARD_LOG_LEVEL: 'debug',
    });
    r.child.stdin?.write('hi there\n');
    r.child.stdin?.end();
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toContain('Hello from the console.');
    expect(fake.requests.at(-1)?.messages.at(-1)?.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ text: expect.stringContaining('hi there') })]),
    );
    const files = await readdir(join(dir, 'data', 'sessions'));
    expect(files.some((f) => f.endsWith('.json'))).toBe(true);
    // Debug logs go to stderr in console mode and never carry the key.
    expect(r.stderr()).not.toContain(KEY);
    expect(r.stdout()).not.toContain(KEY);
  });

  it('answers an unknown command with a hint instead of failing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-start-'));
    const r = run({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url });
    r.child.stdin?.write('/frobnicate now\n');
    r.child.stdin?.end();
    expect(await r.exited).toBe(0);
    expect(r.stdout()).toMatch(/frobnicate/);
    expect(r.stdout()).toMatch(/\/help/);
  });

  it('on SIGTERM stops the running reply with a notice, keeps the session and exits 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-start-'));
    fake.reset();
    let release!: () => void;
    fake.enqueue({ text: ['Working on it'], release: new Promise<void>((r) => (release = r)) });
    const r = run({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: fake.url, SWITCHBOARD_DATA_DIR: './data' });
    r.child.stdin?.write('a long task\n');
    // Wait for the reply to be under way (its first text printed), then stop the bot.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!r.stdout().includes('Working on it')) return;
        r.child.stdout?.off('data', check);
        resolve();
      };
      r.child.stdout?.on('data', check);
      check();
    });
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
    release();
    expect(r.stdout()).toMatch(/shutting down/i);
    const files = await readdir(join(dir, 'data', 'sessions'));
    expect(files.some((f) => f.endsWith('.json'))).toBe(true);
  });
});
