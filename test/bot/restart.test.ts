import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { say } from '../../src/bot/text.js';
import { createBotStateStore } from '../../src/store/index.js';
import { type BotHarness, startBotHarness } from '../helpers/bot-harness.js';

const open: BotHarness[] = [];
const cleanup: string[] = [];
afterEach(async () => {
  // Restarted harnesses first: the first one owns the data root and the fake.
  for (const h of open.reverse()) await h.close();
  open.length = 0;
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});
const track = (h: BotHarness) => {
  open.push(h);
  return h;
};

describe('bot core: restarts, crashes, corrupt files, idle sessions', () => {
  it('a new core over the same data directory keeps the chat on its session', async () => {
    const h = track(await startBotHarness());
    await h.message('my name is Ada');
    await h.settle();
    const id = (await h.stateStore.getChat(h.chat))?.sessionId;
    await h.stop();
    const h2 = track(await h.restart());
    await h2.message('what is my name?');
    await h2.settle();
    expect((await h2.stateStore.getChat(h2.chat))?.sessionId).toBe(id);
    const last = h.fakeAnthropic.requests.at(-1);
    expect(last.messages).toHaveLength(3);
    expect(JSON.stringify(last.messages)).toContain('my name is Ada');
    expect(h2.texts()).toEqual(['Alice said: what is my name?']);
  });

  it('on start, tells every chat whose reply a crash cut off, once', async () => {
    const h = track(await startBotHarness());
    h.fakeAnthropic.enqueue({ text: ['Half', ' way'], stallAfterChunks: 1 });
    await h.message('long job');
    await h.until(() => h.fakeAnthropic.log[0]?.chunksSent === 1, 'streaming');
    // The process "dies" here: a second core starts over the same files without the first stopping.
    const h2 = track(await h.restart());
    await h2.settle();
    expect(h2.texts()).toEqual([say.crashNotice]);
    expect(await h2.stateStore.activeTurns()).toEqual([]);
    const h3 = track(await h.restart());
    await h3.settle();
    expect(h3.texts()).toEqual([]);
  });

  it('sends the crash notice for a turn recorded by an earlier process', async () => {
    const root = await mkdtemp(join(tmpdir(), 'switchboard-crash-'));
    cleanup.push(root);
    const state = createBotStateStore(join(root, 'data'));
    await state.beginTurn({ chat: 'test:555', sessionId: 'abc-123', startedAt: '2026-01-01T00:00:00.000Z' });
    await state.flush();
    const h = track(await startBotHarness({ root }));
    await h.settle();
    expect(h.texts('test:555')).toEqual([say.crashNotice]);
    expect(h.logs.some((l) => l.includes('cut off by a restart'))).toBe(true);
  });

  it('a corrupt session file is reported in the chat and the log, moved aside intact, and the chat starts fresh', async () => {
    const h = track(await startBotHarness());
    await h.message('before the damage');
    await h.settle();
    const id = (await h.stateStore.getChat(h.chat))?.sessionId as string;
    await h.stop();
    const record = join(h.dirs.sessions, `${id}.json`);
    const damaged = (await readFile(record, 'utf8')).slice(0, 25);
    await writeFile(record, damaged);
    const h2 = track(await h.restart());
    await h2.message('after the damage');
    await h2.settle();
    const texts = h2.texts();
    expect(texts[0]).toContain(`This chat's session ${id} could not be read (corrupt`);
    expect(texts[0]).toContain('moved aside intact');
    expect(texts.at(-1)).toBe('Alice said: after the damage');
    const files = await readdir(h.dirs.sessions);
    const aside = files.find((f) => f.startsWith(`${id}.json.corrupt-`));
    expect(aside).toBeDefined();
    expect(await readFile(join(h.dirs.sessions, aside as string), 'utf8')).toBe(damaged);
    const fresh = (await h2.stateStore.getChat(h2.chat))?.sessionId;
    expect(fresh).not.toBe(id);
    expect(h.fakeAnthropic.requests.at(-1).messages).toHaveLength(1);
    expect(h2.logs.some((l) => l.includes('session unreadable') && l.includes(id))).toBe(true);
  });

  it('a chat bound to a session whose files are gone starts a new one', async () => {
    const h = track(await startBotHarness());
    await h.message('first');
    await h.settle();
    const id = (await h.stateStore.getChat(h.chat))?.sessionId as string;
    await h.stop();
    for (const f of await readdir(h.dirs.sessions)) if (f.startsWith(id)) await rm(join(h.dirs.sessions, f));
    const h2 = track(await h.restart());
    await h2.message('second');
    await h2.settle();
    expect(h2.texts()).toEqual(['Alice said: second']);
    expect((await h2.stateStore.getChat(h2.chat))?.sessionId).not.toBe(id);
    expect(h2.logs.some((l) => l.includes('bound session not found'))).toBe(true);
  });

  it('releases idle sessions from memory and reloads them on the next message', async () => {
    const h = track(await startBotHarness({ idleReleaseMs: 60_000 }));
    await h.message('keep this');
    await h.settle();
    await h.until(() => h.logs.some((l) => l.includes('idle session released')), 'idle release', 1_000);
    await h.message('still there?');
    await h.settle();
    expect(JSON.stringify(h.fakeAnthropic.requests.at(-1).messages)).toContain('keep this');
    expect(h.logs.filter((l) => l.includes('session opened'))).toHaveLength(2);
  });

  it('stop() stops running replies with a notice, waits for the outbox and leaves no crash notice behind', async () => {
    const h = track(await startBotHarness());
    h.fakeAnthropic.enqueue({ text: ['Halfway', ' there'], stallAfterChunks: 1 });
    await h.message('long job');
    await h.until(() => h.texts().some((t) => t.includes('Halfway')), 'streaming');
    await h.stop();
    const reply = h.texts().find((t) => t.includes('Halfway'));
    expect(reply).toContain(say.shuttingDown);
    expect(h.adapter.chatMessages(h.chat).every((m) => m.buttons.length === 0)).toBe(true);
    expect(await h.stateStore.activeTurns()).toEqual([]);
    // A stopped core takes nothing more, but still answers presses and slash commands.
    const answers: string[] = [];
    const respond = async ({ text }: { text: string }) => {
      answers.push(text);
    };
    const user = { id: 'alice', name: 'Alice' };
    await h.bot.dispatch({ type: 'button', chat: h.chat, user, payload: 'a:0123456789', respond });
    await h.bot.dispatch({ type: 'command', chat: h.chat, user, name: 'status', args: '', respond });
    expect(answers).toEqual([say.shuttingDown, say.shuttingDown]);
    const before = h.texts().length;
    await h.bot.dispatch({ type: 'message', chat: h.chat, user, text: 'anyone there?', messageId: '1' });
    expect(h.texts()).toHaveLength(before);
    const h2 = track(await h.restart());
    await h2.settle();
    expect(h2.texts()).toEqual([]);
  });
});
