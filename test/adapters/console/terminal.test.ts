/**
 * The terminal chat as a person meets it: the real `npm start` on a real
 * pseudo-terminal (tmux), keys typed with send-keys, the screen read back
 * with capture-pane, the model served by the fake Messages API.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { EVERYTHING } from '../../fixtures/mcp/published.js';
import { startTerminal, type Terminal } from './tmux.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);
let fake: FakeAnthropic;
let term: Terminal | undefined;
let dir: string | undefined;

beforeAll(async () => {
  fake = await startFakeAnthropic();
  // `npm start` compiles the bot first when dist/ is stale; do that once here, not inside each test's wait.
  await run(process.execPath, [join(ROOT, 'scripts/build-if-stale.mjs')], { cwd: ROOT });
}, 300_000);
afterAll(async () => {
  await fake.close();
});
afterEach(async () => {
  await term?.close();
  term = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Runs `npm start` on a fresh terminal; `again` keeps the data of the previous run. */
async function start(again = false, env: Record<string, string> = {}): Promise<Terminal> {
  fake.reset();
  if (!again || !dir) dir = await mkdtemp(join(tmpdir(), 'sb-console-'));
  await term?.close();
  term = await startTerminal('npm start --silent', {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dir,
      ANTHROPIC_API_KEY: 'sk-ant-console-test-0123456789',
      ANTHROPIC_BASE_URL: fake.url,
      SWITCHBOARD_DATA_DIR: join(dir, 'data'),
      SWITCHBOARD_WORKSPACE: join(dir, 'ws'),
      SWITCHBOARD_LOG_LEVEL: 'debug',
      ...env,
    },
  });
  await term.waitFor((s) => /switchboard console/.test(s) && /^›$/m.test(s), 'the prompt', 60_000);
  return term;
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;
/** The text of the newest user message the model was sent. */
function lastUserText(): string {
  const messages = fake.requests.at(-1)?.messages ?? [];
  const last = [...messages].reverse().find((m: { role: string }) => m.role === 'user');
  const content = last?.content ?? '';
  if (typeof content === 'string') return content;
  return content.map((b: { text?: string }) => b.text ?? '').join('\n');
}
/** The prompt is back on the last line, empty or holding `typed`. */
const promptBack =
  (typed = '') =>
  (s: string) =>
    s.split('\n').at(-1) === `›${typed ? ` ${typed}` : ''}`;

// Each test starts `npm start` (a few seconds on a busy machine) and waits on what the screen shows.
const SLOW = { timeout: 120_000 };

describe('the terminal chat (npm start on a pseudo-terminal)', SLOW, () => {
  it('shows each reply once, streamed in place; edits and recalls lines; keys never reach the model', async () => {
    const t = await start();
    fake.enqueue({
      text: [
        'Look at [the ',
        'docs](https://example.com) and ',
        'this list:\n\n- **one**\n- two\n\n| a | b |\n',
        '|---|---|\n| 1 | 2 |\n\n```sh\nnpm test\n```\n\nSentence 1 of the end.',
      ],
      chunkDelayMs: 150,
    });
    // "helo", cursor left, "l", an F5 key, End, " world": a person fixing a typo.
    await t.keys(['helo'], { literal: true });
    await t.keys(['Left']);
    await t.keys(['l'], { literal: true });
    await t.keys(['F5']);
    await t.keys(['End']);
    await t.keys([' world'], { literal: true });
    await t.keys(['Enter']);
    const shown = await t.waitFor(
      (s) => s.includes('Sentence 1 of the end.') && s.includes('context used') && promptBack()(s),
      'the reply, the context line and the prompt after them',
    );
    expect(occurrences(shown, 'Sentence 1 of the end.')).toBe(1);
    expect(occurrences(shown, 'Look at')).toBe(1);
    expect(occurrences(shown, 'npm test')).toBe(1);
    // The table's first row showed as a plain line until its second row arrived; it was corrected in place.
    expect(shown).not.toContain('| a | b |');
    expect(occurrences(shown, 'a | b')).toBe(1);
    // Where the session stands after the reply: context and what it has cost so far.
    expect(shown).toMatch(
      /Sentence 1 of the end\.\n◔ [\d.]+% of the context used \([\d,]+ of [\d,]+ tokens\) · \$[\d.]+ so far/,
    );
    expect(shown).toContain('› hello world');
    expect(lastUserText()).toMatch(/hello world$/);
    expect(JSON.stringify(fake.requests)).not.toMatch(/\\u001b|\[15~/);
    // History: Up brings the last line back to the prompt.
    await t.keys(['Up']);
    await t.waitFor(promptBack('hello world'), 'the recalled line');
    // Logs stay out of the chat.
    expect(shown).not.toContain('"level"');
  });

  it('shows tool activity where it happens; approvals by number only while one waits; a denial leaves a trace', async () => {
    const t = await start();
    fake.enqueue(
      { text: 'I will run it.', toolUse: [{ name: 'Bash', input: { command: 'echo hi' } }] },
      { text: 'It printed hi.' },
    );
    await t.typeLine('run echo');
    await t.waitFor(
      (s) => s.includes('(type the number)') && s.split('\n').at(-1) === '1-4 ›',
      'the approval',
    );
    let shown = await t.screen();
    expect(shown).toContain('🔐 Bash wants to run:');
    expect(shown).toContain('echo hi');
    await t.typeLine('1');
    shown = await t.waitFor(
      (s) => s.includes('It printed hi.') && promptBack()(s),
      'the reply after the tool',
    );
    expect(shown).toMatch(/[⚙✓] Bash: echo hi/);
    expect(shown).toContain('✅ Allowed by');
    expect(occurrences(shown, 'I will run it.')).toBe(1);

    // No approval waits now: a "1" is a message like any other.
    fake.enqueue({ text: 'You said one.' });
    await t.typeLine('1');
    shown = await t.waitFor((s) => s.includes('You said one.'), 'the answer to "1"');
    expect(lastUserText()).toMatch(/1$/);
    expect(shown).not.toContain('expired');

    // In plan mode the tool is denied without asking; the screen says so.
    await t.typeLine('/mode plan');
    await t.waitFor((s) => /plan/i.test(s.split('/mode plan').at(-1) ?? ''), 'the mode change');
    fake.enqueue(
      { toolUse: [{ name: 'Bash', input: { command: 'rm -rf build' } }] },
      { text: 'Not allowed, then.' },
    );
    await t.typeLine('clean up');
    shown = await t.waitFor((s) => s.includes('Not allowed, then.'), 'the reply after the denial');
    expect(shown).toContain('🚫 Bash: rm -rf build');
  });

  it("asks an MCP server's question: a typed line fills a text field, a number presses a button", async () => {
    dir = await mkdtemp(join(tmpdir(), 'sb-console-'));
    const file = join(dir, 'mcp.json');
    const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'], permission: 'inspect' };
    await writeFile(file, JSON.stringify({ mcpServers: { everything } }));
    const t = await start(true, { SWITCHBOARD_MCP_CONFIG: file });
    fake.enqueue(
      { toolUse: [{ name: 'mcp__everything__trigger-elicitation-request', input: {} }] },
      { text: 'Cancelled, fine.' },
    );
    await t.typeLine('ask me');
    await t.waitFor((s) => s.includes('Reply with text.') && s.includes('(type the number)'), 'the question');
    await t.typeLine('Terry Tester');
    // Yes, No, Skip (the field is optional), Decline, Cancel.
    let shown = await t.waitFor(
      (s) => s.includes('Press Yes or No.') && s.split('\n').at(-1) === '1-5 ›',
      'the yes/no field',
    );
    expect(shown).toContain('✓ String: Terry Tester');
    await t.typeLine('5');
    shown = await t.waitFor((s) => s.includes('Cancelled, fine.') && promptBack()(s), 'the reply');
    expect(shown).toContain('⏹ Cancelled by');
    expect(JSON.stringify(fake.requests.at(-1)?.messages.at(-1))).toContain(
      'User cancelled the elicitation dialog',
    );
  });

  it('Ctrl-C stops the running reply first and leaves on the second press', async () => {
    const t = await start();
    fake.enqueue({ text: ['Working on it'], stallAfterChunks: 1 });
    await t.typeLine('a long job');
    await t.waitFor((s) => s.includes('Working on it'), 'the reply under way');
    await t.keys(['C-c']);
    const shown = await t.waitFor((s) => /Stopped the current reply/.test(s) && promptBack()(s), 'the stop');
    expect(fake.log[0]?.closedEarly).toBe(true);
    expect(occurrences(shown, 'Working on it')).toBe(1);
    expect(await t.exited()).toBe(false);
    await t.keys(['C-c']);
    await t.waitFor((s) => s.includes('Bye.'), 'the goodbye');
    const deadline = Date.now() + 20_000;
    while (!(await t.exited())) {
      if (Date.now() > deadline) throw new Error(`still running:\n${await t.screen()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The next run remembers what was typed: Up brings it back.
    const next = await start(true);
    await next.keys(['Up']);
    await next.waitFor(promptBack('a long job'), 'the line from the last run');
  });
});
