/**
 * A session file damaged between two runs of the ready bot (started as
 * `npm start` starts it, on Telegram): the chat is told, the log says so,
 * the files are moved aside byte for byte, the chat goes on in a fresh
 * session, and `/new` starts another one.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBotStateStore, createUserSessionStore } from '../../src/store/index.js';
import { ANN, type AppWorld, createAppWorld } from '../adapters/telegram/app-harness.js';
import { messageUpdate } from '../fakes/telegram/index.js';

let world: AppWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const dm = { chatId: 11, user: ANN };

describe('a corrupt session file', () => {
  it('is reported in the chat and the log, moved aside intact; the chat starts fresh and /new works', async () => {
    world = await createAppWorld();
    const w = world;
    const texts = () => w.telegram.botMessages(11).map((m) => m.text);
    const first = await w.start();
    w.telegram.pushUpdate(messageUpdate(dm, 'before the damage'));
    await w.telegram.waitFor(() => texts().some((t) => t.includes('before the damage')), 10_000);
    await first.stop();

    const dataDir = join(w.root, 'data');
    const sessionsDir = join(dataDir, 'sessions');
    const id = (await createBotStateStore(dataDir).getChat('telegram:11'))?.sessionId ?? '?';
    const originals = new Map<string, Buffer>();
    for (const name of await readdir(sessionsDir)) {
      if (name.startsWith(id)) originals.set(name, await readFile(join(sessionsDir, name)));
    }
    const record = `${id}.json`;
    const truncated = (originals.get(record) ?? Buffer.alloc(0)).subarray(0, 40);
    await writeFile(join(sessionsDir, record), truncated);
    originals.set(record, truncated);

    const second = await w.start();
    w.telegram.pushUpdate(messageUpdate(dm, 'after the damage'));
    await w.telegram.waitFor(() => texts().some((t) => t.includes('after the damage')), 10_000);
    const notice = texts().find((t) => t.includes('could not be read')) ?? '';
    expect(notice).toContain(id);
    expect(notice).toContain('moved aside intact');
    expect(second.lines.some((l) => l.includes('session unreadable') && l.includes(id))).toBe(true);
    // Every file of the damaged session is set aside with the same bytes.
    const after = await readdir(sessionsDir);
    for (const [name, bytes] of originals) {
      const aside = after.find((f) => f.startsWith(`${name}.corrupt-`));
      expect(aside, `${name} moved aside`).toBeDefined();
      expect(Buffer.compare(await readFile(join(sessionsDir, aside ?? '?')), bytes)).toBe(0);
      expect(after).not.toContain(name);
    }
    // The fresh session does not carry the damaged history.
    const fresh = (await createBotStateStore(dataDir).getChat('telegram:11'))?.sessionId;
    expect(fresh).not.toBe(id);
    expect(JSON.stringify(w.anthropic.requests.at(-1).messages)).not.toContain('before the damage');

    w.telegram.pushUpdate(messageUpdate(dm, '/new'));
    await w.telegram.waitFor(() => texts().length >= 4, 10_000);
    w.telegram.pushUpdate(messageUpdate(dm, 'a clean slate'));
    await w.telegram.waitFor(() => texts().some((t) => t.includes('a clean slate')), 10_000);
    const newest = (await createBotStateStore(dataDir).getChat('telegram:11'))?.sessionId;
    expect(newest).not.toBe(fresh);
    expect(w.anthropic.requests.at(-1).messages).toHaveLength(1);
    const listed = await createUserSessionStore(sessionsDir).list();
    expect(listed.map((e) => e.outcome.status)).toEqual(listed.map(() => 'valid'));
  });
});
