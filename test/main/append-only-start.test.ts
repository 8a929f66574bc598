/**
 * The ready bot as `npm start` runs it (a child process of src/main.ts, the
 * console chat over a pipe) on Sonnet 5.5 with thinking and an MCP server:
 * the server is killed mid-conversation and comes back, a reply is
 * continued twice after `max_tokens`, then ten more turns. No request is
 * refused, none drops a thinking block, each begins with the one before it,
 * and each of the last turns reads the whole cache of the one before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { expectAppendOnly, expectCacheReadsKept } from '../helpers/append-only.js';
import { NOTES_SERVER, toolChanges } from '../mcp/helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
let fake: FakeAnthropic;
let dir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  dir = await mkdtemp(join(tmpdir(), 'sb-append-'));
});
afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await fake.close();
  await rm(dir, { recursive: true, force: true });
});

/** The processes below `pid`, with their command lines (from /proc). */
async function descendants(pid: number): Promise<Array<{ pid: number; cmd: string }>> {
  const out: Array<{ pid: number; cmd: string }> = [];
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  for (const id of children.split(/\s+/).filter(Boolean).map(Number)) {
    const cmd = (await readFile(`/proc/${id}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    out.push({ pid: id, cmd }, ...(await descendants(id)));
  }
  return out;
}

describe('npm start: an append-only conversation', () => {
  it('survives an MCP server that drops and returns, two continuations and ten more turns', async () => {
    await writeFile(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [NOTES_SERVER] } } }),
    );
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'src/main.ts'), '--console'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        ANTHROPIC_API_KEY: 'sk-ant-append-test-key-0123456789',
        ANTHROPIC_BASE_URL: fake.url,
        SWITCHBOARD_MODEL: 'claude-sonnet-5-5',
        SWITCHBOARD_DATA_DIR: './data',
        SWITCHBOARD_WORKSPACE: './ws',
        SWITCHBOARD_MCP_CONFIG: './.mcp.json',
        SWITCHBOARD_CACHE: '5m',
        SWITCHBOARD_LOG_LEVEL: 'info',
        // The console keeps its own output quiet: the log, with the MCP servers' comings and goings, goes here.
        SWITCHBOARD_LOG_FILE: './bot.log',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout?.on('data', (d) => {
      out += String(d);
    });
    /** Resolves once the bot's log file has said `text` `times` times (woken by each change of the folder). */
    const logged = (text: string, times: number) =>
      new Promise<void>((resolve) => {
        const watcher = watch(dir);
        const check = async () => {
          const log = await readFile(join(dir, 'bot.log'), 'utf8').catch(() => '');
          if (log.split(text).length - 1 >= times) {
            watcher.close();
            resolve();
          }
        };
        watcher.on('change', () => void check());
        void check();
      });
    const exited = new Promise<number | null>((r) => child?.on('exit', (code) => r(code)));
    const shown = (text: string) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (out.includes(text)) {
            child?.stdout?.off('data', check);
            resolve();
          }
        };
        child?.stdout?.on('data', check);
        child?.once('exit', () => reject(new Error(`the bot exited before showing "${text}"`)));
        check();
      });
    const notesServer = async () =>
      (await descendants(child?.pid as number)).find((p) => p.cmd.includes('notes-server.mjs'));
    const say = async (line: string, answer: string) => {
      child?.stdin?.write(`${line}\n`);
      await shown(answer);
    };

    await logged('MCP server connected', 1);
    fake.enqueue({ thinking: ['hello'], text: 'Answer A.' });
    await say('hello', 'Answer A.');
    const first = await notesServer();
    expect(first).toBeDefined();
    process.kill(first?.pid as number, 'SIGKILL');
    // The next turn starts once the bot has seen the server go.
    await logged('is down (', 1);
    fake.enqueue({ thinking: ['no notes'], text: 'Answer B.' });
    await say('the notes server is gone', 'Answer B.');
    // The bot starts it again after its backoff and says so in its log.
    await logged('MCP server connected', 2);
    fake.enqueue(
      { thinking: ['long'], text: 'Part one, ', stopReason: 'max_tokens' },
      { thinking: ['longer'], text: 'part two, ', stopReason: 'max_tokens' },
      { thinking: ['done'], text: 'Answer C.' },
    );
    await say('tell me everything', 'Answer C.');
    const beforeTen = fake.log.length;
    for (let n = 1; n <= 10; n++) {
      fake.enqueue({ thinking: [`turn ${n}`], text: `Answer ${n}.` });
      await say(`question ${n}`, `Answer ${n}.`);
    }
    child.stdin?.end();
    expect(await exited).toBe(0);

    const bodies = expectAppendOnly(fake);
    // The server's tools went and came back in system messages at the end, never by changing `tools`.
    const changes = toolChanges(bodies.at(-1));
    expect(changes.some((c) => c.startsWith('-mcp__notes__'))).toBe(true);
    expect(changes.some((c) => c.startsWith('+mcp__notes__'))).toBe(true);
    expect(JSON.stringify(bodies.at(-1).messages).match(/"type":"thinking"/g)).toHaveLength(1 + 1 + 3 + 9);
    expectCacheReadsKept(fake, beforeTen + 1);
    expect((await readdir(join(dir, 'data', 'sessions'))).some((f) => f.endsWith('.jsonl'))).toBe(true);
  }, 120_000);
});
