import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/bot/commands.js';
import { say } from '../../src/bot/text.js';
import { type BotHarness, startBotHarness, USERS } from '../helpers/bot-harness.js';

let h: BotHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const bound = async (harness: BotHarness, chat = harness.chat) =>
  (await harness.stateStore.getChat(chat))?.sessionId as string;
const ask = (harness: BotHarness, name: string, args = '', options = {}) => harness.ask(name, args, options);

describe('bot core: commands', () => {
  it('/help lists every command, one line each; unknown commands and stray arguments say what works', async () => {
    h = await startBotHarness();
    const help = await ask(h, 'help');
    const lines = help.split('\n').slice(1);
    expect(lines).toHaveLength(Object.keys(COMMANDS).length);
    for (const name of [
      'new',
      'compact',
      'rename',
      'stop',
      'status',
      'cost',
      'tools',
      'sessions',
      'resume',
      'fork',
      'mode',
      'help',
    ]) {
      expect(lines.some((l) => l.startsWith(`/${name}`))).toBe(true);
    }
    expect(await ask(h, 'foo')).toBe('Unknown command /foo. Try /help.');
    expect(await ask(h, 'new', 'please')).toBe('/new takes no arguments. Usage: /new');
    // Without a responder the answer goes to the chat.
    await h.command('help');
    await h.settle();
    expect(h.texts().at(-1)).toBe(help);
  });

  it('/status reports context, model, mode, name, id and queue', async () => {
    h = await startBotHarness();
    expect(await ask(h, 'status')).toMatch(/^No session yet/);
    await h.message('hello');
    await h.settle();
    const status = await ask(h, 'status');
    expect(status).toContain(`Session: unnamed, id ${await bound(h)} (name it with /rename)`);
    expect(status).toMatch(/Context: \d+\.\d% used/);
    expect(status).toContain('Model: claude-sonnet-5-5 (1,000,000-token window)');
    expect(status).toContain('Permission mode: default');
    expect(status).toContain('idle, 0 queued');
  });

  it('/status right after the first message reports the session that message is creating', async () => {
    h = await startBotHarness();
    await h.message('hello');
    // No settling: the session is still being opened when /status arrives.
    const status = await ask(h, 'status');
    expect(status).not.toMatch(/^No session yet/);
    expect(status).toContain(`id ${await bound(h)}`);
  });

  it('/rename names the session and refuses bad names with a clear answer', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    expect(await ask(h, 'rename', 'parser work')).toBe('Renamed this session to "parser work".');
    await h.settle();
    const listed = await h.sessionStore.list();
    expect(
      listed.map((e) => (e.outcome.status === 'valid' ? e.outcome.record.name : e.outcome.status)),
    ).toEqual(['parser work']);
    expect(await ask(h, 'status')).toContain('"parser work"');
    expect(await ask(h, 'rename')).toMatch(/^Usage: \/rename <name>/);
    expect(await ask(h, 'rename', 'a'.repeat(65))).toMatch(/65 characters/);
    expect(await ask(h, 'rename', 'bad\u0007name')).toMatch(/control character/);
    expect(await ask(h, 'rename', '../x')).toMatch(/path separator|"\.\."/);
  });

  it('/new starts a fresh session, /sessions lists them marking the current one, /resume goes back by name or id', async () => {
    h = await startBotHarness();
    await h.message('first topic');
    await h.settle();
    const first = await bound(h);
    await ask(h, 'rename', 'first');
    expect(await ask(h, 'new')).toMatch(/^Started a new session/);
    const second = await bound(h);
    expect(second).not.toBe(first);
    await h.message('second topic');
    await h.settle();
    const list = await ask(h, 'sessions');
    expect(list).toContain(`• first · ${first}`);
    expect(list).toContain(`▶ unnamed · ${second}`);
    expect(await ask(h, 'resume', 'first')).toMatch(/^Resumed "first"/);
    expect(await bound(h)).toBe(first);
    await h.message('back again');
    await h.settle();
    const lastRequest = h.fakeAnthropic.requests.at(-1);
    expect(JSON.stringify(lastRequest.messages)).toContain('first topic');
    expect(JSON.stringify(lastRequest.messages)).not.toContain('second topic');
    expect(await ask(h, 'resume', second)).toMatch(/^Resumed/);
    expect(await bound(h)).toBe(second);
    expect(await ask(h, 'resume', second)).toMatch(/already on/);
  });

  it('/resume refuses path tricks, control characters and long names, and names unknown sessions', async () => {
    h = await startBotHarness();
    expect(await ask(h, 'resume', '../../etc')).toMatch(/^Can't resume that: .*(path separator|"\.\.")/);
    expect(await ask(h, 'resume', 'x\u0000y')).toMatch(/control character/);
    expect(await ask(h, 'resume', 'n'.repeat(65))).toMatch(/65 characters/);
    expect(await ask(h, 'resume', 'nothing-here')).toBe('No session named "nothing-here". See /sessions.');
    expect(await ask(h, 'resume')).toMatch(/^Usage: \/resume/);
  });

  it('/resume continues a session started under another chat key on another platform by a linked user', async () => {
    h = await startBotHarness({
      platforms: ['other'],
      allowedUsers: ['test:alice', 'test:bob', 'other:a1'],
      linkedUsers: { alice: ['test:alice', 'other:a1'] },
    });
    await h.message('remember: the code word is heron');
    await h.settle();
    await ask(h, 'rename', 'shared-work');
    const elsewhere = { chat: 'other:77', user: { id: 'a1', name: 'Alice' } };
    expect(await ask(h, 'sessions', '', elsewhere)).toContain('shared-work');
    expect(await ask(h, 'resume', 'shared-work', elsewhere)).toMatch(/^Resumed "shared-work"/);
    expect(await bound(h, 'other:77')).toBe(await bound(h));
    await h.message('what is the code word?', elsewhere);
    await h.settle();
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).toContain('heron');
    expect(h.texts('other:77').at(-1)).toBe('Alice said: what is the code word?');
    // Bob (not linked) can neither see nor resume it; an admin can.
    expect(await ask(h, 'sessions', '', { user: USERS.bob, chat: 'test:5' })).toMatch(/no saved sessions/);
    expect(await ask(h, 'resume', 'shared-work', { user: USERS.bob, chat: 'test:5' })).toBe(
      'No session named "shared-work". See /sessions.',
    );
    expect(await ask(h, 'sessions', '', { user: USERS.admin, chat: 'test:6' })).toContain('shared-work');
    expect(await ask(h, 'resume', 'shared-work', { user: USERS.admin, chat: 'test:6' })).toMatch(/^Resumed/);
  });

  it('/sessions shows admins the sessions that cannot be resumed, as such', async () => {
    h = await startBotHarness();
    await h.message('hello');
    await h.settle();
    await h.sessionStore.flush();
    await writeFile(join(h.dirs.sessions, 'broken-1.json'), '{"version": 1, "id": "broken-1"');
    const admin = await ask(h, 'sessions', '', { user: USERS.admin, chat: 'test:9' });
    expect(admin).toMatch(/✗ broken-1 · corrupt.*\(cannot be resumed\)/);
    expect(await ask(h, 'sessions')).not.toContain('broken-1');
    expect(await ask(h, 'resume', 'broken-1', { user: USERS.admin, chat: 'test:9' })).toBe(
      "Session broken-1 can't be resumed: it is corrupt.",
    );
  });

  it('/fork copies the session under a new id and the chat continues the copy', async () => {
    h = await startBotHarness();
    expect(await ask(h, 'fork')).toMatch(/^Nothing to fork yet/);
    await h.message('base fact');
    await h.settle();
    const original = await bound(h);
    expect(await ask(h, 'fork')).toContain(`Forked ${original} into`);
    const copy = await bound(h);
    expect(copy).not.toBe(original);
    await h.message('in the fork');
    await h.settle();
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).toContain('base fact');
    const orig = await h.sessionStore.load(original);
    expect(orig.status === 'valid' && orig.record.messages.length).toBe(2);
  });

  it('/mode changes the permission mode; bypassPermissions is for admins; bad modes get the usage', async () => {
    h = await startBotHarness();
    expect(await ask(h, 'mode', 'acceptEdits')).toBe('Permission mode is now acceptEdits.');
    expect(await ask(h, 'status')).toContain('Permission mode: acceptEdits');
    expect(await ask(h, 'mode', 'bypassPermissions')).toBe('Only an admin can use /mode bypassPermissions.');
    expect(await ask(h, 'mode', 'bypassPermissions', { user: USERS.admin })).toBe(
      'Permission mode is now bypassPermissions.',
    );
    expect(await ask(h, 'mode', 'yolo')).toMatch(
      /^Usage: \/mode <plan\|default\|acceptEdits\|bypassPermissions>/,
    );
    expect(await ask(h, 'mode')).toMatch(/^Usage/);
  });

  it('/compact summarizes and reports before -> after', async () => {
    h = await startBotHarness();
    expect(await ask(h, 'compact')).toMatch(/^Nothing to compact yet/);
    h.fakeAnthropic.enqueue({ text: 'A long answer. '.repeat(400) });
    await h.message('tell me a lot');
    await h.settle();
    h.fakeAnthropic.enqueue({ text: 'Summary: they asked for a lot.' });
    const answer = await ask(h, 'compact', 'keep the names');
    expect(answer).toMatch(
      /^Compacted: the history is now one summary; context [\d,]+ → [\d,]+ tokens \([\d.]+% → [\d.]+% of the window\)\.$/,
    );
    const [before, after] = (/context ([\d,]+) → ([\d,]+) tokens/.exec(answer) ?? [])
      .slice(1)
      .map((n) => Number(n.replace(/,/g, '')));
    expect(after).toBeLessThan(before as number);
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1))).toContain('keep the names');
  });

  it('while a reply runs: /status and /help answer at once, /rename acts, /new /resume /fork /compact ask to wait', async () => {
    h = await startBotHarness();
    h.fakeAnthropic.enqueue({ text: ['Busy', ' still'], stallAfterChunks: 1 });
    await h.message('work');
    await h.until(() => h?.fakeAnthropic.log[0]?.chunksSent === 1, 'turn running');
    expect(await ask(h, 'status')).toContain('a reply is running');
    expect(await ask(h, 'help')).toMatch(/^Commands:/);
    expect(await ask(h, 'rename', 'busy-one')).toBe('Renamed this session to "busy-one".');
    for (const name of ['new', 'fork', 'compact']) expect(await ask(h, name)).toBe(say.waitForReply(name));
    expect(await ask(h, 'resume', 'busy-one')).toMatch(/already on|has to wait/);
    expect(await ask(h, 'stop')).toBe(say.stopped(0, true));
    await h.settle();
    expect(await ask(h, 'new')).toMatch(/^Started a new session/);
  });
});
